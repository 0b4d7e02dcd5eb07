/**
 * Integration tests of turns over the real server and the scripted provider: streaming,
 * ordering, seq, steps and usage, provider failures and caps, cancellation and EOF.
 */
import { exists } from "../support/probes.ts";
import { assert, assertEquals, assertMatch } from "../support/assert.ts";
import { type Ev, withServer } from "../support/server_process.ts";
import { MockOpenAI, type MockReply, text, textChunk, toolCalls } from "../support/mock_openai.ts";

const TERMINAL = ["turn.completed", "turn.cancelled", "turn.failed"];

/** Checks the per-turn ordering rules on a finished turn's events. */
function assertTurnShape(events: Ev[]): void {
  assertEquals(events[0]?.type, "turn.started");
  const terminals = events.filter((e) => TERMINAL.includes(e.type));
  assertEquals(terminals.length, 1, "exactly one terminal event");
  assertEquals(TERMINAL.includes(events.at(-1)!.type), true, "the terminal event is last");
  const rid = events[0]!.request_id;
  for (const e of events) {
    assertEquals(e.request_id, rid, `${e.type} carries the turn's request_id`);
  }
}

Deno.test("a turn streams deltas whose concatenation is assistant.completed, then turn.completed", async () => {
  const answer = "I found the issue. It was in the parser, line 42.";
  const mock = await MockOpenAI.start([
    // Apart in time, so that each piece comes in a read of its own and is a delta of its own.
    text(answer, { pieceSize: 5, usage: { prompt_tokens: 12, completion_tokens: 7 }, delayMs: 5 }),
  ]);
  await withServer(mock, {}, async (p) => {
    const { sessionId } = await p.open();
    const started = await p.startTurn(sessionId, "Fix the failing test.", "3");
    const done = await p.terminal(started.turn_id);
    const events = p.turnEvents(started.turn_id);
    assertTurnShape(events);
    const deltas = events.filter((e) => e.type === "assistant.delta");
    assert(deltas.length >= 5);
    const completed = events.find((e) => e.type === "assistant.completed")!;
    assertEquals(deltas.map((d) => d.content).join(""), answer);
    assertEquals(completed.content, answer);
    assertEquals(done.type, "turn.completed");
    assertEquals(done.steps, 1);
    assertEquals(done.usage, { input_tokens: 12, output_tokens: 7 });
    assertEquals(events.map((e) => e.seq), events.map((_, i) => i + 1));
    assertEquals(p.schemaErrors, []);
  });
});

Deno.test("the provider request is a streaming chat completion with usage, tools and the prompt", async () => {
  const mock = await MockOpenAI.start([text("ok")]);
  await withServer(
    mock,
    { env: { OPENAI_API_KEY: "sk-test-key-123" }, config: { model: "m-1" } },
    async (p) => {
      const { sessionId } = await p.open();
      await p.runTurn(sessionId, "hello");
      const req = mock.requests[0]!;
      assertEquals(req.body.model, "m-1");
      assertEquals(req.body.stream, true);
      assertEquals(req.body.stream_options, { include_usage: true });
      assertEquals(req.body.messages[0]!.role, "system");
      assertEquals(req.body.messages.at(-1), { role: "user", content: "hello" });
      assertEquals(req.headers.get("authorization"), "Bearer sk-test-key-123");
    },
  );
});

Deno.test("no Authorization header is sent when the API key is missing", async () => {
  const mock = await MockOpenAI.start([text("ok")]);
  await withServer(mock, { env: {} }, async (p) => {
    const { sessionId } = await p.open();
    const t = await p.startTurn(sessionId, "hello");
    assertEquals((await p.terminal(t.turn_id)).type, "turn.completed");
    assertEquals(mock.requests[0]!.headers.get("authorization"), null);
  });
});

