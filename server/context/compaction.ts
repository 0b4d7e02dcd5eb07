/**
 * Compaction planning: when the next prompt would not fit the context window, which oldest
 * messages to replace by one compaction record. Pure: no I/O, no mutation of the input, the same
 * input always gives the same plan.
 *
 * @module
 */
import type { ChatMessage } from "../provider/types.ts";
import { cutPoints } from "./groups.ts";
import { dropOldImages } from "./image_tokens.ts";
import { CompactionSummary } from "./record.ts";

/** Input of {@link planCompaction}. All token counts are in the counter's (calibrated) units. */
export interface CompactionOptions {
  /** Index of the current turn's user prompt; nothing from here on is ever removed. */
  turnStart: number;
  /** Tokens of one message, e.g. `TokenCounter.countMessage` (cached per message). */
  countMessage: (message: ChatMessage) => number;
  /** Tokens outside the history: system prompt, tools, reply priming and any reserve. */
  fixedTokens: number;
  /** The prompt fits when `fixedTokens + Σ countMessage(history)` is at most this. */
  maxTokens: number;
  /**
   * Once compaction starts it removes messages until the prompt is at most this, so the next
   * steps do not compact again at once. Omitted: 75% of `maxTokens`, rounded down. Must not
   * exceed `maxTokens`.
   */
  targetTokens?: number;
}

/** The prompt fits; the history is unchanged. */
export interface CompactionFits {
  kind: "fits";
  /** The prompt's tokens, `fixedTokens` included. */
  tokens: number;
}

/** Oldest messages were replaced by one record (or, as a last resort, dropped without one). */
export interface CompactionDone {
  kind: "compacted";
  /** The new history: the record, then the kept messages (the same objects). */
  history: ChatMessage[];
  /** Index of the current turn's user prompt in `history`. */
  newTurnStart: number;
  /** The prompt's tokens before, `fixedTokens` included. */
  beforeTokens: number;
  /** The prompt's tokens after, record and `fixedTokens` included; at most `maxTokens`. */
  afterTokens: number;
  /** How many messages of the input history were removed (an earlier record counts as one). */
  removedMessages: number;
}

/** Even with every earlier message removed the prompt exceeds `maxTokens`. */
export interface CompactionContextLimit {
  kind: "context_limit";
  /** For `turn.failed` `context_limit`. */
  message: string;
  /** The prompt's tokens before. */
  beforeTokens: number;
  /** The smallest prompt reachable: `fixedTokens` and the current turn. */
  minTokens: number;
}

/** The result of {@link planCompaction}. */
export type CompactionPlan = CompactionFits | CompactionDone | CompactionContextLimit;

/** The default `targetTokens` as a fraction of `maxTokens`. */
export const DEFAULT_TARGET_FRACTION = 0.75;

function assertTokens(name: string, value: number): void {
  if (!Number.isFinite(value) || value < 0) {
    throw new RangeError(
      `Cannot plan compaction: "${name}" must be a non-negative number, got ${value}`,
    );
  }
}

/**
 * Plans the compaction of `history` so that the next prompt fits.
 *
 * - If `fixedTokens + Σ countMessage(history) <= maxTokens`: `{ kind: "fits" }`.
 * - Otherwise the images of the oldest messages are left out first (each becomes
 *   `[image omitted]`), until the prompt is at most `targetTokens`; if that is not enough the
 *   shortest prefix of whole turns (see `cutPoints`: the kept history starts with
 *   a user message, a tool call is never separated from its results, nothing at or after
 *   `turnStart` is removed) is replaced by one compaction record, so that the prompt is at most
 *   `targetTokens`; if no prefix gets there, every removable message goes. An earlier record in
 *   the removed prefix is merged into the new one.
 * - If the prompt with every removable message gone still exceeds `maxTokens` but fits without
 *   the record, the record is left out: the contract fails a turn only when the current turn
 *   alone does not fit. If it does not fit even so: `{ kind: "context_limit" }`.
 *
 * Cost: one `countMessage` per message (cached by a `TokenCounter`), plus a bounded record
 * rendering per cut point tried.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { planCompaction } from "./compaction.ts";
 * import type { ChatMessage } from "../provider/types.ts";
 * const history: ChatMessage[] = [
 *   { role: "user", content: "first question" },
 *   { role: "assistant", content: "x".repeat(4000) },
 *   { role: "user", content: "second question" },
 * ];
 * const plan = planCompaction(history, {
 *   turnStart: 2,
 *   countMessage: (m) => Math.ceil((m.content ?? "").length / 4) + 4,
 *   fixedTokens: 100,
 *   maxTokens: 1000,
 * });
 * assert.equal(plan.kind, "compacted");
 * if (plan.kind === "compacted") {
 *   assert.equal(plan.removedMessages, 2);
 *   assert.equal(plan.newTurnStart, 1);
 *   assert.equal(plan.history[1], history[2]);
 *   assert.ok(plan.afterTokens <= 750);
 * }
 * ```
 */
