/**
 * An `mcp_servers` entry with `"sandbox": true` runs its stdio server in the same sandbox as
 * `bash`: a server told to write outside the workspace cannot, and inside it can.
 */
import assert from "node:assert/strict";
import { MockOpenAI, type MockReply, text, toolCalls } from "../../support/mock_openai.ts";
import { ServerProcess } from "../../support/server_process.ts";
import { hostDir, SANDBOX_WORKS } from "../sandbox/support.ts";
import { validateMcpServers } from "../../../server/mcp_servers.ts";

const SERVER = new URL("../../fixtures/mcp_write_server.py", import.meta.url).pathname;

Deno.test({
  name: "a sandboxed MCP server cannot write outside the workspace, and can inside it",
  ignore: !SANDBOX_WORKS,
  fn: async () => {
    const workspace = await hostDir("scv-sbx-ws-");
    const outside = await hostDir("scv-sbx-out-");
    const writes = [`${outside}/escaped.txt`, `${workspace}/inside.txt`];
    const mock = await MockOpenAI.start((_req, i): MockReply =>
      i < writes.length
        ? toolCalls([{
          id: `call_${i}`,
          name: "mcp__w__write",
          arguments: { path: writes[i], text: "from the MCP server" },
        }])
        : text("done")
    );
    const server = await ServerProcess.start({
      config: {
        base_url: mock.baseUrl,
        approval_policy: "never",
        mcp_servers: { w: { command: "python3", args: [SERVER], sandbox: true } as never },
      },
    });
    try {
      const { sessionId } = await server.open(workspace);
      const { done } = await server.runTurn(sessionId, "write both");
      assert.equal(done.type, "turn.completed", JSON.stringify(done) + server.stderr);
      const [escaped, inside] = server.events.filter((e) => e.type === "tool.completed");
      assert.equal(escaped?.success, false, escaped?.output);
      assert.match(escaped!.output, /Read-only file system/);
      await assert.rejects(Deno.lstat(writes[0]!), Deno.errors.NotFound);
      assert.equal(inside?.success, true, inside?.output);
      assert.equal(await Deno.readTextFile(writes[1]!), "from the MCP server");
    } finally {
      await server.kill();
      await mock.close();
      await Deno.remove(workspace, { recursive: true }).catch(() => {});
      await Deno.remove(outside, { recursive: true }).catch(() => {});
    }
  },
});

Deno.test("an MCP stdio entry takes sandbox and, with it, its own network rule", () => {
  const s = validateMcpServers({
    a: { command: "x", sandbox: true, network: ["registry.npmjs.org"] },
    b: { command: "x", sandbox: true, network: true },
  });
  assert.deepEqual([s.a, s.b].map((e) => (e as { network?: unknown }).network), [
    ["registry.npmjs.org"],
    true,
  ]);
  assert.throws(
    () => validateMcpServers({ a: { command: "x", network: true } }),
    /"mcp_servers\.a\.network" is the network rule of a sandboxed server: set "sandbox": true/,
  );
  assert.throws(
    () => validateMcpServers({ a: { command: "x", sandbox: true, network: ["http://x"] } }),
    /"mcp_servers\.a\.network" must be true, false or an array of host patterns/,
  );
  assert.throws(
    () => validateMcpServers({ a: { command: "x", sandbox: "yes" } }),
    /"mcp_servers\.a\.sandbox" must be true or false/,
  );
});
