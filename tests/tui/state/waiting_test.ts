/**
 * The TUI's steers and queued prompts (tui/state/waiting.ts, scv 0.3): Enter while a turn runs
 * steers it, Tab queues (the `steer_key` setting swaps them), what waits shows above the
 * composer until it enters or starts, Alt+Up takes the last queued prompt back, steers that
 * never entered come back after a cancel, and a resume offers what was waiting.
 */
import { assert, assertEquals } from "../../support/assert.ts";
import type { ServerEvent } from "../../../protocol/schema.ts";
import { applyEvent } from "../../../tui/state/events.ts";
import { applyKey } from "../../../tui/state/keymap.ts";
import { type ClientState, createState } from "../../../tui/state/model.ts";
import { createRenderCache, renderLive, type View } from "../../../tui/render.ts";
import { makeStyle } from "../../../tui/text.ts";
import {
  applyAll,
  key,
  notices,
  readyState,
  sent,
  sessionStarted,
  TurnScript,
  typeText,
} from "../fixtures.ts";

/** A ready state with a running turn whose id is known; returns it and the turn's script. */
function running(s = readyState()): { s: ClientState; t: TurnScript } {
  typeText(s, "first");
  const [start] = sent(applyKey(s, key("enter")));
  assert(start?.type === "turn.start");
  const t = new TurnScript(start.request_id!);
  applyAll(s, [t.started()]);
  return { s, t };
}

/** Types `text` and presses `name`; returns what was sent. */
function press(s: ClientState, text: string, name: "enter" | "tab") {
  typeText(s, text);
  return sent(applyKey(s, key(name)));
}

Deno.test("enter while a turn runs sends turn.steer naming the running turn", () => {
  const { s } = running();
  const [m] = press(s, "also the docs", "enter");
  assert(m?.type === "turn.steer");
  assertEquals([m.session_id, m.turn_id, m.prompt], ["s1", "t1", "also the docs"]);
  assertEquals(s.queued.map((q) => [q.kind, q.text, q.accepted]), [[
    "steer",
    "also the docs",
    false,
  ]]);
  assertEquals(s.composer.text, "");
});

Deno.test("tab while a turn runs queues the prompt with turn.start queue", () => {
  const { s } = running();
  const [m] = press(s, "then the release", "tab");
  assert(m?.type === "turn.start");
  assertEquals([m.prompt, m.queue], ["then the release", true]);
  assertEquals(s.queued.map((q) => q.kind), ["queue"]);
});

Deno.test("the steer_key setting swaps what enter and tab send", () => {
  const s = createState({
    model: "gpt-test",
    cwd: "/work/project",
    historyLimits: { maxItems: 200, maxBytes: 1048576 },
    steerKey: "tab",
  });
  applyEvent(s, sessionStarted());
  running(s);
  assertEquals(press(s, "queued", "enter")[0]?.type, "turn.start");
  assertEquals(press(s, "steered", "tab")[0]?.type, "turn.steer");
});

Deno.test("waiting steers and queued prompts show above the composer until they enter or start", () => {
  const { s, t } = running();
  const [steer] = press(s, "mind the tests", "enter");
  press(s, "then the docs", "tab");
  const view: View = { width: 60, height: 24, style: makeStyle(false), home: "/work" };
  // Styles are off: the lines are plain text.
  const lines = () => renderLive(s, view, createRenderCache());
  assert(lines().some((l) => l.includes("↳ steer: mind the tests")), lines().join("\n"));
  assert(lines().some((l) => l.includes("↳ queue: then the docs")), lines().join("\n"));
  applyAll(s, [{
    type: "user.steered",
    request_id: t.requestId,
    session_id: "s1",
    turn_id: "t1",
    seq: t.seq++,
    content: "mind the tests",
    steer_request_id: steer!.request_id!,
  }]);
  assert(!lines().some((l) => l.includes("↳ steer:")), lines().join("\n"));
  assert(s.transcript.some((i) => i.kind === "user" && i.text === "mind the tests"));
});

