/**
 * Steering a running turn in process (scv 0.3, server/core/inbox.ts and core/run_turn.ts): a
 * steer enters at the turn's next safe point (after every proposed call ended, before the next
 * provider request), a turn about to complete makes one more request for it, and steers still
 * waiting when the turn is cancelled or fails come back in `dropped_steers`.
 */
import { assert, assertEquals } from "../../support/assert.ts";
import type { TurnEvent } from "../../../protocol/turn_events.ts";
import { Session } from "../../../server/core/session.ts";
import { checkImage } from "../../../server/images/attachments.ts";
import { makePng } from "../../support/images.ts";
import type { ProviderEvent, ProviderRequest } from "../../../server/provider/types.ts";
import {
  answer,
  call,
  callTools,
  eventsOf,
  only,
  runScripted,
  scriptedTool,
  untilAborted,
} from "./support.ts";

/** A sink remembering the turn's id from its first event, for a test to steer with. */
function turnIdOf() {
  const seen = { id: "" };
  return {
    seen,
    sink: (event: TurnEvent) => {
      if (event.type === "turn.started") seen.id = event.turn_id;
    },
  };
}

function steer(session: Session, turnId: string, requestId: string, prompt: string): void {
  const accepted = session.inbox.steer(turnId, requestId, prompt);
  assert(accepted.ok, accepted.ok ? "" : accepted.message);
}

Deno.test("a steer sent while a tool runs enters after the tool and before the next request", async () => {
  const session = new Session("/workspace");
  const { seen, sink } = turnIdOf();
  const tool = scriptedTool("echo", {
    run: () => {
      steer(session, seen.id, "s1", "also update the docs");
      return Promise.resolve({ success: true, output: "echoed", truncated: false });
    },
  });
  const { end, types, requests, events } = await runScripted({
    session,
    sink,
    tools: [tool],
    steps: [callTools([call("c1", "echo", { text: "x" })]), answer("done")],
  });
  assertEquals(end.type, "turn.completed");
  assertEquals(types, [
    "turn.started",
    "assistant.completed",
    "tool.proposed",
    "tool.started",
    "tool.completed",
    "user.steered",
    "assistant.delta",
    "assistant.completed",
    "turn.completed",
  ]);
  const steered = only(events, "user.steered");
  assertEquals([steered.content, steered.steer_request_id], ["also update the docs", "s1"]);
  // The second request carries the tool's result, then the steer, as the last user message.
  assertEquals(requests.length, 2);
  assertEquals(requests[1]!.slice(-2), [
    { role: "tool", tool_call_id: "c1", content: "echoed" },
    { role: "user", content: "also update the docs" },
  ]);
  // The first request did not see it: it came while the tool ran.
  assert(!requests[0]!.some((m) => m.role === "user" && m.content === "also update the docs"));
});

Deno.test("a steer waits for every proposed tool call to end before it enters", async () => {
  const session = new Session("/workspace");
  const { seen, sink } = turnIdOf();
  let calls = 0;
  const tool = scriptedTool("echo", {
    run: () => {
      if (calls++ === 0) steer(session, seen.id, "s1", "stop after this");
      return Promise.resolve({ success: true, output: `run ${calls}`, truncated: false });
    },
  });
  const { types, requests } = await runScripted({
    session,
    sink,
    tools: [tool],
    steps: [callTools([call("c1", "echo"), call("c2", "echo")]), answer("ok")],
  });
  // Both calls of the first answer ran before the steer entered.
  const completed = types.flatMap((t, i) => t === "tool.completed" ? [i] : []);
  assertEquals(completed.length, 2);
  assert(types.indexOf("user.steered") > completed[1]!, types.join(", "));
  assertEquals(requests[1]!.map((m) => m.role), [
    "system",
    "user",
    "assistant",
    "tool",
    "tool",
    "user",
  ]);
});

Deno.test("a steer sent while the model finishes its answer makes one more request", async () => {
  const session = new Session("/workspace");
  const { seen, sink } = turnIdOf();
  const finishing = async function* (request: ProviderRequest): AsyncIterable<ProviderEvent> {
    yield { type: "text", text: "All done." };
    request.signal.throwIfAborted();
    steer(session, seen.id, "s1", "wait, one more thing");
    yield { type: "done", message: { role: "assistant", content: "All done." } };
  };
  const { end, events, requests } = await runScripted({
    session,
    sink,
    steps: [finishing, answer("Sure, that too.")],
  });
  assertEquals(end.type, "turn.completed");
  assertEquals(end.type === "turn.completed" && end.steps, 2);
  assertEquals(only(events, "user.steered").content, "wait, one more thing");
  assertEquals(requests[1]!.slice(-2), [
    { role: "assistant", content: "All done." },
    { role: "user", content: "wait, one more thing" },
  ]);
  assertEquals(eventsOf(events, "assistant.completed").map((e) => e.content), [
    "All done.",
    "Sure, that too.",
  ]);
});

