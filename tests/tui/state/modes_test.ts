/** The approval policy from the TUI's state: `/plan`, Shift+Tab, the go-on offer. */
import { assert, assertEquals } from "../../support/assert.ts";
import { applyEvent, applyKey, type ClientState, type Effect } from "../../../tui/state/mod.ts";
import { GO_ON_PROMPT, PLAN_OFFER } from "../../../tui/state/modes.ts";
import { createRenderCache, renderLive, statusLine } from "../../../tui/render.ts";
import { makeStyle } from "../../../tui/text.ts";
import { readyState, TurnScript } from "../fixtures.ts";

const view = { width: 120, height: 20, style: makeStyle(false) };
const key = (name: string, shift = false) => ({
  type: "key" as const,
  name,
  ctrl: false,
  alt: false,
  shift,
});

/** The messages the effects send. */
function sent(effects: Effect[]): Record<string, unknown>[] {
  return effects.flatMap((e) => e.kind === "send" ? [e.message as Record<string, unknown>] : []);
}

/** The server's answer to a session.configure. */
function configured(s: ClientState, requestId: string, policy: string) {
  return applyEvent(s, {
    type: "session.configured",
    request_id: requestId,
    session_id: "s1",
    seq: s.lastSeq + 1,
    model: "gpt-test",
    approval_policy: policy as "plan",
  });
}

/** Types and sends `text`; returns the effects of Enter. */
function enter(s: ClientState, text: string): Effect[] {
  if (text) applyKey(s, { type: "text", text });
  return applyKey(s, key("enter"));
}

Deno.test("/plan asks for plan mode, and the status line says it once the server does", () => {
  const s = readyState();
  const [msg] = sent(enter(s, "/plan"));
  assertEquals(msg?.type, "session.configure");
  assertEquals(msg?.approval_policy, "plan");
  configured(s, msg!.request_id as string, "plan");
  assert(statusLine(s, view).startsWith("plan mode · gpt-test"), statusLine(s, view));
  assert(
    s.transcript.some((i) => i.kind === "notice" && i.text.startsWith("Approval policy: plan")),
  );
  // /plan again goes back to the policy before it.
  const [back] = sent(enter(s, "/plan"));
  assertEquals(back?.approval_policy, "on-risk");
});

Deno.test("Shift+Tab asks for the next policy of the cycle", () => {
  const s = readyState();
  const [msg] = sent(applyKey(s, key("tab", true)));
  assertEquals(msg?.approval_policy, "auto");
});

Deno.test("a plan-mode turn's end offers auto and go on, which Enter on an empty prompt takes", () => {
  const s = readyState();
  s.approvalPolicy = "plan";
  enter(s, "look");
  const t = new TurnScript(s.turn!.requestId, s.lastSeq + 1);
  for (const e of [t.started(), t.completedText("My plan.")]) applyEvent(s, e);
  applyEvent(s, {
    type: "turn.completed",
    request_id: t.requestId,
    session_id: "s1",
    turn_id: t.turnId,
    seq: t.seq++,
    steps: 1,
  });
  assert(renderLive(s, view, createRenderCache()).includes(PLAN_OFFER));
  const [msg] = sent(enter(s, ""));
  assertEquals(msg?.approval_policy, "auto");
  assert(!renderLive(s, view, createRenderCache()).includes(PLAN_OFFER));
  const [start] = sent(configured(s, msg!.request_id as string, "auto"));
  assertEquals(start?.type, "turn.start");
  assertEquals(start?.prompt, GO_ON_PROMPT);
});

Deno.test("no offer after a turn outside plan mode; a typed prompt in plan mode stays in plan mode", () => {
  const s = readyState();
  enter(s, "look");
  const t = new TurnScript(s.turn!.requestId, s.lastSeq + 1);
  applyEvent(s, t.started());
  applyEvent(s, {
    type: "turn.completed",
    request_id: t.requestId,
    session_id: "s1",
    turn_id: t.turnId,
    seq: t.seq++,
    steps: 1,
  });
  assertEquals(s.planOffer, false);
  s.approvalPolicy = "plan";
  s.planOffer = true;
  const [msg] = sent(enter(s, "look closer"));
  assertEquals(msg?.type, "turn.start");
  assertEquals(s.planOffer, false);
});