Deno.test("usage is omitted from turn.completed when the provider reports none", async () => {
  const mock = await MockOpenAI.start([text("no usage here")]);
  await withServer(mock, {}, async (p) => {
    const { sessionId } = await p.open();
    const { done } = await p.runTurn(sessionId, "hi");
    assertEquals(done.type, "turn.completed");
    assert(!("usage" in done), "usage must be omitted");
  });
});

Deno.test("usage is omitted when the provider's usage chunk has no token counts", async () => {
  const chunks = (usage: Record<string, unknown>): MockReply => ({
    kind: "stream",
    events: [
      textChunk("ok"),
      { choices: [{ index: 0, delta: {}, finish_reason: "stop" }] },
      { choices: [], usage },
    ],
  });
  const mock = await MockOpenAI.start([
    chunks({ total_tokens: 5 }),
    chunks({ prompt_tokens: -3, completion_tokens: 1.5 }),
    chunks({ prompt_tokens: 4, total_tokens: 4 }),
  ]);
  await withServer(mock, {}, async (p) => {
    const { sessionId } = await p.open();
    for (const expected of [undefined, undefined, { input_tokens: 4 }]) {
      const { done } = await p.runTurn(sessionId, "hi");
      assertEquals([done.type, done.usage], ["turn.completed", expected]);
      assertEquals("usage" in done, expected !== undefined, JSON.stringify(done));
    }
  });
});

Deno.test("steps count provider calls and usage is summed over them", async () => {
  const mock = await MockOpenAI.start([
    toolCalls([{ id: "call_1", name: "no_such_tool", arguments: {} }], {
      usage: { prompt_tokens: 10, completion_tokens: 3 },
    }),
    text("done", { usage: { prompt_tokens: 20, completion_tokens: 4 } }),
  ]);
  await withServer(mock, {}, async (p) => {
    const { sessionId } = await p.open();
    const { t, done } = await p.runTurn(sessionId, "go");
    assertEquals(done.type, "turn.completed");
    assertEquals(done.steps, 2);
    assertEquals(done.usage, { input_tokens: 30, output_tokens: 7 });
    assertTurnShape(p.turnEvents(t.turn_id));
  });
});

Deno.test("an unknown tool completes with success false and the turn goes on", async () => {
  const mock = await MockOpenAI.start([
    toolCalls([{ id: "call_x", name: "teleport", arguments: { to: "mars" } }]),
    text("sorry"),
  ]);
  await withServer(mock, {}, async (p) => {
    const { sessionId } = await p.open();
    const { t } = await p.runTurn(sessionId, "go");
    const events = p.turnEvents(t.turn_id);
    const types = events.map((e) => e.type);
    assertEquals(types.filter((x) => x !== "assistant.delta"), [
      "turn.started",
      "assistant.completed",
      "tool.proposed",
      "tool.completed",
      "assistant.completed",
      "turn.completed",
    ]);
    const proposed = events.find((e) => e.type === "tool.proposed")!;
    assertEquals(proposed.arguments, { to: "mars" });
    const completed = events.find((e) => e.type === "tool.completed")!;
    assertEquals([completed.success, completed.call_id, completed.name], [
      false,
      "call_x",
      "teleport",
    ]);
    assertMatch(completed.output, /Unknown tool "teleport"/);
    // The model saw the failure as the tool result.
    const msgs = mock.requests[1]!.body.messages;
    const toolMsg = msgs.find((m) => m.role === "tool")!;
    assertEquals(toolMsg.tool_call_id, "call_x");
    assertMatch(String(toolMsg.content), /Unknown tool/);
    // assistant.completed may be empty when the response only requests tools.
    assertEquals(events.find((e) => e.type === "assistant.completed")!.content, "");
  });
});

Deno.test("tool arguments that are not JSON complete the call with success false", async () => {
  const mock = await MockOpenAI.start([
    toolCalls([{ id: "c1", name: "read_file", arguments: "{not json" }]),
    text("ok"),
  ]);
  await withServer(mock, { config: { approval_policy: "never" } }, async (p) => {
    const { sessionId } = await p.open();
    const { t } = await p.runTurn(sessionId, "go");
    const completed = p.eventOf(t.turn_id, "tool.completed");
    assertEquals(completed.success, false);
    assertMatch(completed.output, /not valid JSON/);
  });
});

