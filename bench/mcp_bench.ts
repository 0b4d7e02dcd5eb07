/**
 * What MCP costs at start-up: spawn to `initialized` and to `session.started`, with no server
 * configured and with one (the scripted server from tests/fixtures). Neither reply waits for MCP:
 * with no server no MCP code loads, and with one the client loads after `session.started`.
 *
 * Run with `deno bench --no-prompt -A bench/mcp_bench.ts`.
 */
import { SERVER_FLAGS } from "../tests/support/server_process.ts";
import { MCP_SERVER_FLAGS, scriptServer } from "../tests/support/mcp_peers.ts";

const MAIN = new URL("../main.ts", import.meta.url).pathname;
const dir = await Deno.makeTempDir({ prefix: "scv-mcp-bench-" });
const none = `${dir}/none.jsonc`;
const one = `${dir}/one.jsonc`;
await Deno.writeTextFile(none, "{}");
await Deno.writeTextFile(one, JSON.stringify({ mcp_servers: { s: scriptServer("ok") } }));
const encoder = new TextEncoder();

/** Spawns `scv server`, sends `lines`, waits until `until` appears in its output. */
async function startUntil(
  b: Deno.BenchContext,
  config: string,
  flags: string[],
  lines: string[],
  until: string,
) {
  // Timed up to the reply: the exit after it (which stops the MCP server) is not start-up.
  b.start();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", ...flags, MAIN, "server", "--config", config],
    env: { XDG_CONFIG_HOME: dir, XDG_STATE_HOME: dir },
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const w = child.stdin.getWriter();
  await w.write(encoder.encode(lines.map((l) => l + "\n").join("")));
  const reader = child.stdout.getReader();
  let got = "";
  while (!got.includes(until)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`server ended before ${until}: ${got}`);
    got += new TextDecoder().decode(value);
  }
  b.end();
  await w.close();
  reader.releaseLock();
  await child.stdout.cancel();
  await child.status;
}

const INIT = '{"type":"initialize","request_id":"1","protocol_version":1}';
const START = JSON.stringify({ type: "session.start", request_id: "2", cwd: dir });

for (
  const [label, config, flags] of [
    ["no MCP server", none, SERVER_FLAGS],
    ["one MCP server", one, MCP_SERVER_FLAGS],
  ] as const
) {
  Deno.bench(`spawn to initialized, ${label}`, { group: "initialized" }, async (b) => {
    await startUntil(b, config, flags, [INIT], '"initialized"');
  });
  Deno.bench(`spawn to session.started, ${label}`, { group: "session.started" }, async (b) => {
    await startUntil(b, config, flags, [INIT, START], '"session.started"');
  });
}
