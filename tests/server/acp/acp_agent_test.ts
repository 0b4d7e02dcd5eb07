/**
 * `scv acp` as a subprocess, driven by the ACP SDK's own client over stdio, against the
 * scripted provider.
 */
import { assert, assertEquals, assertMatch } from "../../support/assert.ts";
import { type MockOpenAI, text, toolCalls } from "../../support/mock_openai.ts";
import { withAgent } from "./support.ts";

Deno.test("acp: initialize advertises images, embedded context, MCP capabilities and scv's version", async () => {
  await withAgent([], {}, async (agent) => {
    const r = await agent.initialize();
    assertEquals(r.protocolVersion, 1);
    assertEquals(r.agentCapabilities?.promptCapabilities, {
      image: true,
      audio: false,
      embeddedContext: true,
    });
    assert(r.agentCapabilities?.mcpCapabilities !== undefined);
    assertEquals(r.agentInfo?.name, "scv");
    assertEquals((await agent.close()).code, 0);
  });
});

Deno.test("acp: a text turn streams agent_message_chunk updates and ends with end_turn", async () => {
  await withAgent(
    // Apart in time, so that each piece comes in a read of its own and is a chunk of its own.
    [text("Hello from the mock, streamed in pieces.", { pieceSize: 5, delayMs: 5 })],
    {},
    async (agent) => {
      await agent.initialize();
      const { sessionId, modes } = await agent.newSession(await agent.workspace());
      assertEquals(modes?.currentModeId, "on-risk");
      const answer = await agent.prompt(sessionId, "Say hello");
      assertEquals(answer.stopReason, "end_turn");
      const chunks = agent.updatesOf(sessionId, "agent_message_chunk");
      assert(chunks.length >= 8, `${chunks.length} chunks`);
      assertEquals(agent.messageText(sessionId), "Hello from the mock, streamed in pieces.");
      // stdout carried JSON-RPC only.
      for (const line of agent.lines) assertEquals(JSON.parse(line).jsonrpc, "2.0");
    },
  );
});

/** The tool result the provider was sent for a call, from its recorded requests. */
function toolResult(mock: MockOpenAI, callId: string): string | undefined {
  for (const r of mock.requests) {
    const m = r.body.messages.find((m) => m.role === "tool" && m.tool_call_id === callId);
    if (m) return m.content as string;
  }
  return undefined;
}

Deno.test("acp: an approved write asks with session/request_permission, then completes with a diff", async () => {
  const script = [
    toolCalls([{ id: "w1", name: "write_file", arguments: { path: "a.txt", content: "hello" } }]),
    text("Wrote it."),
  ];
  await withAgent(script, {}, async (agent, mock) => {
    await agent.initialize();
    const ws = await agent.workspace();
    const { sessionId } = await agent.newSession(ws);
    const answer = await agent.prompt(sessionId, "Write a.txt");
    assertEquals(answer.stopReason, "end_turn");
    assertEquals(agent.permissionRequests.length, 1);
    const asked = agent.permissionRequests[0]!;
    assertEquals(asked.toolCall.toolCallId, "w1");
    assertEquals(asked.toolCall.title, "Write file: a.txt (5 bytes)");
    assertEquals(asked.toolCall.kind, "edit");
    assertEquals(asked.toolCall.locations, [{ path: `${ws}/a.txt` }]);
    assertEquals(asked.options.map((o) => o.kind), ["allow_once", "allow_always", "reject_once"]);
    assertEquals(await Deno.readTextFile(`${ws}/a.txt`), "hello");
    const calls = agent.updatesOf(sessionId).filter((u) =>
      (u as { toolCallId?: string }).toolCallId === "w1"
    ) as Array<Record<string, unknown>>;
    assertEquals(calls[0]!.sessionUpdate, "tool_call");
    assertEquals(calls[0]!.kind, "edit");
    assertEquals(calls.map((u) => u.status).filter((s) => s), [
      "pending",
      "in_progress",
      "completed",
    ]);
    const done = calls.at(-1)!.content as Array<Record<string, unknown>>;
    assertEquals(done.find((c) => c.type === "diff"), {
      type: "diff",
      path: `${ws}/a.txt`,
      oldText: null,
      newText: "hello",
    });
    assertMatch(toolResult(mock, "w1") ?? "", /Created "a.txt"/);
  });
});

Deno.test("acp: a rejected call is not run, fails, and the model is told it was denied", async () => {
  const script = [
    toolCalls([{ id: "b1", name: "bash", arguments: { command: "touch made.txt" } }]),
    text("OK, I will not."),
  ];
  const permission = () => ({ outcome: { outcome: "selected" as const, optionId: "reject_once" } });
  await withAgent(script, { permission }, async (agent, mock) => {
    await agent.initialize();
    const ws = await agent.workspace();
    const { sessionId } = await agent.newSession(ws);
    assertEquals((await agent.prompt(sessionId, "Make a file")).stopReason, "end_turn");
    assertEquals(agent.permissionRequests[0]!.toolCall.kind, "execute");
    assertEquals(agent.permissionRequests[0]!.toolCall.title, "Run shell command: touch made.txt");
    const last = agent.updatesOf(sessionId, "tool_call_update").at(-1) as Record<string, unknown>;
    assertEquals(last.status, "failed");
    assertEquals(await Deno.stat(`${ws}/made.txt`).then(() => true, () => false), false);
    assertMatch(toolResult(mock, "b1") ?? "", /denied/);
  });
});