Deno.test("max_steps provider calls end the turn with step_limit", async () => {
  const loop = () => toolCalls([{ name: "no_such_tool", arguments: {} }]);
  const mock = await MockOpenAI.start(() => loop());
  await withServer(mock, { config: { max_steps: 3 } }, async (p) => {
    const { sessionId } = await p.open();
    const { t, done } = await p.runTurn(sessionId, "loop forever");
    assertEquals([done.type, done.code], ["turn.failed", "step_limit"]);
    assertEquals(done.message, "agent reached 3 steps");
    assertEquals(mock.requests.length, 3);
    assertTurnShape(p.turnEvents(t.turn_id));
  });
});

Deno.test("HTTP 500 is retried three times in all, then provider_error without the API key", async () => {
  const key = "sk-very-secret-key-987";
  const mock = await MockOpenAI.start(() => ({
    kind: "status",
    status: 500,
    body: JSON.stringify({ error: { message: `upstream broke for key ${key}` } }),
    headers: { "retry-after": "0" },
  }));
  await withServer(mock, { env: { OPENAI_API_KEY: key } }, async (p) => {
    const { sessionId } = await p.open();
    const { done } = await p.runTurn(sessionId, "hi");
    assertEquals([done.type, done.code], ["turn.failed", "provider_error"]);
    assertMatch(done.message, /HTTP 500/);
    assertMatch(done.message, /upstream broke/);
    assertEquals(mock.requests.length, 3);
    for (const line of p.rawLines) assert(!line.includes(key), "the key never reaches an event");
    assert(!p.stderr.includes(key), "the key never reaches the log");
  });
});

Deno.test("HTTP 429 honours Retry-After and the retry succeeds", async () => {
  let n = 0;
  const mock = await MockOpenAI.start(() =>
    n++ === 0
      ? {
        kind: "status",
        status: 429,
        body: '{"error":{"message":"slow down"}}',
        headers: { "retry-after": "1" },
      }
      : text("after retry")
  );
  await withServer(mock, {}, async (p) => {
    const { sessionId } = await p.open();
    const t = await p.startTurn(sessionId, "hi");
    const t0 = Date.now();
    const done = await p.terminal(t.turn_id);
    assertEquals(done.type, "turn.completed");
    assert(Date.now() - t0 >= 900, "waited about the Retry-After second");
    assertEquals(mock.requests.length, 2);
  });
});

Deno.test("HTTP 401 and 400 are not retried", async () => {
  for (const status of [401, 400]) {
    const mock = await MockOpenAI.start(() => ({
      kind: "status",
      status,
      body: JSON.stringify({ error: { message: "Incorrect API key provided" } }),
    }));
    await withServer(mock, {}, async (p) => {
      const { sessionId } = await p.open();
      const { done } = await p.runTurn(sessionId, "hi");
      assertEquals([done.type, done.code], ["turn.failed", "provider_error"]);
      assertMatch(done.message, new RegExp(`HTTP ${status}: Incorrect API key provided`));
      assertEquals(mock.requests.length, 1);
    });
  }
});

Deno.test("an unreachable provider fails the turn with provider_error", async () => {
  const mock = await MockOpenAI.start([]);
  await withServer(mock, { config: { base_url: "http://127.0.0.1:9/v1" } }, async (p) => {
    const { sessionId } = await p.open();
    const { done } = await p.runTurn(sessionId, "hi");
    assertEquals([done.type, done.code], ["turn.failed", "provider_error"]);
    assertMatch(done.message, /Cannot reach the provider/);
  });
});

