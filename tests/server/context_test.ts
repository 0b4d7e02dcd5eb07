/**
 * Integration tests of context management over the real server: compaction before a provider
 * call, `context_limit`, history trimming and `history_limit`.
 */
import { assert, assertEquals, assertMatch } from "../support/assert.ts";
import { type Ev, withServer } from "../support/server_process.ts";
import { MockOpenAI, text, toolCalls } from "../support/mock_openai.ts";

/** Every tool message follows the assistant message that called it, and every call is answered. */
function assertValidChat(messages: Array<Record<string, unknown>>): void {
  let open = new Set<string>();
  for (const m of messages) {
    if (m.role === "tool") {
      assert(open.has(m.tool_call_id as string), `tool result ${m.tool_call_id} follows its call`);
      open.delete(m.tool_call_id as string);
      continue;
    }
    assertEquals(open.size, 0, "every tool call was answered before the next message");
    open = new Set();
    if (m.role === "assistant" && Array.isArray(m.tool_calls)) {
      for (const c of m.tool_calls as Array<{ id: string }>) open.add(c.id);
    }
  }
}

const words = (n: number, tag: string) =>
  Array.from({ length: n }, (_, i) => `${tag}${i % 7} word`).join(" ");

Deno.test("compaction before a provider call shrinks the request, keeps it valid and emits context.compacted", async () => {
  // Each turn: a tool call, its result, then an answer: about 600 tokens per turn.
  let i = 0;
  const mock = await MockOpenAI.start((req) => {
    const last = req.body.messages.at(-1)!;
    return last.role === "user"
      ? toolCalls([{ id: `call_${i++}`, name: "no_such_tool", arguments: { n: i } }])
      : text(words(100, "answer"));
  });
  await withServer(mock, { config: { context_max_tokens: 2500 } }, async (p) => {
    const { sessionId } = await p.open();
    let compacted: Ev | undefined;
    for (let turn = 0; turn < 8 && !compacted; turn++) {
      const { t, done } = await p.runTurn(sessionId, `turn ${turn}: ${words(150, "prompt")}`);
      assertEquals(done.type, "turn.completed", JSON.stringify(done));
      compacted = p.turnEvents(t.turn_id).find((e) => e.type === "context.compacted");
    }
    assert(compacted, "a context.compacted event was emitted");
    assert(compacted.before_tokens > compacted.after_tokens);
    assert(compacted.removed_messages > 0);
    assert(compacted.before_tokens > 2500 - 500, "compaction only when the prompt would not fit");
    // The request after compaction drops the oldest turn: fewer messages than the history would
    // have had (previous request + its answer + the new prompt), and not the first prompt in full.
    const after = mock.requests.findIndex((r) =>
      r.body.messages.some((m) =>
        String(m.content).startsWith("[scv: earlier conversation compacted]")
      )
    );
    assert(after > 0, "the request after compaction carries the compaction record");
    const count = (k: number) => mock.requests[k]!.body.messages.length;
    assert(count(after) < count(after - 1) + 2, "the request lost messages");
    const firstPrompt = `turn 0: ${words(150, "prompt")}`;
    assert(!mock.requests[after]!.body.messages.some((m) => m.content === firstPrompt));
    for (const r of mock.requests) assertValidChat(r.body.messages);
    const record = mock.requests[after]!.body.messages.find((m) =>
      String(m.content).startsWith("[scv: earlier conversation compacted]")
    )!;
    assertMatch(String(record.content), /turn 0/);
    assertMatch(String(record.content), /no_such_tool/);
    assertEquals(p.schemaErrors, []);
  });
});

Deno.test("a turn whose prompt alone does not fit fails with context_limit", async () => {
  const mock = await MockOpenAI.start(() => text("unused"));
  await withServer(mock, { config: { context_max_tokens: 2000 } }, async (p) => {
    const { sessionId } = await p.open();
    const { done } = await p.runTurn(sessionId, words(2000, "big"));
    assertEquals([done.type, done.code], ["turn.failed", "context_limit"]);
    assertEquals(mock.requests.length, 0, "no provider call was made");
    // The session is still usable for a small prompt.
    const t2 = await p.startTurn(sessionId, "small");
    assertEquals((await p.terminal(t2.turn_id)).type, "turn.completed");
  });
});

Deno.test("the history over max_history_bytes is trimmed and session.trimmed reports the new size", async () => {
  const mock = await MockOpenAI.start(() => text("x".repeat(1500)));
  await withServer(mock, { config: { max_history_bytes: 8000 } }, async (p) => {
    const { sessionId } = await p.open();
    let trimmed: Ev | undefined;
    for (let turn = 0; turn < 10 && !trimmed; turn++) {
      const t = await p.startTurn(sessionId, `turn ${turn} ` + "p".repeat(1000));
      assertEquals((await p.terminal(t.turn_id)).type, "turn.completed");
      trimmed = p.events.find((e) => e.type === "session.trimmed");
    }
    assert(trimmed, "session.trimmed was emitted");
    assert(trimmed.removed_messages > 0);
    assert(trimmed.history_bytes <= 8000);
    assert(!("turn_id" in trimmed), "session.trimmed is a session event");
    assertEquals(typeof trimmed.seq, "number");
    // The next request carries no more history than the bound allows.
    const next = await p.startTurn(sessionId, "after trim");
    await p.terminal(next.turn_id);
    const msgs = mock.requests.at(-1)!.body.messages.filter((m) => m.role !== "system");
    assert(new TextEncoder().encode(JSON.stringify(msgs)).length <= 8000 + 200);
    assertEquals(p.schemaErrors, []);
  });
});

Deno.test("an answer that crosses max_history_bytes is trimmed before its turn completes", async () => {
  // 10-byte prompts and 3000-byte answers: the third answer takes the history past 8000 bytes.
  const mock = await MockOpenAI.start(() => text("a".repeat(3000)));
  await withServer(mock, { config: { max_history_bytes: 8000 } }, async (p) => {
    const { sessionId } = await p.open();
    for (let turn = 1; turn <= 3; turn++) {
      const requestId = `turn-${turn}`;
      const t = await p.startTurn(sessionId, `question ${turn}`, requestId);
      const done = await p.terminal(t.turn_id);
      assertEquals(done.type, "turn.completed");
      const trimmed = p.events.filter((e) => e.type === "session.trimmed");
      if (turn < 3) {
        assertEquals(trimmed, [], `nothing to trim after turn ${turn}`);
        continue;
      }
      assertEquals(trimmed.length, 1, "trimmed once, in the turn that crossed the bound");
      const [ev] = trimmed as [Ev];
      assertEquals(ev.request_id, requestId);
      assert(ev.seq < done.seq, "session.trimmed comes before the turn's terminal event");
      assert(ev.history_bytes <= 8000, `history_bytes ${ev.history_bytes}`);
      assertEquals(ev.removed_messages, 2, "the oldest turn went: its prompt and its answer");
    }
    assertEquals(p.schemaErrors, []);
  });
});

Deno.test("a prompt over max_history_bytes fails the turn with history_limit", async () => {
  const mock = await MockOpenAI.start(() => text("unused"));
  await withServer(mock, { config: { max_history_bytes: 500 } }, async (p) => {
    const { sessionId } = await p.open();
    const { done } = await p.runTurn(sessionId, "q".repeat(600));
    assertEquals([done.type, done.code], ["turn.failed", "history_limit"]);
    assertEquals(mock.requests.length, 0);
  });
});
