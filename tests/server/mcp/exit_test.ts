/** MCP servers die with scv even when it leaves through `Deno.exit` (no cleanup runs then). */
import assert from "node:assert/strict";
import { alive, eventually } from "../../support/mcp_peers.ts";

const SCRIPT = new URL("../../fixtures/mcp_abrupt_exit.ts", import.meta.url).pathname;

Deno.test("an MCP server does not outlive scv leaving through Deno.exit", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-prompt", "-A", SCRIPT],
    stdin: "null",
  }).output();
  const stdout = new TextDecoder().decode(out.stdout).trim();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  const pid = Number(stdout);
  assert.ok(Number.isInteger(pid) && pid > 0, `no pid printed: ${stdout}`);
  // It existed: the server answered tools/list through the manager before the exit.
  assert.ok(await eventually(() => !alive(pid)), `MCP server ${pid} outlived scv`);
});