Deno.test("a provider silent for provider_timeout_ms fails the turn with provider_error", async () => {
  const mock = await MockOpenAI.start([{ kind: "silent" }]);
  await withServer(mock, { config: { provider_timeout_ms: 400 } }, async (p) => {
    const { sessionId } = await p.open();
    const { done } = await p.runTurn(sessionId, "hi");
    assertEquals([done.type, done.code], ["turn.failed", "provider_error"]);
    assertMatch(done.message, /400 ms/);
  });
});

Deno.test("a provider that stalls mid-stream fails with provider_error", async () => {
  const mock = await MockOpenAI.start([{
    kind: "stream",
    events: [textChunk("partial ")],
    hang: true,
  }]);
  await withServer(mock, { config: { provider_timeout_ms: 400 } }, async (p) => {
    const { sessionId } = await p.open();
    const { t, done } = await p.runTurn(sessionId, "hi");
    assertEquals([done.type, done.code], ["turn.failed", "provider_error"]);
    // The partial text was streamed, but no assistant.completed for a failed response.
    const types = p.turnEvents(t.turn_id).map((e) => e.type);
    assert(types.includes("assistant.delta"));
    assert(!types.includes("assistant.completed"));
  });
});

Deno.test("a stream that ends without [DONE] or finish_reason is a provider_error", async () => {
  const mock = await MockOpenAI.start([{
    kind: "stream",
    events: [textChunk("cut")],
    done: false,
  }]);
  await withServer(mock, {}, async (p) => {
    const { sessionId } = await p.open();
    const { done } = await p.runTurn(sessionId, "hi");
    assertEquals([done.type, done.code], ["turn.failed", "provider_error"]);
  });
});

Deno.test("an error object in the stream is a provider_error with the provider's message", async () => {
  const mock = await MockOpenAI.start([{
    kind: "stream",
    events: [{ error: { message: "model overloaded" } }],
  }]);
  await withServer(mock, {}, async (p) => {
    const { sessionId } = await p.open();
    const { done } = await p.runTurn(sessionId, "hi");
    assertEquals([done.type, done.code], ["turn.failed", "provider_error"]);
    assertMatch(done.message, /model overloaded/);
  });
});

Deno.test("assistant text over 1 MiB fails with response_limit", async () => {
  const mock = await MockOpenAI.start([{ kind: "flood", bytes: 1.5 * 1024 * 1024, chunk: 4096 }]);
  await withServer(mock, {}, async (p) => {
    const { sessionId } = await p.open();
    const { t, done } = await p.runTurn(sessionId, "hi");
    assertEquals([done.type, done.code], ["turn.failed", "response_limit"]);
    assertMatch(done.message, /Assistant text exceeded 1048576 bytes/);
    const text = p.turnEvents(t.turn_id).filter((e) => e.type === "assistant.delta").map((e) =>
      e.content
    ).join("");
    assert(
      new TextEncoder().encode(text).length <= 1024 * 1024,
      "no delta past the cap is emitted",
    );
  });
});

Deno.test("an SSE event over 1 MiB fails with response_limit", async () => {
  const big = textChunk("y".repeat(1024 * 1024 + 10));
  const mock = await MockOpenAI.start([{ kind: "stream", events: [big] }]);
  await withServer(mock, {}, async (p) => {
    const { sessionId } = await p.open();
    const { done } = await p.runTurn(sessionId, "hi");
    assertEquals([done.type, done.code], ["turn.failed", "response_limit"]);
    assertMatch(done.message, /SSE event over 1048576 bytes/);
  });
});

Deno.test("a response over 4 MiB fails with response_limit", async () => {
  // Keep-alive padding that is not text: only the whole-response cap can stop it.
  const pad = { choices: [{ index: 0, delta: {} }], pad: "p".repeat(512 * 1024) };
  const mock = await MockOpenAI.start([{ kind: "stream", events: Array(10).fill(pad) }]);
  await withServer(mock, {}, async (p) => {
    const { sessionId } = await p.open();
    const { done } = await p.runTurn(sessionId, "hi");
    assertEquals([done.type, done.code], ["turn.failed", "response_limit"]);
    assertMatch(done.message, /exceeded 4194304 bytes/);
  });
});

