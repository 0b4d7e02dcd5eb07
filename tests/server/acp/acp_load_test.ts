/**
 * `scv acp` with recorded sessions: `session/load` in a new process replays the history as
 * `session/update` notifications before it answers, and the next prompt goes on from it.
 */
import { assert, assertEquals, assertMatch } from "../../support/assert.ts";
import { MockOpenAI, text, toolCalls } from "../../support/mock_openai.ts";
import { AcpProcess } from "../../support/acp_process.ts";
import { RequestError } from "@agentclientprotocol/sdk";

Deno.test("acp: session/load after a restart replays the history, keeps the mode, and the next prompt continues it", async () => {
  const first = await MockOpenAI.start([
    toolCalls([{ id: "w1", name: "write_file", arguments: { path: "n.txt", content: "42" } }]),
    text("Noted: 42."),
  ]);
  const a = await AcpProcess.start({
    config: { base_url: first.baseUrl, approval_policy: "never" },
  });
  const tempDir = a.tempDir;
  let sessionId: string;
  let ws: string;
  try {
    assertEquals((await a.initialize()).agentCapabilities?.loadSession, true);
    ws = await a.workspace();
    sessionId = (await a.newSession(ws)).sessionId;
    // The mode chosen in the editor is recorded with the session.
    await a.agent.request("session/set_mode", { sessionId, modeId: "never" });
    assertEquals((await a.prompt(sessionId, "Remember 42")).stopReason, "end_turn");
    assertEquals((await a.close()).code, 0);
  } finally {
    await a.dispose(true);
    await first.close();
  }
  const second = await MockOpenAI.start([text("You said 42.")]);
  const b = await AcpProcess.start({ config: { base_url: second.baseUrl }, tempDir });
  try {
    await b.initialize();
    const loaded = await b.agent.request("session/load", { sessionId, cwd: ws, mcpServers: [] });
    assertEquals(loaded.modes?.currentModeId, "never");
    // Replayed before the answer: every update is already here.
    const replay = b.updatesOf(sessionId);
    assertEquals(replay.map((u) => u.sessionUpdate), [
      "user_message_chunk",
      "tool_call",
      "tool_call_update",
      "agent_message_chunk",
    ]);
    assertEquals((replay[0] as { content: { text: string } }).content.text, "Remember 42");
    assertEquals((replay[1] as { title: string }).title, "Write file: n.txt (2 bytes)");
    assertEquals((replay[2] as { status: string }).status, "completed");
    assertEquals((replay[3] as { content: { text: string } }).content.text, "Noted: 42.");
    assertEquals((await b.prompt(sessionId, "What did I say?")).stopReason, "end_turn");
    const sent = second.requests[0]!.body.messages;
    assert(sent.some((m) => m.role === "user" && m.content === "Remember 42"), "history not sent");
    assertEquals(sent.at(-1)?.content, "What did I say?");
  } finally {
    await b.dispose();
    await second.close();
  }
});

Deno.test("acp: session/load of an unknown session is a resource-not-found error", async () => {
  const mock = await MockOpenAI.start([]);
  const agent = await AcpProcess.start({ config: { base_url: mock.baseUrl } });
  try {
    await agent.initialize();
    const ws = await agent.workspace();
    let error: unknown;
    try {
      await agent.agent.request("session/load", {
        sessionId: crypto.randomUUID(),
        cwd: ws,
        mcpServers: [],
      });
    } catch (e) {
      error = e;
    }
    assert(error instanceof RequestError);
    assertEquals(error.code, -32002);
    assertMatch(error.message, /no recorded session/);
  } finally {
    await agent.dispose();
    await mock.close();
  }
});

Deno.test("acp: without recorded sessions loadSession is not advertised and session/load is unknown", async () => {
  const mock = await MockOpenAI.start([]);
  const agent = await AcpProcess.start({
    config: { base_url: mock.baseUrl, persist_sessions: false },
  });
  try {
    assertEquals((await agent.initialize()).agentCapabilities?.loadSession, false);
    let error: unknown;
    try {
      await agent.agent.request("session/load", { sessionId: "x", cwd: "/tmp", mcpServers: [] });
    } catch (e) {
      error = e;
    }
    assert(error instanceof RequestError);
    assertEquals(error.code, -32601);
  } finally {
    await agent.dispose();
    await mock.close();
  }
});

Deno.test("acp: session/list shows recorded sessions with their titles; session/close ends one", async () => {
  const mock = await MockOpenAI.start([text("Done.")]);
  const agent = await AcpProcess.start({ config: { base_url: mock.baseUrl } });
  try {
    const init = await agent.initialize();
    assertEquals(init.agentCapabilities?.sessionCapabilities, { close: {}, list: {} });
    const ws = await agent.workspace();
    const { sessionId } = await agent.newSession(ws);
    await agent.prompt(sessionId, "Fix the failing test");
    const listed = await agent.agent.request("session/list", { cwd: ws });
    assertEquals(listed.sessions.map((s) => [s.sessionId, s.cwd, s.title]), [
      [sessionId, ws, "Fix the failing test"],
    ]);
    const other = await agent.workspace();
    assertEquals((await agent.agent.request("session/list", { cwd: other })).sessions, []);
    let bad: unknown;
    try {
      await agent.agent.request("session/list", { cursor: "not-mine" });
    } catch (e) {
      bad = e;
    }
    assert(bad instanceof RequestError && bad.code === -32602);
    await agent.agent.request("session/close", { sessionId });
    let gone: unknown;
    try {
      await agent.prompt(sessionId, "again");
    } catch (e) {
      gone = e;
    }
    assert(gone instanceof RequestError);
    assertEquals(gone.code, -32002);
  } finally {
    await agent.dispose();
    await mock.close();
  }
});
