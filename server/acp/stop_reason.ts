/**
 * How a turn's end becomes the answer to `session/prompt`: a stop reason, or a JSON-RPC error
 * for the failures ACP has no stop reason for. An abort is always `cancelled`, never an error.
 *
 * @module
 */
import type { StopReason } from "@agentclientprotocol/sdk";
import type { TurnFailureCode } from "../../protocol/constants.ts";

/** A turn's end as the ACP adapter needs it (the terminal turn event without its envelope). */
export type TurnOutcome =
  | { type: "turn.completed" }
  | { type: "turn.cancelled" }
  | { type: "turn.failed"; code: TurnFailureCode; message: string };

/** The JSON-RPC error code `session/prompt` fails with when the turn failed without a reason. */
export const TURN_FAILED_ERROR_CODE = -32603;

/** What `session/prompt` answers: a stop reason, or an error to reply with. */
export type PromptAnswer =
  | { stopReason: StopReason }
  | { error: { code: number; message: string; data: { reason: TurnFailureCode } } };

/** The failures that end a turn at a limit ACP can name; the rest are errors. */
const LIMIT_STOPS: Readonly<Partial<Record<TurnFailureCode, StopReason>>> = {
  step_limit: "max_turn_requests",
  context_limit: "max_tokens",
  response_limit: "max_tokens",
  history_limit: "max_tokens",
  tool_limit: "max_tokens",
};

/**
 * The `session/prompt` answer for a turn's end: `end_turn`, `cancelled`, `max_turn_requests`
 * for `step_limit`, `max_tokens` for the size limits, and an error carrying the message for
 * `provider_error` and `internal_error`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { promptAnswer } from "./stop_reason.ts";
 * assert.deepEqual(promptAnswer({ type: "turn.completed" }), { stopReason: "end_turn" });
 * const failed = promptAnswer({ type: "turn.failed", code: "provider_error", message: "HTTP 500" });
 * assert("error" in failed && failed.error.message === "HTTP 500");
 * ```
 */
export function promptAnswer(outcome: TurnOutcome): PromptAnswer {
  switch (outcome.type) {
    case "turn.completed":
      return { stopReason: "end_turn" };
    case "turn.cancelled":
      return { stopReason: "cancelled" };
    case "turn.failed": {
      const stop = LIMIT_STOPS[outcome.code];
      if (stop) return { stopReason: stop };
      return {
        error: {
          code: TURN_FAILED_ERROR_CODE,
          message: outcome.message,
          data: { reason: outcome.code },
        },
      };
    }
  }
}
