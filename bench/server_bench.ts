/**
 * End-to-end benchmarks of the headless server: start-up (`scv --version`, spawn to
 * `initialized`) and streaming throughput (mock SSE → server → stdout NDJSON).
 *
 * Run with `deno task bench`. Deltas per second = 20,000 / the "20,000 deltas" time.
 */
import { MockOpenAI } from "../tests/support/mock_openai.ts";
import { SERVER_FLAGS } from "../tests/support/server_process.ts";
import { RawServer } from "../tests/support/raw_server.ts";

const MAIN = new URL("../main.ts", import.meta.url).pathname;
const DELTAS = 20_000;

// One SSE body of DELTAS small deltas, built once: the bench measures scv, not the mock.
const events: Array<Record<string, unknown>> = [];
for (let i = 0; i < DELTAS; i++) {
  events.push({ choices: [{ index: 0, delta: { content: `tok${i % 10} ` } }] });
}
events.push({ choices: [{ index: 0, delta: {}, finish_reason: "stop" }] });
const body = new TextEncoder().encode(
  events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join("") + "data: [DONE]\n\n",
);
const mock = await MockOpenAI.start(() => ({ kind: "raw", body }));

const server = await RawServer.start({ base_url: mock.baseUrl });
const sessionId = await server.open();

const EMPTY = await Deno.makeTempFile({ suffix: ".ts" });
Deno.bench(
  "baseline: deno run of an empty module",
  { group: "startup", baseline: true },
  async () => {
    const out = await new Deno.Command(Deno.execPath(), { args: ["run", "--no-prompt", EMPTY] })
      .output();
    if (!out.success) throw new Error("deno run failed");
  },
);

Deno.bench("scv --version (process spawn to exit)", { group: "startup" }, async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-prompt", MAIN, "--version"],
    stdout: "null",
  }).output();
  if (!out.success) throw new Error("scv --version failed");
});

Deno.bench("spawn scv server to initialized", { group: "startup" }, async () => {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", ...SERVER_FLAGS, MAIN, "server"],
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const w = child.stdin.getWriter();
  await w.write(
    new TextEncoder().encode('{"type":"initialize","request_id":"1","protocol_version":1}\n'),
  );
  const reader = child.stdout.getReader();
  let got = "";
  while (!got.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) break;
    got += new TextDecoder().decode(value);
  }
  if (!got.includes('"initialized"')) throw new Error(`unexpected reply: ${got}`);
  await w.close();
  reader.releaseLock();
  await child.stdout.cancel();
  await child.status;
});

let n = 0;
Deno.bench(`${DELTAS} deltas, mock SSE → scv server → stdout NDJSON`, async () => {
  const before = server.lines;
  await server.startTurn(sessionId, "go", `b${n++}`);
  const last = await server.until('"turn.');
  if (!last.includes("turn.started")) throw new Error(last);
  const done = await server.until('"turn.');
  if (!done.includes("turn.completed")) throw new Error(done);
  if (server.lines - before < DELTAS) throw new Error("deltas missing");
});

globalThis.addEventListener("unload", () => {
  void server.kill();
  void mock.close();
});
