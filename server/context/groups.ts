/**
 * Where a history may be cut. Compaction and trimming both remove a prefix of the history; this
 * module says which prefixes are whole: the kept part must start with a user message (a turn's
 * prompt or a compaction record), and no tool result may be kept while the assistant message
 * that called it is removed.
 *
 * @module
 */
import type { ChatMessage } from "../provider/types.ts";

/**
 * Throws a `RangeError` unless `turnStart` is an integer index into `history`, or its length
 * (no current turn: everything may be removed).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { assertTurnStart } from "./groups.ts";
 * assertTurnStart([{ role: "user", content: "hi" }], 0);
 * assert.throws(() => assertTurnStart([], 1), RangeError);
 * ```
 */
export function assertTurnStart(history: readonly ChatMessage[], turnStart: number): void {
  if (!Number.isInteger(turnStart) || turnStart < 0 || turnStart > history.length) {
    throw new RangeError(
      `Cannot use turnStart ${turnStart}: it must be an integer from 0 to the history length ${history.length}`,
    );
  }
}

/**
 * The indices `k` (ascending, each `1 <= k <= turnStart`) at which `history` may be cut so that
 * `history.slice(k)` is kept and `history.slice(0, k)` removed:
 *
 * - `history[k]` is a user message, or `k === turnStart` (the current turn, or the end);
 * - no tool message at or after `k` answers a call made by an assistant message before `k`.
 *
 * A cut at a user message already keeps an assistant message with its results in well-formed
 * histories; the second rule also protects malformed ones. An empty array means nothing can be
 * removed.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { cutPoints } from "./groups.ts";
 * const history = [
 *   { role: "user" as const, content: "list files" },
 *   {
 *     role: "assistant" as const,
 *     content: null,
 *     tool_calls: [{ id: "c1", type: "function" as const, function: { name: "glob", arguments: "{}" } }],
 *   },
 *   { role: "tool" as const, tool_call_id: "c1", content: "a.ts" },
 *   { role: "assistant" as const, content: "One file." },
 *   { role: "user" as const, content: "thanks" },
 * ];
 * assert.deepEqual(cutPoints(history, 4), [4]);
 * ```
 */
export function cutPoints(history: readonly ChatMessage[], turnStart: number): number[] {
  assertTurnStart(history, turnStart);
  // blocked[k] > 0 when a cut at k would separate a call from its result; built as a difference
  // array over the intervals (assistant index, tool index].
  const blocked = new Int32Array(history.length + 2);
  const callIndex = new Map<string, number>();
  for (let i = 0; i < history.length; i++) {
    const m = history[i]!;
    if (m.role === "assistant" && m.tool_calls) {
      // Some servers reuse ids such as "call_0" across responses: the latest call wins, which
      // is the one a following result answers.
      for (const call of m.tool_calls) callIndex.set(call.id, i);
    } else if (m.role === "tool") {
      const a = callIndex.get(m.tool_call_id);
      if (a !== undefined) {
        blocked[a + 1]!++;
        blocked[i + 1]!--;
      }
    }
  }
  const cuts: number[] = [];
  let open = 0;
  for (let k = 0; k <= turnStart; k++) {
    open += blocked[k]!;
    if (k === 0 || open > 0) continue;
    if (k === turnStart || history[k]!.role === "user") cuts.push(k);
  }
  return cuts;
}
