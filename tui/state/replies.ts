/**
 * Requests the TUI waits on: the confirmation of a cancel or a clear that may not come, and a
 * message that could not be sent at all.
 *
 * @module
 */
import type { OutgoingMessage } from "../../protocol/mod.ts";
import { type AwaitedRequest, type ClientState, type Effect, REPLY_TIMEOUT_MS } from "./model.ts";
import { notice } from "./transcript.ts";
import { refuseStart } from "./turn.ts";

/**
 * Whether the TUI still waits for the server to confirm `request`: the running turn to end
 * after a cancel, `session.cleared` after `/clear`.
 */
export function awaitingReply(state: ClientState, request: AwaitedRequest): boolean {
  return request === "turn.cancel"
    ? state.turn?.phase === "cancelling"
    : state.clearing !== undefined;
}

/**
 * Called by the shell when {@link REPLY_TIMEOUT_MS} passed after an `expect-reply` effect.
 * If the server has still not confirmed, the user is told so: a cancel goes on waiting (the
 * server may be slow to stop), with a reminder that Ctrl+C twice or Ctrl+D exits; a clear stops
 * waiting, as the conversation may not have been cleared (a late `session.cleared` still
 * clears it). It returns effects like the other reducers (none so far), so the shell runs its
 * result the same way.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createState } from "./model.ts";
 * import { applyNoReply } from "./replies.ts";
 * const s = createState({ model: "m", cwd: "/w", historyLimits: { maxItems: 10, maxBytes: 100 } });
 * assert(applyNoReply(s, "turn.cancel").length === 0 && s.outbox.length === 0); // nothing awaited
 * ```
 */
export function applyNoReply(state: ClientState, request: AwaitedRequest): Effect[] {
  if (!awaitingReply(state, request)) return [];
  state.version++;
  const seconds = REPLY_TIMEOUT_MS / 1000;
  if (request === "turn.cancel") {
    notice(
      state,
      "warn",
      `The server has not confirmed the cancel after ${seconds} s; the turn may still be ` +
        "running. Ctrl+C twice, or Ctrl+D on an empty prompt, exits",
    );
    state.hint = "Cancelling… not confirmed; Ctrl+C twice or Ctrl+D exits";
  } else {
    state.clearing = undefined;
    notice(
      state,
      "warn",
      `The server has not confirmed /clear after ${seconds} s; the conversation may not be cleared`,
    );
  }
  return [];
}

/**
 * Records that a message could not be sent (the server's input is gone or broken). A
 * `turn.start` that never left ends its turn, its prompt back in the composer; a
 * `session.clear` stops waiting; a `turn.cancel` can be tried again.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createState } from "./model.ts";
 * import { applySendFailure } from "./replies.ts";
 * const s = createState({ model: "m", cwd: "/w", historyLimits: { maxItems: 10, maxBytes: 100 } });
 * applySendFailure(s, { type: "session.clear", request_id: "r", session_id: "s" }, "broken pipe");
 * assert(s.transcript.some((i) => i.kind === "notice" && i.text.includes("broken pipe")));
 * ```
 */
export function applySendFailure(
  state: ClientState,
  message: OutgoingMessage,
  error: string,
): void {
  state.version++;
  notice(state, "error", `Could not send ${message.type}: ${error}`);
  const turn = state.turn;
  switch (message.type) {
    case "turn.start":
      if (turn && !turn.turnId && turn.requestId === message.request_id) {
        refuseStart(state, turn);
      }
      break;
    case "session.clear":
      if (state.clearing === message.request_id) state.clearing = undefined;
      break;
    case "turn.cancel":
      if (turn && turn.phase === "cancelling" && turn.turnId === message.turn_id) {
        turn.phase = "thinking";
        if (state.hint?.startsWith("Cancelling")) state.hint = undefined;
      }
      break;
    default:
      break;
  }
}