Deno.test("acp: allow always is remembered for the exact call, not for other arguments", async () => {
  const call = (id: string, command: string) =>
    toolCalls([{ id, name: "bash", arguments: { command } }]);
  const script = [
    call("c1", "echo one"),
    text("1"),
    call("c2", "echo one"),
    text("2"),
    call("c3", "echo two"),
    text("3"),
  ];
  const permission = () => ({
    outcome: { outcome: "selected" as const, optionId: "allow_always" },
  });
  await withAgent(script, { permission }, async (agent, mock) => {
    await agent.initialize();
    const { sessionId } = await agent.newSession(await agent.workspace());
    for (const p of ["first", "second", "third"]) {
      assertEquals((await agent.prompt(sessionId, p)).stopReason, "end_turn");
    }
    assertEquals(agent.permissionRequests.map((r) => r.toolCall.toolCallId), ["c1", "c3"]);
    assertMatch(toolResult(mock, "c2") ?? "", /one/);
  });
});

Deno.test("acp: session/cancel during streaming ends the prompt with cancelled", async () => {
  const script = [{
    kind: "stream" as const,
    events: [{ choices: [{ index: 0, delta: { content: "partial " } }] }],
    hang: true,
  }];
  await withAgent(script, {}, async (agent) => {
    await agent.initialize();
    const { sessionId } = await agent.newSession(await agent.workspace());
    const answer = agent.prompt(sessionId, "Talk");
    await agent.until(() => agent.messageText(sessionId) === "partial ");
    await agent.agent.notify("session/cancel", { sessionId });
    assertEquals((await answer).stopReason, "cancelled");
  });
});

Deno.test("acp: session/cancel while a permission is pending resolves it as cancelled", async () => {
  const script = [toolCalls([{ id: "b1", name: "bash", arguments: { command: "touch x" } }])];
  let aborted = false;
  const permission = (_: unknown, signal: AbortSignal) =>
    new Promise<{ outcome: { outcome: "cancelled" } }>((resolve) => {
      signal.addEventListener("abort", () => {
        aborted = true;
        resolve({ outcome: { outcome: "cancelled" } });
      });
    });
  await withAgent(script, { permission }, async (agent) => {
    await agent.initialize();
    const ws = await agent.workspace();
    const { sessionId } = await agent.newSession(ws);
    const answer = agent.prompt(sessionId, "Touch x");
    await agent.until(() => agent.permissionRequests.length === 1);
    await agent.agent.notify("session/cancel", { sessionId });
    assertEquals((await answer).stopReason, "cancelled");
    // The agent told the client to stop waiting for the answer ($/cancel_request).
    await agent.until(() => aborted);
    assertEquals(await Deno.stat(`${ws}/x`).then(() => true, () => false), false);
  });
});

Deno.test("acp: a client that answers a permission with cancelled cancels the turn", async () => {
  const script = [toolCalls([{ id: "b1", name: "bash", arguments: { command: "touch x" } }])];
  const permission = () => ({ outcome: { outcome: "cancelled" as const } });
  await withAgent(script, { permission }, async (agent) => {
    await agent.initialize();
    const { sessionId } = await agent.newSession(await agent.workspace());
    assertEquals((await agent.prompt(sessionId, "Touch x")).stopReason, "cancelled");
  });
});

Deno.test("acp: reasoning streams as agent_thought_chunk, never as message text", async () => {
  const reasoning = (t: string) => ({ choices: [{ index: 0, delta: { reasoning_content: t } }] });
  const content = (t: string) => ({ choices: [{ index: 0, delta: { content: t } }] });
  const script = [{
    kind: "stream" as const,
    events: [reasoning("Let me "), reasoning("think."), content("The answer."), {
      choices: [{ index: 0, delta: {}, finish_reason: "stop" }],
    }],
  }];
  await withAgent(script, {}, async (agent) => {
    await agent.initialize();
    const { sessionId } = await agent.newSession(await agent.workspace());
    assertEquals((await agent.prompt(sessionId, "Think")).stopReason, "end_turn");
    const thoughts = agent.updatesOf(sessionId, "agent_thought_chunk")
      .map((u) => (u as { content: { text: string } }).content.text).join("");
    assertEquals(thoughts, "Let me think.");
    assertEquals(agent.messageText(sessionId), "The answer.");
  });
});

