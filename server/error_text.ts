/**
 * The one way scv turns a caught value into words for a message or a log line.
 *
 * @module
 */

/**
 * The message of an `Error`, or the value itself as text.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { errorText } from "./error_text.ts";
 * assert.equal(errorText(new Error("boom")), "boom");
 * assert.equal(errorText(42), "42");
 * ```
 */
export function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