Deno.test("steers waiting when a turn is cancelled come back in dropped_steers, in order", async () => {
  const session = new Session("/workspace");
  const { seen, sink } = turnIdOf();
  const controller = new AbortController();
  const tool = scriptedTool("echo", {
    run: (_args, ctx) => {
      steer(session, seen.id, "s1", "first");
      steer(session, seen.id, "s2", "second");
      controller.abort(new DOMException("turn cancelled", "AbortError"));
      return untilAborted(ctx.signal);
    },
  });
  const { end, types } = await runScripted({
    session,
    sink,
    controller,
    tools: [tool],
    steps: [callTools([call("c1", "echo")])],
  });
  assertEquals(end, { type: "turn.cancelled", dropped_steers: ["first", "second"] });
  assert(!types.includes("user.steered"));
  assert(!session.history.some((m) => m.role === "user" && m.content === "first"));
  // The turn ended: no steer waits any more, and a new one is refused.
  assertEquals(session.inbox.waiting, []);
  assertEquals(session.inbox.steer(seen.id, "s3", "late").ok, false);
});

Deno.test("steers waiting when a turn fails come back in dropped_steers", async () => {
  const session = new Session("/workspace");
  const { seen, sink } = turnIdOf();
  const tool = scriptedTool("echo", {
    run: () => {
      steer(session, seen.id, "s1", "and then this");
      return Promise.resolve({ success: true, output: "ok", truncated: false });
    },
  });
  // One step allowed: the steer would need a second request, which the step limit refuses.
  const { end } = await runScripted({
    session,
    sink,
    config: { max_steps: 1 },
    tools: [tool],
    steps: [callTools([call("c1", "echo")])],
  });
  assertEquals(end.type, "turn.failed");
  assertEquals(end.type === "turn.failed" && end.code, "step_limit");
  assertEquals(end.type === "turn.failed" && end.dropped_steers, ["and then this"]);
});

Deno.test("a turn without steers ends as before, with no dropped_steers field", async () => {
  const controller = new AbortController();
  const { end } = await runScripted({
    controller,
    steps: [async function* (request) {
      setTimeout(() => controller.abort(), 0);
      yield await untilAborted(request.signal);
    }],
  });
  assertEquals(end, { type: "turn.cancelled" });
});

Deno.test("a completed turn refuses steers from the moment it decided to complete", async () => {
  const session = new Session("/workspace");
  const { seen, sink } = turnIdOf();
  const refused: boolean[] = [];
  const { end } = await runScripted({
    session,
    sink: (event) => {
      sink(event);
      // By the time its last answer went out, the turn no longer takes steers.
      if (event.type === "turn.completed") refused.push(!session.inbox.steer(seen.id, "s", "x").ok);
    },
    steps: [answer("hi")],
  });
  assertEquals(end.type, "turn.completed");
  assertEquals(refused, [true]);
});

Deno.test("steers sent during one tool call all enter at the next safe point, in order", async () => {
  const session = new Session("/workspace");
  const { seen, sink } = turnIdOf();
  const tool = scriptedTool("echo", {
    run: () => {
      steer(session, seen.id, "s1", "first");
      steer(session, seen.id, "s2", "second");
      return Promise.resolve({ success: true, output: "ok", truncated: false });
    },
  });
  const { events, requests } = await runScripted({
    session,
    sink,
    tools: [tool],
    steps: [callTools([call("c1", "echo")]), answer("both")],
  });
  assertEquals(eventsOf(events, "user.steered").map((e) => e.steer_request_id), ["s1", "s2"]);
  assertEquals(requests[1]!.slice(-2), [
    { role: "user", content: "first" },
    { role: "user", content: "second" },
  ]);
});

Deno.test("a steer's images enter with its text, and user.steered names them", async () => {
  const png = makePng({ width: 3, height: 2, seed: 7 });
  const part = checkImage(png, { name: "shot.png", claimed: "image/png", maxImageBytes: 4096 });
  assert(typeof part !== "string", String(part));
  const session = new Session("/workspace");
  const { seen, sink } = turnIdOf();
  const tool = scriptedTool("echo", {
    run: () => {
      const accepted = session.inbox.steer(seen.id, "s1", "look at this", [part]);
      assert(accepted.ok, accepted.ok ? "" : accepted.message);
      return Promise.resolve({ success: true, output: "echoed", truncated: false });
    },
  });
  const { end, events, requests } = await runScripted({
    session,
    sink,
    tools: [tool],
    steps: [callTools([call("c1", "echo")]), answer("a red square")],
  });
  assertEquals(end.type, "turn.completed");
  const steered = only(events, "user.steered");
  assertEquals([steered.content, steered.images], ["look at this", ["shot.png"]]);
  // The next request's last message is the steer, carrying the image byte for byte.
  const last = requests[1]!.at(-1)!;
  assert(last.role === "user" && last.images?.length === 1, JSON.stringify(last));
  assertEquals(last.content, "look at this");
  assertEquals(Uint8Array.fromBase64(last.images[0]!.data), png);
  // The first request did not carry it.
  assert(!requests[0]!.some((m) => m.role === "user" && m.images?.length));
});
