/**
 * Steering and the queue over Peon, black-box against the real `scv server` (scv 0.3,
 * docs/steering.md): `turn.steer` answered at once and entering before the next provider
 * request, `turn.start` with `queue` answered `turn.queued` and started in order,
 * `turn.dequeue`, `turn.cancel` cancelling only the active turn, and `session.clear` refused
 * while prompts wait. A turn is held at an approval so that the test knows where it is.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { MockOpenAI, text, toolCalls } from "../support/mock_openai.ts";
import { type Ev, type ServerProcess, withServer } from "../support/server_process.ts";

const held = { config: { approval_policy: "always" as const } };

/** Starts a turn that asks to run `true` and waits for its approval; returns the turn and it. */
async function heldTurn(p: ServerProcess, sessionId: string, requestId = "t1") {
  const t = await p.startTurn(sessionId, "run true", requestId);
  const approval = await p.next((e) => e.type === "approval.requested" && e.turn_id === t.turn_id);
  return { t, approval };
}

async function approve(p: ServerProcess, sessionId: string, approval: Ev): Promise<void> {
  await p.send({
    type: "approval.resolve",
    request_id: `a-${approval.approval_id}`,
    session_id: sessionId,
    approval_id: approval.approval_id,
    approved: true,
  });
}

function queue(p: ServerProcess, sessionId: string, requestId: string, prompt: string) {
  return p.send({
    type: "turn.start",
    request_id: requestId,
    session_id: sessionId,
    prompt,
    queue: true,
  });
}

/** The user messages of a provider request's body. */
function userTexts(mock: MockOpenAI, index: number): unknown[] {
  return mock.requests[index]!.body.messages.filter((m) => m.role === "user").map((m) => m.content);
}

Deno.test("turn.steer is accepted at once and enters before the turn's next provider request", async () => {
  const mock = await MockOpenAI.start([
    toolCalls([{ name: "bash", arguments: { command: "true" } }]),
    text("done, and the docs too"),
  ]);
  await withServer(mock, held, async (p) => {
    const { sessionId } = await p.open();
    const { t, approval } = await heldTurn(p, sessionId);
    await p.send({
      type: "turn.steer",
      request_id: "s1",
      session_id: sessionId,
      turn_id: t.turn_id,
      prompt: "also update the docs",
    });
    const accepted = await p.next((e) => e.request_id === "s1");
    assertEquals(accepted, {
      type: "turn.steer.accepted",
      request_id: "s1",
      session_id: sessionId,
      turn_id: t.turn_id,
    });
    // Waiting for the tool call: nothing went to the provider since the first request.
    assertEquals(mock.requests.length, 1);
    await approve(p, sessionId, approval);
    const done = await p.terminal(t.turn_id);
    assertEquals(done.type, "turn.completed");
    const events = p.turnEvents(t.turn_id).map((e) => e.type);
    const steered = p.eventOf(t.turn_id, "user.steered");
    assertEquals([steered.content, steered.steer_request_id], ["also update the docs", "s1"]);
    assert(events.indexOf("user.steered") > events.indexOf("tool.completed"), events.join());
    assertEquals(userTexts(mock, 1), ["run true", "also update the docs"]);
    assertEquals(mock.requests[1]!.body.messages.at(-1)!.role, "user");
    assertEquals(p.schemaErrors, []);
  });
});

Deno.test("turn.steer for another turn or with no turn running is invalid_request", async () => {
  const mock = await MockOpenAI.start([text("hi")]);
  await withServer(mock, {}, async (p) => {
    const { sessionId } = await p.open();
    await p.send({
      type: "turn.steer",
      request_id: "s1",
      session_id: sessionId,
      turn_id: "no-such-turn",
      prompt: "x",
    });
    const err = await p.nextOf("error");
    assertEquals([err.code, err.request_id], ["invalid_request", "s1"]);
    await p.send({
      type: "turn.steer",
      request_id: "s2",
      session_id: sessionId,
      turn_id: "x",
      prompt: " ",
    });
    assertEquals((await p.next((e) => e.request_id === "s2")).message, "prompt is empty");
  });
});

Deno.test("steers waiting when the turn is cancelled come back in turn.cancelled", async () => {
  const mock = await MockOpenAI.start([
    toolCalls([{ name: "bash", arguments: { command: "true" } }]),
  ]);
  await withServer(mock, held, async (p) => {
    const { sessionId } = await p.open();
    const { t } = await heldTurn(p, sessionId);
    for (const [id, prompt] of [["s1", "one"], ["s2", "two"]]) {
      await p.send({
        type: "turn.steer",
        request_id: id,
        session_id: sessionId,
        turn_id: t.turn_id,
        prompt,
      });
      await p.next((e) => e.type === "turn.steer.accepted" && e.request_id === id);
    }
    const { done } = await p.cancelTurn(sessionId, t.turn_id);
    assertEquals(done.type, "turn.cancelled");
    assertEquals(done.dropped_steers, ["one", "two"]);
    assertEquals(mock.requests.length, 1);
  });
});

