/**
 * The `Turn` object in process (server/core/turn.ts; tests/server/turn_test.ts drives whole turns
 * through main.ts): envelope and seq, the one terminal event, bounded failures, typed emits.
 */
import { assert, assertEquals, assertMatch, assertRejects } from "../../support/assert.ts";
import { FrameTooLargeError } from "../../../protocol/ndjson.ts";
import type { TurnEnd, TurnEvent } from "../../../protocol/turn_events.ts";
import { Session } from "../../../server/core/session.ts";
import { Turn, type TurnOptions } from "../../../server/core/turn.ts";
import { FrameWriter } from "../../../server/peon/writer.ts";

function recorded(options: Partial<TurnOptions> = {}) {
  const events: TurnEvent[] = [];
  const session = options.session ?? new Session("/tmp");
  const turn = new Turn({
    session,
    requestId: "r1",
    prompt: "hi",
    maxFrameBytes: 65536,
    sink: (e) => {
      events.push(structuredClone(e));
      return Promise.resolve();
    },
    ...options,
  });
  return { turn, events, session };
}

Deno.test("turn events carry the envelope and consecutive seq numbers of the session", async () => {
  const { turn, events, session } = recorded();
  turn.begin();
  await turn.emit("turn.started", {});
  await turn.emit("session.trimmed", { removed_messages: 2, history_bytes: 10 });
  await turn.finish({ type: "turn.cancelled" });
  assertEquals(events, [
    { type: "turn.started", request_id: "r1", session_id: session.id, turn_id: turn.id, seq: 1 },
    {
      type: "session.trimmed",
      request_id: "r1",
      session_id: session.id,
      seq: 2,
      removed_messages: 2,
      history_bytes: 10,
    },
    { type: "turn.cancelled", request_id: "r1", session_id: session.id, turn_id: turn.id, seq: 3 },
  ]);
  assertEquals(session.seq.last, 3);
});

Deno.test("an event the sink refuses takes no seq number", async () => {
  const session = new Session("/tmp");
  let refuse = true;
  const seqs: number[] = [];
  const { turn } = recorded({
    session,
    sink: (e) => {
      if (refuse) return Promise.reject(new FrameTooLargeError("assistant.delta", 10, 5));
      seqs.push(e.seq);
      return Promise.resolve();
    },
  });
  await assertRejects(() => turn.emit("assistant.delta", { content: "x" }), FrameTooLargeError);
  refuse = false;
  await turn.emit("assistant.delta", { content: "y" });
  assertEquals(seqs, [1]);
});

Deno.test("a turn ends once: a second finish and an emit after the end are refused", async () => {
  const { turn, events } = recorded();
  await turn.finish({ type: "turn.completed", steps: 0 });
  const twice = await assertRejects(() => turn.finish({ type: "turn.cancelled" }), TypeError);
  assertMatch(twice.message, /twice/);
  const late = await assertRejects(() => turn.emit("turn.started", {}), TypeError);
  assertMatch(late.message, /already ended/);
  assertEquals(events.map((e) => e.type), ["turn.completed"]);
  assertEquals((await turn.ended).type, "turn.completed");
});

Deno.test("a failure message is cut to the frame budget, and shortened when still too large", async () => {
  const { turn, events } = recorded({ maxFrameBytes: 2048 });
  await turn.finish({ type: "turn.failed", code: "internal_error", message: "m".repeat(10_000) });
  const failed = events[0] as Extract<TurnEvent, { type: "turn.failed" }>;
  assert(failed.message.length <= turn.fieldBudget, `${failed.message.length} characters`);
  assert(failed.message.startsWith("mmm"));

  // A sink with a real frame limit: an envelope leaves less room than the budget assumes.
  const chunks: Uint8Array[] = [];
  const writer = new FrameWriter(new WritableStream({ write: (c) => void chunks.push(c) }), {
    maxFrameBytes: 400,
  });
  const small = recorded({
    maxFrameBytes: 400,
    requestId: "r".repeat(100),
    sink: async (e) => void await writer.send(e),
  });
  await small.turn.finish({ type: "turn.failed", code: "tool_limit", message: "x".repeat(300) });
  await writer.close();
  const frame = JSON.parse(new TextDecoder().decode(chunks[0]));
  assertEquals(frame.code, "tool_limit");
  assertEquals(frame.message, "the failure message did not fit max_server_frame_bytes");
});

Deno.test("the end observer runs before the terminal event with the history repaired", async () => {
  const seen: Array<[TurnEnd["type"], number, number]> = [];
  const { turn, events, session } = recorded({
    onEnd: (end, t) => {
      seen.push([end.type, events.length, t.session.history.length]);
    },
  });
  turn.begin();
  turn.append({
    role: "assistant",
    content: null,
    tool_calls: [{ id: "c1", type: "function", function: { name: "bash", arguments: "{}" } }],
  });
  turn.repairHistory();
  await turn.emit("turn.started", {});
  await turn.finish({ type: "turn.cancelled" });
  assertEquals(seen, [["turn.cancelled", 1, 3]]);
  assertEquals(events.map((e) => e.type), ["turn.started", "turn.cancelled"]);
  assertEquals(session.history[2], {
    role: "tool",
    tool_call_id: "c1",
    content: "The tool call was cancelled before it finished.",
  });
});

Deno.test("usage sums over calls into the turn and the session, and is absent when unreported", () => {
  const { turn, session } = recorded();
  assertEquals(turn.usage, undefined);
  turn.addUsage({});
  assertEquals(turn.usage, undefined);
  turn.addUsage({ prompt_tokens: 10 });
  turn.addUsage({ prompt_tokens: 5, completion_tokens: 2 });
  assertEquals(turn.usage, { input_tokens: 15, output_tokens: 2 });
  assertEquals(session.usage, { input_tokens: 15, output_tokens: 2 });
});

Deno.test("a turn whose failure could not fit a frame is refused before it starts", () => {
  const envelope = { request_id: "r".repeat(100), session_id: "s", turn_id: "t" };
  assert(Turn.canEnd(envelope, 1024));
  assert(!Turn.canEnd(envelope, 200));
});

Deno.test("emit bodies are typed from the protocol table: wrong fields do not compile", async () => {
  const { turn, events } = recorded();
  // Each line below is a compile error, which `deno check` (deno task check) insists on.
  // @ts-expect-error: a misspelt field
  await turn.emit("tool.started", { call_id: "c", nmae: "bash" });
  // @ts-expect-error: a wrong type
  await turn.emit("assistant.delta", { content: 3 });
  // @ts-expect-error: a missing field
  await turn.emit("tool.completed", { call_id: "c", name: "bash", success: true });
  // @ts-expect-error: terminal events go through finish()
  await turn.emit("turn.completed", { steps: 1 });
  // @ts-expect-error: not a turn event
  await turn.emit("session.cleared", {});
  assertEquals(events.length, 5);
});