Deno.test("alt+up takes the last queued prompt back into the composer through turn.dequeue", () => {
  const { s } = running();
  press(s, "one", "tab");
  const [second] = press(s, "two", "tab");
  const [m] = sent(applyKey(s, key("up", { alt: true })));
  assert(m?.type === "turn.dequeue" && second?.type === "turn.start");
  assertEquals(m.queued_request_id, second.request_id);
  const dequeued: ServerEvent = {
    type: "turn.dequeued",
    request_id: m.request_id!,
    session_id: "s1",
    queued_request_id: second.request_id!,
    prompt: "two",
  };
  applyAll(s, [dequeued]);
  assertEquals(s.composer.text, "two");
  assertEquals(s.queued.map((q) => q.text), ["one"]);
});

Deno.test("a cancel gives the steers that never entered back to the composer, before the draft", () => {
  const { s, t } = running();
  press(s, "first steer", "enter");
  press(s, "second steer", "enter");
  typeText(s, "draft");
  applyAll(s, [{
    type: "turn.cancelled",
    request_id: t.requestId,
    session_id: "s1",
    turn_id: "t1",
    seq: t.seq++,
    dropped_steers: ["first steer", "second steer"],
  }]);
  assertEquals(s.composer.text, "first steer\nsecond steer\ndraft");
  assertEquals(s.queued, []);
});

Deno.test("after a cancel the client follows the queued prompt the server starts next", () => {
  const { s, t } = running();
  const [q] = press(s, "queued one", "tab");
  applyAll(s, [{
    type: "turn.cancelled",
    request_id: t.requestId,
    session_id: "s1",
    turn_id: "t1",
    seq: t.seq++,
  }]);
  assertEquals(s.turn?.requestId, q!.request_id);
  const next = new TurnScript(q!.request_id!, t.seq, "t2");
  applyAll(s, [next.started(), next.delta("on it")]);
  assertEquals(s.turn?.turnId, "t2");
});

Deno.test("a steer refused because the turn was ending is queued instead", () => {
  const { s } = running();
  const [steer] = press(s, "late", "enter");
  const fx = applyAll(s, [{
    type: "error",
    request_id: steer!.request_id,
    code: "invalid_request",
    message: "turn is already ending",
    fatal: false,
  }]);
  const [m] = sent(fx);
  assert(m?.type === "turn.start" && m.queue === true && m.prompt === "late");
  assertEquals(s.queued.map((q) => [q.kind, q.text]), [["queue", "late"]]);
});

Deno.test("a resumed session offers what was waiting in the composer and sends nothing", () => {
  const s = createState({
    model: "gpt-test",
    cwd: "/work/project",
    historyLimits: { maxItems: 200, maxBytes: 1048576 },
  });
  const fx = applyEvent(s, {
    ...sessionStarted(),
    resumed: true,
    last_seq: 5,
    queued: [
      { request_id: "x1", prompt: "mind the tests", kind: "steer" },
      { request_id: "x2", prompt: "then the docs", kind: "queue" },
    ],
  } as ServerEvent);
  // It asks for the earlier transcript, as any resume does, and starts nothing.
  assertEquals(sent(fx).map((m) => m.type), ["session.history"]);
  assertEquals(s.composer.text, "mind the tests\nthen the docs");
  // The notice follows the earlier transcript's "Resumed session" line.
  const [history] = sent(fx);
  applyEvent(s, {
    type: "history.end",
    request_id: history!.request_id!,
    session_id: "s1",
    items: 0,
    omitted: 0,
  });
  const said = notices(s);
  assert(said.at(-2)!.startsWith("Resumed session"), said.join("\n"));
  assert(said.at(-1)!.includes("2 prompts were waiting when scv stopped"), said.join("\n"));
});

Deno.test("when the running turn.start is refused, the client follows the prompt queued behind it", () => {
  const s = readyState();
  typeText(s, "first");
  const [start] = sent(applyKey(s, key("enter")));
  // Queued before the refusal came back: the server starts it on the idle session.
  const [q] = press(s, "second", "tab");
  assert(q?.type === "turn.start" && q.queue === true);
  applyAll(s, [{
    type: "error",
    request_id: start!.request_id!,
    code: "invalid_request",
    message: "no",
    fatal: false,
  }]);
  assertEquals(s.turn?.requestId, q.request_id);
  assertEquals(s.composer.text, "first");
  const t = new TurnScript(q.request_id!);
  applyAll(s, [t.started(), t.delta("on it")]);
  assertEquals(s.turn?.turnId, "t1");
});