export function planCompaction(
  history: readonly ChatMessage[],
  options: CompactionOptions,
): CompactionPlan {
  const { turnStart, countMessage, fixedTokens, maxTokens } = options;
  const targetTokens = options.targetTokens ?? Math.floor(maxTokens * DEFAULT_TARGET_FRACTION);
  assertTokens("fixedTokens", fixedTokens);
  assertTokens("maxTokens", maxTokens);
  assertTokens("targetTokens", targetTokens);
  if (targetTokens > maxTokens) {
    throw new RangeError(
      `Cannot plan compaction: "targetTokens" must not exceed "maxTokens" ${maxTokens}, got ${targetTokens}`,
    );
  }
  const cuts = cutPoints(history, turnStart); // validates turnStart

  // kept[k] = tokens of history.slice(k).
  const kept = new Float64Array(history.length + 1);
  for (let i = history.length - 1; i >= 0; i--) kept[i] = kept[i + 1]! + countMessage(history[i]!);
  const beforeTokens = fixedTokens + kept[0]!;
  if (beforeTokens <= maxTokens) return { kind: "fits", tokens: beforeTokens };

  // Old images go first, each leaving "[image omitted]"; messages only when that is not enough.
  const light = dropOldImages(history, turnStart, countMessage, beforeTokens, targetTokens);
  if (light.messages > 0) {
    if (light.size <= maxTokens) {
      return {
        kind: "compacted",
        history: light.history,
        newTurnStart: turnStart,
        beforeTokens,
        afterTokens: light.size,
        removedMessages: 0,
      };
    }
    const plan = planCompaction(light.history, options);
    return plan.kind === "fits" ? plan : { ...plan, beforeTokens };
  }

  const summary = new CompactionSummary();
  let summarized = 0;
  for (let c = 0; c < cuts.length; c++) {
    const k = cuts[c]!;
    const last = c === cuts.length - 1;
    const withoutRecord = fixedTokens + kept[k]!;
    if (withoutRecord > targetTokens && !last) continue;
    while (summarized < k) summary.add(history[summarized++]!);
    const record = summary.toMessage();
    const afterTokens = withoutRecord + countMessage(record);
    if (afterTokens <= targetTokens || (last && afterTokens <= maxTokens)) {
      return {
        kind: "compacted",
        history: [record, ...history.slice(k)],
        newTurnStart: turnStart - k + 1,
        beforeTokens,
        afterTokens,
        removedMessages: k,
      };
    }
    if (last && withoutRecord <= maxTokens) {
      return {
        kind: "compacted",
        history: history.slice(k),
        newTurnStart: turnStart - k,
        beforeTokens,
        afterTokens: withoutRecord,
        removedMessages: k,
      };
    }
  }

  const minTokens = fixedTokens + kept[cuts.at(-1) ?? 0]!;
  return {
    kind: "context_limit",
    message:
      `The current turn does not fit in the context window: it needs ${minTokens} tokens with the system prompt and tools, over the limit of ${maxTokens}`,
    beforeTokens,
    minTokens,
  };
}