Deno.test("queued turns start in order when the active one ends, each with its own request_id", async () => {
  const mock = await MockOpenAI.start([
    toolCalls([{ name: "bash", arguments: { command: "true" } }]),
    text("first done"),
    text("second done"),
    text("third done"),
  ]);
  await withServer(mock, held, async (p) => {
    const { sessionId } = await p.open();
    const { t, approval } = await heldTurn(p, sessionId);
    await queue(p, sessionId, "q1", "second");
    assertEquals(await p.next((e) => e.request_id === "q1"), {
      type: "turn.queued",
      request_id: "q1",
      session_id: sessionId,
      position: 1,
    });
    await queue(p, sessionId, "q2", "third");
    assertEquals((await p.next((e) => e.request_id === "q2")).position, 2);
    // Without queue, a busy session still refuses.
    await p.send({ type: "turn.start", request_id: "no", session_id: sessionId, prompt: "x" });
    assertEquals((await p.next((e) => e.request_id === "no")).code, "turn_active");
    await approve(p, sessionId, approval);
    await p.terminal(t.turn_id);
    const second = await p.next((e) => e.type === "turn.started" && e.request_id === "q1");
    assertEquals((await p.terminal(second.turn_id)).type, "turn.completed");
    const third = await p.next((e) => e.type === "turn.started" && e.request_id === "q2");
    assertEquals((await p.terminal(third.turn_id)).type, "turn.completed");
    assertEquals(userTexts(mock, 3), ["run true", "second", "third"]);
    assertEquals(p.schemaErrors, []);
  });
});

Deno.test("turn.dequeue takes a queued prompt back and an unknown one is invalid_request", async () => {
  const mock = await MockOpenAI.start([
    toolCalls([{ name: "bash", arguments: { command: "true" } }]),
    text("first done"),
    text("kept done"),
  ]);
  await withServer(mock, held, async (p) => {
    const { sessionId } = await p.open();
    const { t, approval } = await heldTurn(p, sessionId);
    await queue(p, sessionId, "q1", "taken back");
    await p.next((e) => e.request_id === "q1");
    await queue(p, sessionId, "q2", "kept");
    await p.next((e) => e.request_id === "q2");
    await p.send({
      type: "turn.dequeue",
      request_id: "d1",
      session_id: sessionId,
      queued_request_id: "q1",
    });
    assertEquals(await p.next((e) => e.request_id === "d1"), {
      type: "turn.dequeued",
      request_id: "d1",
      session_id: sessionId,
      queued_request_id: "q1",
      prompt: "taken back",
    });
    await p.send({
      type: "turn.dequeue",
      request_id: "d2",
      session_id: sessionId,
      queued_request_id: "q1",
    });
    assertEquals((await p.next((e) => e.request_id === "d2")).code, "invalid_request");
    await approve(p, sessionId, approval);
    await p.terminal(t.turn_id);
    const kept = await p.next((e) => e.type === "turn.started" && e.request_id === "q2");
    await p.terminal(kept.turn_id);
    assert(!p.events.some((e) => e.type === "turn.started" && e.request_id === "q1"));
  });
});

Deno.test("turn.cancel cancels only the active turn and the queued one starts after it", async () => {
  const mock = await MockOpenAI.start([
    toolCalls([{ name: "bash", arguments: { command: "true" } }]),
    text("queued done"),
  ]);
  await withServer(mock, held, async (p) => {
    const { sessionId } = await p.open();
    const { t } = await heldTurn(p, sessionId);
    await queue(p, sessionId, "q1", "after the cancel");
    await p.next((e) => e.request_id === "q1");
    const { done } = await p.cancelTurn(sessionId, t.turn_id);
    assertEquals(done.type, "turn.cancelled");
    const next = await p.next((e) => e.type === "turn.started" && e.request_id === "q1");
    assertEquals((await p.terminal(next.turn_id)).type, "turn.completed");
  });
});

Deno.test("session.clear is turn_active while queued prompts wait", async () => {
  const mock = await MockOpenAI.start([
    toolCalls([{ name: "bash", arguments: { command: "true" } }]),
  ]);
  await withServer(mock, held, async (p) => {
    const { sessionId } = await p.open();
    await heldTurn(p, sessionId);
    await queue(p, sessionId, "q1", "later");
    await p.next((e) => e.request_id === "q1");
    await p.send({ type: "session.clear", request_id: "c", session_id: sessionId });
    assertEquals((await p.next((e) => e.request_id === "c")).code, "turn_active");
  });
});

Deno.test("the 17th queued prompt of a session is refused with invalid_request", async () => {
  const mock = await MockOpenAI.start([
    toolCalls([{ name: "bash", arguments: { command: "true" } }]),
  ]);
  await withServer(mock, held, async (p) => {
    const { sessionId } = await p.open();
    await heldTurn(p, sessionId);
    for (let i = 1; i <= 16; i++) {
      await queue(p, sessionId, `q${i}`, `prompt ${i}`);
      assertEquals((await p.next((e) => e.request_id === `q${i}`)).position, i);
    }
    await queue(p, sessionId, "q17", "one too many");
    const err = await p.next((e) => e.request_id === "q17");
    assertEquals(err.code, "invalid_request");
    assert(err.message.includes("16 prompts already wait"), err.message);
  });
});

Deno.test("the 9th steer waiting in a turn is refused with invalid_request", async () => {
  const mock = await MockOpenAI.start([
    toolCalls([{ name: "bash", arguments: { command: "true" } }]),
  ]);
  await withServer(mock, held, async (p) => {
    const { sessionId } = await p.open();
    const { t } = await heldTurn(p, sessionId);
    for (let i = 1; i <= 9; i++) {
      await p.send({
        type: "turn.steer",
        request_id: `s${i}`,
        session_id: sessionId,
        turn_id: t.turn_id,
        prompt: `p${i}`,
      });
    }
    const answers = [];
    for (let i = 1; i <= 9; i++) answers.push((await p.next((e) => e.request_id === `s${i}`)).type);
    assertEquals(answers, [...Array(8).fill("turn.steer.accepted"), "error"]);
  });
});
