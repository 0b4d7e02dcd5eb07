/** `scv acp` offers the configured MCP servers' tools too (CONTRACT.md "More commands"). */
import assert from "node:assert/strict";
import { MockOpenAI, text, toolCalls } from "../../support/mock_openai.ts";
import { AcpProcess } from "../../support/acp_process.ts";
import { alive, eventually, MCP_SERVER_FLAGS, scriptServer } from "../../support/mcp_peers.ts";

Deno.test("acp: a model calls an MCP server's tool after session/request_permission, and the server dies with scv", async () => {
  const mock = await MockOpenAI.start([
    toolCalls([{ id: "m1", name: "mcp__s__pid", arguments: {} }]),
    text("done"),
  ]);
  const agent = await AcpProcess.start({
    config: { base_url: mock.baseUrl, mcp_servers: { s: scriptServer("stubborn") } } as never,
    denoFlags: MCP_SERVER_FLAGS,
  });
  try {
    await agent.initialize();
    const { sessionId } = await agent.newSession(await agent.workspace());
    const answer = await agent.prompt(sessionId, "pid");
    assert.equal(answer.stopReason, "end_turn");
    assert.equal(agent.permissionRequests.length, 1);
    assert.equal(agent.permissionRequests[0]!.toolCall.title, "MCP s: pid");
    const sent = mock.requests[1]!.body.messages.find((m) => m.role === "tool");
    const pid = Number(sent?.content);
    assert.ok(Number.isInteger(pid) && alive(pid), `no live MCP server pid in ${sent?.content}`);
    assert.equal((await agent.close()).code, 0);
    assert.ok(await eventually(() => !alive(pid)), `MCP server ${pid} outlived scv acp`);
  } finally {
    await agent.dispose();
    await mock.close();
  }
});