Deno.test("acp: a turn notice is a notice update for a client that shows notices, and nothing for one that does not", async () => {
  const refusal = {
    kind: "status" as const,
    status: 400,
    body: '{"error":{"message":"this model does not support tools"}}',
  };
  for (const shows of [true, false]) {
    await withAgent([refusal, text("Without tools.")], {}, async (agent) => {
      await agent.initialize(shows ? { session: { notices: {} } } : {});
      const { sessionId } = await agent.newSession(await agent.workspace());
      assertEquals((await agent.prompt(sessionId, "hi")).stopReason, "end_turn");
      const notices = agent.updatesOf(sessionId, "notice") as Array<{ title: string }>;
      if (shows) {
        assertEquals(notices.length, 1);
        assertMatch(notices[0]!.title, /cannot use tools/);
      } else {
        assertEquals(notices, []);
      }
      assertEquals(agent.messageText(sessionId), "Without tools.");
    });
  }
});

Deno.test("acp: the provider's key reaches no command, no update and no recorded session", async () => {
  const key = "sk-acp-secret-4d2f9";
  const script = [
    toolCalls([{ id: "e1", name: "bash", arguments: { command: "env; echo done" } }]),
    text("ok"),
  ];
  await withAgent(
    script,
    { env: { OPENAI_API_KEY: key }, config: { approval_policy: "never" } },
    async (agent, mock) => {
      await agent.initialize();
      const { sessionId } = await agent.newSession(await agent.workspace());
      assertEquals((await agent.prompt(sessionId, "show env")).stopReason, "end_turn");
      // The key was configured (the provider got it), and the command ran.
      assertEquals(mock.requests[0]!.headers.get("authorization"), `Bearer ${key}`);
      const result = String(
        mock.requests[1]!.body.messages.find((m) => m.role === "tool")?.content,
      );
      assertMatch(result, /done/);
      assert(!result.includes(key), "the key reached the command's environment");
      assert(agent.lines.every((l) => !l.includes(key)), "the key is in an ACP message");
      assertEquals((await agent.close()).code, 0);
      const dir = `${agent.tempDir}/xdg-state/scv/sessions`;
      for (const e of Deno.readDirSync(dir)) {
        assert(!Deno.readTextFileSync(`${dir}/${e.name}`).includes(key), `the key is in ${e.name}`);
      }
    },
  );
});

Deno.test("acp: an edit's permission request carries the change as a diff", async () => {
  const script = [
    toolCalls([{
      id: "e1",
      name: "edit_file",
      arguments: { path: "n.txt", old_string: "two", new_string: "TWO" },
    }]),
    text("Edited."),
  ];
  await withAgent(script, {}, async (agent) => {
    await agent.initialize();
    const ws = await agent.workspace();
    await Deno.writeTextFile(`${ws}/n.txt`, "one\ntwo\n");
    const { sessionId } = await agent.newSession(ws);
    assertEquals((await agent.prompt(sessionId, "Edit n.txt")).stopReason, "end_turn");
    const asked = agent.permissionRequests[0]!;
    assertEquals(asked.toolCall.content, [{
      type: "diff",
      path: `${ws}/n.txt`,
      oldText: "one\ntwo\n",
      newText: "one\nTWO\n",
    }]);
  });
});

Deno.test("acp: session/request_permission's title names the rule that asked, as the TUI's box does", async () => {
  const script = [
    toolCalls([{ id: "g1", name: "bash", arguments: { command: "git reset --hard" } }]),
    text("Stopped."),
  ];
  await withAgent(script, {
    config: { approval_policy: "auto" },
    permission: () => ({ outcome: { outcome: "selected", optionId: "reject_once" } }),
  }, async (agent) => {
    await agent.initialize();
    const { sessionId } = await agent.newSession(await agent.workspace());
    assertEquals((await agent.prompt(sessionId, "reset it")).stopReason, "end_turn");
    // Under `auto` nothing in the workspace would ask, but the built-in destructive rule does.
    assertEquals(agent.permissionRequests.map((r) => r.toolCall.toolCallId), ["g1"]);
    assertEquals(
      agent.permissionRequests[0]!.toolCall.title,
      "Run shell command: git reset --hard (asked by bash git reset --hard (built-in rule 1): " +
        "git reset --hard discards uncommitted changes)",
    );
  });
});

Deno.test("acp: a call the approval policy asks for has the summary alone as its title", async () => {
  const script = [
    toolCalls([{ id: "p1", name: "bash", arguments: { command: "echo plain" } }]),
    text("Done."),
  ];
  await withAgent(script, {}, async (agent) => {
    await agent.initialize();
    const { sessionId } = await agent.newSession(await agent.workspace());
    assertEquals((await agent.prompt(sessionId, "echo")).stopReason, "end_turn");
    assertEquals(agent.permissionRequests.map((r) => r.toolCall.title), [
      "Run shell command: echo plain",
    ]);
  });
});
