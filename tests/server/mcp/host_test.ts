/** The connection's MCP handle (server/mcp/host.ts). */
import assert from "node:assert/strict";
import { McpHost } from "../../../server/mcp/host.ts";
import { validateMcpServers } from "../../../server/mcp_servers.ts";

const base = { env: () => undefined, secretEnv: [], log: () => {} };

Deno.test("no host exists for a config whose servers are all disabled or absent", () => {
  assert.equal(McpHost.create({ ...base, servers: {} }), undefined);
  const off = validateMcpServers({ a: { command: "x", enabled: false } });
  assert.equal(McpHost.create({ ...base, servers: off }), undefined);
});

Deno.test("before the first session every enabled server is reported starting, disabled ones not at all", async () => {
  const servers = validateMcpServers({ a: { command: "x" }, b: { command: "y", enabled: false } });
  const host = McpHost.create({ ...base, servers })!;
  assert.deepEqual(host.statuses(), [{ name: "a", status: "starting", tools: 0 }]);
  await host.close();
});