Deno.test("more than 32 tool calls fail with tool_limit and none is executed", async () => {
  const calls = Array.from(
    { length: 33 },
    (_, i) => ({ id: `c${i}`, name: "bash", arguments: { command: "touch ran" } }),
  );
  const mock = await MockOpenAI.start([toolCalls(calls)]);
  await withServer(mock, { config: { approval_policy: "never" } }, async (p) => {
    const { sessionId, cwd } = await p.open();
    const { t, done } = await p.runTurn(sessionId, "hi");
    assertEquals([done.type, done.code], ["turn.failed", "tool_limit"]);
    assert(
      !p.turnEvents(t.turn_id).some((e) => e.type.startsWith("tool.")),
      "no call proposed or run",
    );
    assertEquals(await exists(`${cwd}/ran`), false);
  });
});

Deno.test("tool arguments over 256 KiB fail with tool_limit", async () => {
  const mock = await MockOpenAI.start([
    toolCalls([{ name: "write_file", arguments: { path: "a", content: "z".repeat(300 * 1024) } }]),
  ]);
  await withServer(mock, {}, async (p) => {
    const { sessionId } = await p.open();
    const { done } = await p.runTurn(sessionId, "hi");
    assertEquals([done.type, done.code], ["turn.failed", "tool_limit"]);
    assertMatch(done.message, /262144 bytes/);
  });
});

Deno.test("a completion frame over max_server_frame_bytes fails with response_limit before it is written", async () => {
  const mock = await MockOpenAI.start([text("w".repeat(5000), { pieceSize: 100 })]);
  await withServer(mock, { config: { max_server_frame_bytes: 4096 } }, async (p) => {
    const { sessionId } = await p.open();
    const { t, done } = await p.runTurn(sessionId, "hi");
    assertEquals([done.type, done.code], ["turn.failed", "response_limit"]);
    const events = p.turnEvents(t.turn_id);
    assert(!events.some((e) => e.type === "assistant.completed"));
    // No seq was spent on the frame that was not written.
    assertEquals(events.map((e) => e.seq), events.map((_, i) => i + 1));
    for (const line of p.rawLines) assert(new TextEncoder().encode(line).length <= 4096);
  });
});

Deno.test("turn.start while a turn runs gets turn_active", async () => {
  const mock = await MockOpenAI.start([{
    kind: "stream",
    events: [textChunk("slow")],
    hang: true,
  }]);
  await withServer(mock, {}, async (p) => {
    const { sessionId } = await p.open();
    const t = await p.startTurn(sessionId, "first");
    await p.send({
      type: "turn.start",
      request_id: "second",
      session_id: sessionId,
      prompt: "again",
    });
    const err = await p.nextOf("error");
    assertEquals([err.code, err.request_id], ["turn_active", "second"]);
    await p.send({ type: "session.clear", request_id: "clr", session_id: sessionId });
    const err2 = await p.nextOf("error");
    assertEquals([err2.code, err2.request_id], ["turn_active", "clr"]);
    const { done } = await p.cancelTurn(sessionId, t.turn_id, "c");
    assertEquals(done.type, "turn.cancelled");
  });
});

Deno.test("turn.cancel during streaming ends the turn with turn.cancelled, last, carrying the turn's request_id", async () => {
  const mock = await MockOpenAI.start([{
    kind: "stream",
    events: [textChunk("thinking...")],
    hang: true,
  }]);
  await withServer(mock, {}, async (p) => {
    const { sessionId } = await p.open();
    const t = await p.startTurn(sessionId, "go", "turn-req");
    await p.nextOf("assistant.delta");
    const { done, ms } = await p.cancelTurn(sessionId, t.turn_id, "cancel-req");
    assert(ms < 3000, "cancellation takes effect within 3 s");
    assertEquals([done.type, done.request_id], ["turn.cancelled", "turn-req"]);
    assertTurnShape(p.turnEvents(t.turn_id));
    // No reply of its own to turn.cancel.
    assert(!p.events.some((e) => e.request_id === "cancel-req"));
  });
});

