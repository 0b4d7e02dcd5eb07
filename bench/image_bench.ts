/**
 * What attaching an image costs a turn: a 2 MB PNG in the workspace, attached by path, against
 * the same turn without it. Figures (medians of `RUNS`, default 5, each run a fresh server):
 * - time from sending `turn.start` to the scripted provider receiving the request (the time the
 *   image adds before the first provider byte: reading, checking, base64, the request body);
 * - the server's peak RSS (VmHWM) after the turn.
 *
 * Run: `deno run -A bench/image_bench.ts [RUNS]` (`deno task bench:image`). It needs
 * `--allow-all`: Deno lets only that read another process's `/proc/PID/status`.
 */
import { MockOpenAI, text } from "../tests/support/mock_openai.ts";
import { ServerProcess } from "../tests/support/server_process.ts";
import { makePng } from "../tests/support/images.ts";

const RUNS = Number(Deno.args[0] ?? 5);

function peakRssMiB(pid: number): number {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  const kib = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return kib / 1024;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/** One fresh server: a warm-up turn, then the timed one. */
async function run(image: Uint8Array | undefined): Promise<{ ms: number; rss: number }> {
  let arrived = 0;
  const mock = await MockOpenAI.start(() => {
    arrived = performance.now();
    return text("ok");
  });
  const server = await ServerProcess.start({
    config: { base_url: mock.baseUrl, persist_sessions: false },
  });
  try {
    const { sessionId, cwd } = await server.open();
    await server.runTurn(sessionId, "warm up");
    if (image) await Deno.writeFile(`${cwd}/shot.png`, image);
    const sent = performance.now();
    await server.send({
      type: "turn.start",
      request_id: "timed",
      session_id: sessionId,
      prompt: "What is on this screen?",
      ...(image ? { attachments: [{ type: "image", path: "shot.png" }] } : {}),
    });
    const started = await server.next((e) => e.request_id === "timed");
    if (started.type !== "turn.started") throw new Error(JSON.stringify(started));
    const done = await server.terminal(started.turn_id, 60_000);
    if (done.type !== "turn.completed") throw new Error(JSON.stringify(done));
    return { ms: arrived - sent, rss: peakRssMiB(server.child.pid) };
  } finally {
    await server.kill();
    await mock.close();
  }
}

const png = makePng({ width: 820, height: 820, seed: 3 });
console.log(`PNG: ${(png.length / 1e6).toFixed(2)} MB, ${RUNS} runs each`);
const plain: Array<{ ms: number; rss: number }> = [];
const withImage: Array<{ ms: number; rss: number }> = [];
for (let i = 0; i < RUNS; i++) {
  plain.push(await run(undefined));
  withImage.push(await run(png));
}
const row = (name: string, rs: Array<{ ms: number; rss: number }>) =>
  console.log(
    `${name.padEnd(22)} turn.start → provider request ${
      median(rs.map((r) => r.ms)).toFixed(1)
    } ms, ` +
      `peak RSS ${median(rs.map((r) => r.rss)).toFixed(1)} MiB`,
  );
row("without an image", plain);
row("with a 2 MB PNG", withImage);
