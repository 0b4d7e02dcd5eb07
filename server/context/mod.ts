/**
 * Context management, pure and synchronous once a {@link TokenCounter} exists: token accounting,
 * compaction planning (tokens of the next prompt) and history trimming (bytes of the session's
 * canonical history).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { planCompaction, TokenCounter } from "./mod.ts";
 * const counter = new TokenCounter("local-model");
 * const plan = planCompaction([{ role: "user", content: "hi" }], {
 *   turnStart: 0,
 *   countMessage: counter.countMessage,
 *   fixedTokens: 10,
 *   maxTokens: 100,
 * });
 * assert.equal(plan.kind, "fits");
 * ```
 *
 * @module
 */
export * from "./bytes.ts";
export * from "./compaction.ts";
export * from "./groups.ts";
export * from "./image_tokens.ts";
export * from "./record.ts";
export * from "./tokens.ts";
export * from "./trim.ts";
