/**
 * `session.compact`'s plan: on an idle session, every turn but the last is replaced by one
 * compaction record (the same record automatic compaction writes), whatever the history's size.
 * Pure; the caller counts tokens and puts the history in place.
 *
 * @module
 */
import type { ChatMessage } from "../provider/types.ts";
import { CompactionSummary, cutPoints, isCompactionRecord } from "../context/mod.ts";

/** The user's instructions keep at most this many characters in the record. */
export const INSTRUCTIONS_CHARS = 500;
/** The line of the record that carries the user's instructions. */
export const INSTRUCTIONS_PREFIX = "Instructions given when compacting: ";

/** A compaction that removes something. */
export interface CompactNowPlan {
  history: ChatMessage[];
  removedMessages: number;
}

/**
 * The compacted history, or undefined when there is nothing to drop (no earlier turn, or only
 * an earlier compaction record).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { planCompactNow } from "./compact_now.ts";
 * const history = [
 *   { role: "user" as const, content: "one" },
 *   { role: "assistant" as const, content: "1" },
 *   { role: "user" as const, content: "two" },
 *   { role: "assistant" as const, content: "2" },
 * ];
 * const plan = planCompactNow(history, "keep numbers");
 * assert.equal(plan?.removedMessages, 2);
 * assert.equal(plan?.history.length, 3);
 * assert.equal(planCompactNow(history.slice(2)), undefined);
 * ```
 */
export function planCompactNow(
  history: readonly ChatMessage[],
  instructions?: string,
): CompactNowPlan | undefined {
  // The last turn stays: it starts at the last prompt that is not a record.
  let turnStart = history.length;
  for (let i = history.length - 1; i >= 0; i--) {
    const m = history[i]!;
    if (m.role === "user" && !isCompactionRecord(m)) {
      turnStart = i;
      break;
    }
  }
  const k = cutPoints(history, turnStart).at(-1);
  if (k === undefined) return undefined;
  if (k === 1 && isCompactionRecord(history[0]!)) return undefined;
  const summary = new CompactionSummary();
  for (let i = 0; i < k; i++) summary.add(history[i]!);
  const record = summary.toMessage();
  const note = instructions?.replace(/\s+/g, " ").trim();
  if (note) {
    const chars = Array.from(note);
    const cut = chars.length > INSTRUCTIONS_CHARS
      ? chars.slice(0, INSTRUCTIONS_CHARS - 1).join("") + "…"
      : note;
    record.content += `\n${INSTRUCTIONS_PREFIX}${JSON.stringify(cut)}`;
  }
  return { history: [record, ...history.slice(k)], removedMessages: k };
}