Deno.test("cancelling during a retry backoff ends the turn promptly", async () => {
  const mock = await MockOpenAI.start(() => ({
    kind: "status",
    status: 503,
    body: "busy",
    headers: { "retry-after": "30" },
  }));
  await withServer(mock, {}, async (p) => {
    const { sessionId } = await p.open();
    const t = await p.startTurn(sessionId, "go");
    while (mock.requests.length === 0) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 100));
    const { done, ms } = await p.cancelTurn(sessionId, t.turn_id, "c");
    assertEquals(done.type, "turn.cancelled");
    assert(ms < 3000);
  });
});

Deno.test("EOF during a turn cancels it and the server exits 0", async () => {
  const mock = await MockOpenAI.start([{
    kind: "stream",
    events: [textChunk("long")],
    hang: true,
  }]);
  await withServer(mock, {}, async (p) => {
    const { sessionId } = await p.open();
    const t = await p.startTurn(sessionId, "go");
    await p.nextOf("assistant.delta");
    const t0 = Date.now();
    await p.closeStdin();
    assertEquals(await p.exited(), 0);
    assert(Date.now() - t0 < 6000, "exits within 3 s plus the grace");
    assertEquals(p.turnEvents(t.turn_id).at(-1)!.type, "turn.cancelled");
  });
});

Deno.test("seq is per session, starts at 1 and never repeats across turns", async () => {
  const mock = await MockOpenAI.start(() => text("answer"));
  await withServer(mock, {}, async (p) => {
    const a = await p.open();
    const dir = await Deno.makeTempDir({ dir: p.tempDir });
    await p.send({ type: "session.start", request_id: "s2", cwd: dir });
    const b = (await p.nextOf("session.started")).session_id;
    for (const sid of [a.sessionId, b, a.sessionId]) {
      await p.runTurn(sid, "hi");
    }
    for (const sid of [a.sessionId, b]) {
      const seqs = p.events.filter((e) => e.session_id === sid && "seq" in e).map((e) => e.seq);
      assertEquals(seqs, seqs.map((_, i) => i + 1));
    }
  });
});

Deno.test("session.clear replies session.cleared with the next seq and the next request has no earlier messages", async () => {
  const mock = await MockOpenAI.start(() => text("answer"));
  await withServer(mock, {}, async (p) => {
    const { sessionId } = await p.open();
    const t = await p.startTurn(sessionId, "remember the number 7");
    const last = await p.terminal(t.turn_id);
    await p.send({ type: "session.clear", request_id: "clr", session_id: sessionId });
    const cleared = await p.nextOf("session.cleared");
    assertEquals(cleared, {
      type: "session.cleared",
      request_id: "clr",
      session_id: sessionId,
      seq: last.seq + 1,
    });
    const t2 = await p.startTurn(sessionId, "what was the number?");
    assertEquals(t2.seq, last.seq + 2, "seq is not reset by clear");
    await p.terminal(t2.turn_id);
    const msgs = mock.requests[1]!.body.messages;
    assertEquals(msgs.filter((m) => m.role !== "system"), [{
      role: "user",
      content: "what was the number?",
    }]);
  });
});

Deno.test("a second turn sends the first turn's messages as history", async () => {
  const mock = await MockOpenAI.start(() => text("answer one"));
  await withServer(mock, {}, async (p) => {
    const { sessionId } = await p.open();
    await p.runTurn(sessionId, "first");
    const t2 = await p.startTurn(sessionId, "second");
    await p.terminal(t2.turn_id);
    const msgs = mock.requests[1]!.body.messages.filter((m) => m.role !== "system");
    assertEquals(msgs, [
      { role: "user", content: "first" },
      { role: "assistant", content: "answer one" },
      { role: "user", content: "second" },
    ]);
  });
});
