/**
 * Soak benchmark of a long session: N turns (default 5,000), each a tool call (`read_file`)
 * and an answer, through the real `scv server` and the mock provider, with
 * `context_max_tokens` 8,000. Prints the server's resident memory and the time per turn around
 * turn 100 and at the end, to show both stay flat.
 *
 * Run: `deno task bench:soak` (or `... bench/long_session.ts 1000` for a shorter run).
 */
import { MockOpenAI, text, toolCalls } from "../tests/support/mock_openai.ts";
import { ServerProcess } from "../tests/support/server_process.ts";

const TURNS = Number(Deno.args[0] ?? 5000);
let call = 0;
const mock = await MockOpenAI.start((req) => {
  const last = req.body.messages.at(-1)!;
  return last.role === "user"
    ? toolCalls([{ id: `call_${call++}`, name: "read_file", arguments: { path: "notes.txt" } }], {
      usage: { prompt_tokens: 1000, completion_tokens: 20 },
    })
    : text(`Read it. The file says hello, turn ${call}. `.repeat(8), {
      pieceSize: 40,
      usage: { prompt_tokens: 1100, completion_tokens: 80 },
    });
}, { maxRecorded: 4 });
const server = await ServerProcess.start({
  config: { base_url: mock.baseUrl, context_max_tokens: 8000, approval_policy: "never" },
});

// Deno reserves /proc for --allow-all, so ask ps.
async function rssKiB(pid: number): Promise<number> {
  const out = await new Deno.Command("ps", { args: ["-o", "rss=", "-p", String(pid)] }).output();
  return Number(new TextDecoder().decode(out.stdout).trim());
}

try {
  const { sessionId, cwd } = await server.open();
  await Deno.writeTextFile(`${cwd}/notes.txt`, "hello\n".repeat(50));
  const windowMs: number[] = [];
  const report: string[] = [];
  let compactions = 0;
  for (let turn = 1; turn <= TURNS; turn++) {
    const t0 = performance.now();
    const started = await server.startTurn(
      sessionId,
      `Turn ${turn}: read notes.txt and summarise.`,
      `r${turn}`,
    );
    const done = await server.terminal(started.turn_id, 30_000);
    if (done.type !== "turn.completed") throw new Error(`turn ${turn}: ${JSON.stringify(done)}`);
    compactions += server.events.filter((e) => e.type === "context.compacted").length;
    server.reset();
    windowMs.push(performance.now() - t0);
    if (windowMs.length > 100) windowMs.shift();
    if (turn === 100 || turn % 1000 === 0 || turn === TURNS) {
      const sorted = [...windowMs].sort((a, b) => a - b);
      const median = sorted[Math.floor(sorted.length / 2)]!;
      report.push(
        `turn ${turn}: server RSS ${(await rssKiB(server.child.pid) / 1024).toFixed(1)} MiB, ` +
          `median time per turn over the last 100 turns ${median.toFixed(2)} ms`,
      );
      console.log(report.at(-1));
    }
  }
  console.log(`${TURNS} turns, ${compactions} compactions, ${mock.requestCount} provider calls`);
} finally {
  await server.kill();
  await mock.close();
}
