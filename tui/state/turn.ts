/**
 * The running turn's lifecycle on the client: starting one, cancelling it, and ending it with
 * whatever it left unfinished written to the transcript.
 *
 * @module
 */
import * as ed from "../composer.ts";
import { endPlan } from "./plan.ts";
import {
  type ClientState,
  type Effect,
  REPLY_TIMEOUT_MS,
  requestId,
  type TurnState,
} from "./model.ts";
import { endStreaming } from "./stream_blocks.ts";
import { endReasoning } from "./reasoning.ts";
import { finishItem, notice } from "./transcript.ts";
import { expandCustomCommand } from "./custom_commands.ts";
import { formatBytes } from "./format.ts";
import { mentionedPaths, sendAttached } from "./mentions.ts";
import { chipLabels, takeImages } from "./images.ts";

const encoder = new TextEncoder();

/** A custom command's name and the rest of the line, when `typed` starts with one. */
function customCall(state: ClientState, typed: string) {
  const m = /^\/([A-Za-z0-9][A-Za-z0-9_-]*)(?:\s+([\s\S]*))?$/.exec(typed.trim());
  if (!m) return undefined;
  const name = m[1]!.toLowerCase();
  const command = state.customCommands.find((c) => c.name.toLowerCase() === name);
  return command && { command, args: (m[2] ?? "").trim() };
}

/**
 * Starts a turn for the text the user typed: the user item, and the `turn.start` to send. A
 * custom command is expanded and mentioned files are attached first; a prompt that then
 * exceeds the limit is not sent and goes back to the composer.
 */
export function startTurn(state: ClientState, typed: string): Effect[] {
  if (!state.session) {
    notice(state, "error", "Not connected to a session yet");
    return [];
  }
  const call = customCall(state, typed);
  const expanded = call ? expandCustomCommand(call.command, call.args) : typed;
  const expandedBytes = encoder.encode(expanded).length;
  if (expandedBytes > state.maxPromptBytes) {
    notice(
      state,
      "error",
      `/${call?.command.name} makes a prompt of ${formatBytes(expandedBytes)}, over the ` +
        `server's limit of ${formatBytes(state.maxPromptBytes)}; it was not sent`,
    );
    restoreQueued(state, typed);
    return [];
  }
  const id = requestId(state);
  state.turn = {
    requestId: id,
    prompt: typed,
    phase: "starting",
    cancelRequested: false,
    compacted: false,
  };
  const { images, used } = takeImages(state, mentionedPaths(expanded));
  finishItem(
    state,
    images.length > 0
      ? { kind: "user", text: expanded, images: chipLabels(images) }
      : { kind: "user", text: expanded },
  );
  const attachments = images.map((i) => i.attachment);
  return [sendAttached(
    state,
    {
      type: "turn.start",
      request_id: id,
      session_id: state.session.id,
      prompt: expanded,
      ...(attachments.length > 0 ? { attachments } : {}),
    },
    expanded,
    used,
  )];
}

/** Marks the turn as cancelling and returns the `turn.cancel` to send (its id is known). */
export function cancelEffect(state: ClientState, turn: TurnState): Effect {
  turn.phase = "cancelling";
  state.hint = "Cancelling…";
  return {
    kind: "send",
    message: {
      type: "turn.cancel",
      request_id: requestId(state),
      session_id: state.session!.id,
      turn_id: turn.turnId!,
    },
  };
}

/** Cancels the running turn, now or as soon as its id is known. */
export function cancelTurn(state: ClientState): Effect[] {
  const turn = state.turn;
  if (!turn || turn.phase === "cancelling") return [];
  const expect: Effect = { kind: "expect-reply", request: "turn.cancel", ms: REPLY_TIMEOUT_MS };
  if (turn.turnId === undefined) {
    turn.cancelRequested = true;
    turn.phase = "cancelling";
    state.hint = "Cancelling…";
    return [expect];
  }
  return [cancelEffect(state, turn), expect];
}

/**
 * Forgets the running turn, writing what it left unfinished to the transcript in the order it
 * streamed: its reasoning line, the rest of the streamed text (marked with `note`, e.g.
 * "cancelled", when given), and each call that did not complete, with `unfinished` as its
 * output. A notice saying how the turn ended comes after, so it is the last line of the turn.
 */
export function endTurn(
  state: ClientState,
  unfinished = "(the turn ended before this call completed)",
  note?: string,
): void {
  endReasoning(state);
  endStreaming(state, note);
  for (const t of state.tools) {
    finishItem(state, {
      kind: "tool",
      callId: t.callId,
      name: t.name,
      args: t.args,
      summary: t.summary,
      success: false,
      output: unfinished,
      truncated: false,
    });
  }
  state.tools = [];
  state.approval = undefined;
  state.turn = undefined;
  endPlan(state);
  if (state.hint?.startsWith("Cancelling")) state.hint = undefined;
}

/**
 * The prompt of a turn the server did not start goes back to the composer, before the draft.
 * (What waited behind a turn is the server's now: see `waiting.ts`.)
 */
export function restoreQueued(state: ClientState, refused?: string): void {
  if (refused === undefined) return;
  const text = [refused, state.composer.text].filter((t) => t !== "").join("\n");
  state.composer = ed.fromText(text);
}

/** The turn was never started: forget it and give its prompt back to the composer. */
export function refuseStart(state: ClientState, turn: TurnState): void {
  state.turn = undefined;
  if (state.hint?.startsWith("Cancelling")) state.hint = undefined;
  restoreQueued(state, turn.prompt);
  notice(state, "info", "The prompt was not sent; it is back in the composer");
}

/**
 * Ends the running turn where it stands, for the paths that leave it unfinished (the user
 * quits, the server goes away): its streamed text goes to the transcript marked
 * "(interrupted)", and its calls that did not complete with a note saying so, as a cancel would
 * write them; so nothing the screen showed is lost when the live region goes.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createState } from "./model.ts";
 * import { interruptTurn } from "./turn.ts";
 * const s = createState({ model: "m", cwd: "/w", historyLimits: { maxItems: 10, maxBytes: 100 } });
 * interruptTurn(s); // no turn: nothing to do
 * assert(s.outbox.length === 0);
 * ```
 */
export function interruptTurn(state: ClientState): void {
  if (!state.turn) return;
  state.version++;
  endTurn(state, "(interrupted before this call completed)", "interrupted");
}

/** Marks the connection closed, interrupting the running turn; the shell reports it and exits. */
export function markClosed(state: ClientState): void {
  state.version++;
  state.connection = "closed";
  interruptTurn(state);
}
