/**
 * MCP's wire addition (docs/mcp.md): `session.started.mcp_servers`. The fixtures are the
 * document's example frames, copied verbatim, so the code and the document cannot drift apart.
 */
import assert from "node:assert/strict";
import { ClientMessage, McpServerState, ServerEvent } from "../../protocol/schema.ts";

const lines = (name: string) =>
  Deno.readTextFileSync(new URL(`./fixtures/${name}`, import.meta.url))
    .split("\n").filter((l) => l.trim() !== "");
const examples = lines("mcp_server_events.ndjson");
const requests = lines("mcp_client_messages.ndjson");
const doc = Deno.readTextFileSync(new URL("../../docs/mcp.md", import.meta.url));
const docFrames = [...doc.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => JSON.parse(m[1]!));

Deno.test("every MCP example frame (events and the mcp.status request) parses, round-trips and appears in docs/mcp.md", () => {
  assert.equal(examples.length, 3);
  assert.equal(requests.length, 1);
  for (const line of [...examples, ...requests]) {
    const value = JSON.parse(line);
    const r = (value.type === "mcp.status" && !value.servers ? ClientMessage : ServerEvent)
      .safeParse(value);
    assert.ok(r.success, `${value.type}: ${r.error?.message}`);
    assert.deepEqual(JSON.parse(JSON.stringify(r.data)), value);
    assert.ok(
      docFrames.some((f) => JSON.stringify(f) === JSON.stringify(value)),
      `docs/mcp.md lacks ${line.slice(0, 80)}...`,
    );
  }
});

Deno.test("an MCP server state rejects an unknown status and a negative tool count", () => {
  assert.equal(McpServerState.safeParse({ name: "a", status: "ready", tools: 1 }).success, true);
  assert.equal(McpServerState.safeParse({ name: "a", status: "gone", tools: 0 }).success, false);
  assert.equal(McpServerState.safeParse({ name: "a", status: "ready", tools: -1 }).success, false);
});
