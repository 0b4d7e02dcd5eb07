/**
 * `scv acp` connects the MCP servers a client names in `session/new`, like configured ones: the
 * pinned server-everything over stdio, its tools offered to the model and called.
 */
import { assert, assertEquals, assertMatch } from "../../support/assert.ts";
import { MockOpenAI, text, toolCalls } from "../../support/mock_openai.ts";
import { AcpProcess } from "../../support/acp_process.ts";
import { MCP_SERVER_FLAGS, peerBin, startEverythingHttp } from "../../support/mcp_peers.ts";
import { type McpServer, RequestError } from "@agentclientprotocol/sdk";

Deno.test("acp: a client's stdio MCP server is connected and its tool is called", async () => {
  const mock = await MockOpenAI.start([
    toolCalls([{ id: "m1", name: "mcp__everything__echo", arguments: { message: "hi from acp" } }]),
    text("Echoed."),
  ]);
  const agent = await AcpProcess.start({
    config: { base_url: mock.baseUrl, approval_policy: "never" },
    denoFlags: MCP_SERVER_FLAGS,
  });
  try {
    const init = await agent.initialize();
    assertEquals(init.agentCapabilities?.mcpCapabilities, { http: true, sse: false });
    const { sessionId } = await agent.newSession(await agent.workspace(), [
      { name: "everything", command: peerBin("mcp-server-everything"), args: [], env: [] },
    ]);
    assertEquals((await agent.prompt(sessionId, "Echo")).stopReason, "end_turn");
    const offered = (mock.requests[0]!.body.tools ?? []).map((t) =>
      (t as { function: { name: string } }).function.name
    );
    assert(offered.includes("mcp__everything__echo"), offered.join());
    assert(offered.includes("bash"), "the built-in tools stay");
    const call = agent.updatesOf(sessionId, "tool_call")[0] as Record<string, unknown>;
    assertEquals(call.kind, "other");
    assertEquals(call.title, "MCP everything: echo");
    const result = mock.requests[1]!.body.messages.find((m) => m.role === "tool");
    assertMatch(String(result?.content), /hi from acp/);
    // The agent still ends cleanly at EOF with a client server running.
    assertEquals((await agent.close()).code, 0);
  } finally {
    await agent.dispose();
    await mock.close();
  }
});

Deno.test("acp: a client's Streamable HTTP MCP server is connected and its tool is called", async () => {
  const http = await startEverythingHttp();
  const mock = await MockOpenAI.start([
    toolCalls([{ id: "s1", name: "mcp__web__get-sum", arguments: { a: 2, b: 3 } }]),
    text("Five."),
  ]);
  const agent = await AcpProcess.start({
    config: { base_url: mock.baseUrl, approval_policy: "never" },
  });
  try {
    await agent.initialize();
    const { sessionId } = await agent.newSession(await agent.workspace(), [
      { type: "http", name: "web", url: http.url, headers: [] },
    ]);
    assertEquals((await agent.prompt(sessionId, "Add")).stopReason, "end_turn");
    const done = agent.updatesOf(sessionId, "tool_call_update").at(-1) as Record<string, unknown>;
    assertEquals(done.status, "completed");
    const result = mock.requests[1]!.body.messages.find((m) => m.role === "tool");
    assertMatch(String(result?.content), /5/);
  } finally {
    await agent.dispose();
    await mock.close();
    await http.stop();
  }
});

Deno.test("acp: an SSE MCP server or an invalid one is refused with -32602", async () => {
  const mock = await MockOpenAI.start([]);
  const agent = await AcpProcess.start({ config: { base_url: mock.baseUrl } });
  try {
    await agent.initialize();
    const ws = await agent.workspace();
    for (
      const [server, why] of <Array<[McpServer, RegExp]>> [
        [{ type: "sse" as const, name: "old", url: "http://127.0.0.1:1/sse", headers: [] }, /SSE/],
        [{ type: "http" as const, name: "bad", url: "ftp://x", headers: [] }, /url/],
      ]
    ) {
      let error: unknown;
      try {
        await agent.newSession(ws, [server]);
      } catch (e) {
        error = e;
      }
      assert(error instanceof RequestError);
      assertEquals(error.code, -32602);
      assertMatch(error.message, why);
    }
  } finally {
    await agent.dispose();
    await mock.close();
  }
});
