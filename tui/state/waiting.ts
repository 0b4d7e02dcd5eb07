/**
 * What the user sent while a turn ran (scv 0.3, docs/steering.md): steers of the running turn
 * and prompts queued on the server behind it. They show above the composer until they enter
 * (`user.steered`) or start (their `turn.started`); Alt+Up takes the last queued one back
 * (`turn.dequeue`); steers that never entered come back into the composer when the turn is
 * cancelled or fails; and a session resumed after a crash offers what was waiting.
 *
 * @module
 */
import * as ed from "../composer.ts";
import type { ServerEventOf } from "../../protocol/mod.ts";
import { type ClientState, type Effect, requestId, type WaitingPrompt } from "./model.ts";
import { sendAttached } from "./mentions.ts";
import { finishItem, notice } from "./transcript.ts";

/** What Enter sends while a turn runs, unless the `steer_key` setting swaps it with Tab. */
export type BusyKind = WaitingPrompt["kind"];

/** What a key sends while a turn runs: Enter steers (by default), Tab queues. */
export function busyKindOf(state: ClientState, key: "enter" | "tab"): BusyKind {
  return (key === state.steerKey) ? "steer" : "queue";
}

/**
 * Sends `typed` to the running turn as a steer, or queues it behind it. A steer before the
 * turn's id is known (no `turn.started` yet) is queued instead: it cannot name its turn.
 */
export function sendWhileBusy(state: ClientState, typed: string, kind: BusyKind): Effect[] {
  const session = state.session;
  const turn = state.turn;
  if (!session || !turn) return [];
  const id = requestId(state);
  if (kind === "steer" && turn.turnId !== undefined && turn.phase !== "cancelling") {
    state.queued.push({ requestId: id, text: typed, kind: "steer", accepted: false });
    return [sendAttached(state, {
      type: "turn.steer",
      request_id: id,
      session_id: session.id,
      turn_id: turn.turnId,
      prompt: typed,
    }, typed)];
  }
  return queuePrompt(state, typed, id);
}

function queuePrompt(state: ClientState, typed: string, id: string): Effect[] {
  state.queued.push({ requestId: id, text: typed, kind: "queue", accepted: false });
  return [sendAttached(state, {
    type: "turn.start",
    request_id: id,
    session_id: state.session!.id,
    prompt: typed,
    queue: true,
  }, typed)];
}

/** `turn.steer.accepted` / `turn.queued`: the server holds it now. */
export function markAccepted(state: ClientState, id: string): void {
  const w = state.queued.find((q) => q.requestId === id);
  if (w) w.accepted = true;
}

/**
 * An `error` answering one of the waiting requests: a refused steer (the turn was already
 * ending) is queued instead, so the text still runs; a refused queued prompt goes back into
 * the composer. Undefined when the error answers none of them.
 */
export function waitingRefused(
  state: ClientState,
  answers: (id: string) => boolean,
): Effect[] | undefined {
  const i = state.queued.findIndex((q) => !q.accepted && answers(q.requestId));
  if (i === -1) return undefined;
  const [w] = state.queued.splice(i, 1);
  if (w!.kind === "steer" && state.session) {
    // On an idle session a queued turn.start simply starts (and the client follows it when
    // the running turn's end arrives).
    notice(state, "info", "The turn was ending, so the text is queued as the next prompt");
    return queuePrompt(state, w!.text, requestId(state));
  }
  giveBack(state, [w!.text]);
  notice(state, "info", "The prompt was not queued; it is back in the composer");
  return [];
}

/** `user.steered`: the steer entered the conversation; it shows as the user's message. */
export function applySteered(state: ClientState, event: ServerEventOf<"user.steered">): void {
  const i = state.queued.findIndex((q) => q.requestId === event.steer_request_id);
  if (i !== -1) state.queued.splice(i, 1);
  finishItem(state, { kind: "user", text: event.content });
}

/** `turn.dequeued`: the prompt was taken back; it goes into the composer for editing. */
export function applyDequeued(state: ClientState, event: ServerEventOf<"turn.dequeued">): void {
  const i = state.queued.findIndex((q) => q.requestId === event.queued_request_id);
  const text = i === -1 ? event.prompt : state.queued.splice(i, 1)[0]!.text;
  giveBack(state, [text]);
}

/**
 * Alt+Up: takes the last queued prompt back for editing (`turn.dequeue`; the composer gets it
 * when the server confirms). A steer cannot be taken back once sent: it enters at the turn's
 * next safe point.
 */
export function takeBackLast(state: ClientState): Effect[] {
  const last = state.queued.findLast((q) => q.kind === "queue");
  if (!last || !state.session) {
    if (state.queued.length > 0) {
      notice(state, "info", "A steer cannot be taken back: it enters at the turn's next step");
    }
    return [];
  }
  return [{
    kind: "send",
    message: {
      type: "turn.dequeue",
      request_id: requestId(state),
      session_id: state.session.id,
      queued_request_id: last.requestId,
    },
  }];
}

/**
 * The running turn was cancelled or failed: its steers that never entered come back into the
 * composer (those the server names in `dropped_steers` and any it did not hear of yet), before
 * the draft. Queued prompts stay: the server starts the next one.
 */
export function returnSteers(state: ClientState, dropped: readonly string[] = []): void {
  const mine = state.queued.filter((q) => q.kind === "steer");
  state.queued = state.queued.filter((q) => q.kind !== "steer");
  const texts = mine.map((q) => q.text);
  // A steer sent by another client of this session, or whose reply crossed the cancel.
  for (const d of dropped) if (!texts.includes(d)) texts.push(d);
  if (texts.length > 0) giveBack(state, texts);
}

/**
 * After a turn ended: the server starts the first queued prompt now, so the client follows
 * it as its running turn (its `turn.started` carries the queued request's id).
 */
export function followQueued(state: ClientState): void {
  if (state.turn) return;
  const i = state.queued.findIndex((q) => q.kind === "queue");
  if (i === -1) return;
  const [next] = state.queued.splice(i, 1);
  state.turn = {
    requestId: next!.requestId,
    prompt: next!.text,
    phase: "starting",
    cancelRequested: false,
    compacted: false,
  };
  finishItem(state, { kind: "user", text: next!.text });
}

/**
 * A session resumed after a crash listed what was waiting (`session.started.queued`): none of
 * it was started. It goes into the composer, oldest first, for the user to send (Enter) or
 * drop (Ctrl+C), and a notice says so.
 */
export function offerRecovered(
  state: ClientState,
  queued: ServerEventOf<"session.started">["queued"],
): void {
  if (!queued || queued.length === 0) return;
  giveBack(state, queued.map((q) => q.prompt));
  const n = queued.length;
  state.recoveredNotice = `${n} prompt${n === 1 ? " was" : "s were"} waiting when scv stopped; ${
    n === 1 ? "it is" : "they are"
  } in the composer: Enter sends, Ctrl+C drops`;
}

/** Shows the notice {@link offerRecovered} held, once the earlier transcript is on screen. */
export function showRecoveredNotice(state: ClientState): void {
  if (state.recoveredNotice === undefined) return;
  notice(state, "info", state.recoveredNotice);
  state.recoveredNotice = undefined;
}

/** Puts texts back into the composer, before what is being typed there. */
function giveBack(state: ClientState, texts: readonly string[]): void {
  const text = [...texts, state.composer.text].filter((t) => t !== "").join("\n");
  state.composer = ed.fromText(text);
}
