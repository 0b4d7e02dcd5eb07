/**
 * Trimming a session's canonical history to `max_history_bytes`: the encoded size of the
 * history, as opposed to compaction, which bounds the tokens of the next prompt. Pure.
 *
 * @module
 */
import type { ChatMessage } from "../provider/types.ts";
import { messageBytes } from "./bytes.ts";
import { cutPoints } from "./groups.ts";
import { dropOldImages } from "./image_tokens.ts";

/** Input of {@link trimHistory}. */
export interface TrimOptions {
  /** Index of the current turn's user prompt (or the history length between turns). */
  turnStart: number;
  /** The history fits when its encoded JSON is at most this many UTF-8 bytes (inclusive). */
  maxBytes: number;
}

/** The history is within `maxBytes`; unchanged. */
export interface TrimFits {
  kind: "fits";
  /** The history's encoded size. */
  historyBytes: number;
}

/** Old images were left out, then (when that was not enough) oldest whole turns dropped. */
export interface TrimDone {
  kind: "trimmed";
  /** The kept suffix of the input (the same message objects, but those whose images went). */
  history: ChatMessage[];
  /** Index of the current turn's user prompt in `history`. */
  newTurnStart: number;
  /** How many messages were dropped. */
  removedMessages: number;
  /** The kept history's encoded size (for `session.trimmed.history_bytes`). */
  historyBytes: number;
}

/** Even with every earlier message dropped the history exceeds `maxBytes`. */
export interface TrimHistoryLimit {
  kind: "history_limit";
  /** For `turn.failed` `history_limit`. */
  message: string;
  /** The history's encoded size. */
  historyBytes: number;
  /** The smallest size reachable: the current turn alone. */
  minBytes: number;
}

/** The result of {@link trimHistory}. */
export type TrimResult = TrimFits | TrimDone | TrimHistoryLimit;

/**
 * Bounds the encoded size of `history` (see `historyBytes`) to `maxBytes` by leaving out the
 * images of the oldest messages first (each becomes `[image omitted]`), then dropping the
 * fewest oldest whole turns, with the same cut rules as compaction (the kept history starts with
 * a user message, a tool call is never separated from its results, nothing at or after
 * `turnStart` is dropped). No record replaces them. Per-message sizes are cached, so repeated
 * calls on a growing history cost one cache look-up per message.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { historyBytes } from "./bytes.ts";
 * import { trimHistory } from "./trim.ts";
 * import type { ChatMessage } from "../provider/types.ts";
 * const history: ChatMessage[] = [
 *   { role: "user", content: "old" },
 *   { role: "assistant", content: "x".repeat(1000) },
 *   { role: "user", content: "new" },
 * ];
 * const result = trimHistory(history, { turnStart: 2, maxBytes: 100 });
 * assert.equal(result.kind, "trimmed");
 * if (result.kind === "trimmed") {
 *   assert.deepEqual(result.history, [history[2]]);
 *   assert.equal(result.newTurnStart, 0);
 *   assert.equal(result.historyBytes, historyBytes(result.history));
 * }
 * ```
 */
export function trimHistory(history: readonly ChatMessage[], options: TrimOptions): TrimResult {
  const { turnStart, maxBytes } = options;
  if (!Number.isFinite(maxBytes) || maxBytes < 0) {
    throw new RangeError(
      `Cannot trim history: "maxBytes" must be a non-negative number, got ${maxBytes}`,
    );
  }
  const cuts = cutPoints(history, turnStart); // validates turnStart

  // sizes[k] = encoded size of history.slice(k): brackets, commas, messages.
  const n = history.length;
  const sizes = new Float64Array(n + 1);
  sizes[n] = 2;
  for (let i = n - 1; i >= 0; i--) {
    sizes[i] = sizes[i + 1]! + messageBytes(history[i]!) + (i < n - 1 ? 1 : 0);
  }
  const total = sizes[0]!;
  if (total <= maxBytes) return { kind: "fits", historyBytes: total };

  // Old images go first, each leaving "[image omitted]"; turns only when that is not enough.
  const light = dropOldImages(history, turnStart, messageBytes, total, maxBytes);
  if (light.messages > 0) {
    if (light.size <= maxBytes) {
      return {
        kind: "trimmed",
        history: light.history,
        newTurnStart: turnStart,
        removedMessages: 0,
        historyBytes: light.size,
      };
    }
    return trimHistory(light.history, options);
  }

  for (const k of cuts) {
    if (sizes[k]! <= maxBytes) {
      return {
        kind: "trimmed",
        history: history.slice(k),
        newTurnStart: turnStart - k,
        removedMessages: k,
        historyBytes: sizes[k]!,
      };
    }
  }
  const minBytes = sizes[cuts.at(-1) ?? 0]!;
  return {
    kind: "history_limit",
    message:
      `The current turn does not fit in the session history: it takes ${minBytes} bytes, over max_history_bytes ${maxBytes}`,
    historyBytes: total,
    minBytes,
  };
}
