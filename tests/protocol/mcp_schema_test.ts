/**
 * MCP's wire additions (docs/mcp.md): `session.started.mcp_servers` and `mcp.status`. The
 * examples are the document's own frames, so the code and the document cannot drift apart.
 */
import assert from "node:assert/strict";
import { ClientMessage, McpServerState, ServerEvent } from "../../protocol/schema.ts";
import { peonDocFrames } from "../support/doc_frames.ts";

const frames = peonDocFrames(["docs/mcp.md"]).map((f) => f.value);
const requests = frames.filter((f) => f.type === "mcp.status" && f.servers === undefined);
const examples = frames.filter((f) => !requests.includes(f));

Deno.test("every MCP example frame of docs/mcp.md (events and the mcp.status request) parses and round-trips", () => {
  assert.equal(examples.length, 3);
  assert.equal(requests.length, 1);
  assert.ok(examples.some((e) => e.type === "session.started" && Array.isArray(e.mcp_servers)));
  for (const value of [...examples, ...requests]) {
    const r = (requests.includes(value) ? ClientMessage : ServerEvent).safeParse(value);
    assert.ok(r.success, `${value.type}: ${r.error?.message}`);
    assert.deepEqual(JSON.parse(JSON.stringify(r.data)), value);
  }
});

Deno.test("an MCP server state rejects an unknown status and a negative tool count", () => {
  assert.equal(McpServerState.safeParse({ name: "a", status: "ready", tools: 1 }).success, true);
  assert.equal(McpServerState.safeParse({ name: "a", status: "gone", tools: 0 }).success, false);
  assert.equal(McpServerState.safeParse({ name: "a", status: "ready", tools: -1 }).success, false);
});
