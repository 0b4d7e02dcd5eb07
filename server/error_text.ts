/**
 * The one way scv turns a caught value into words for a message or a log line, and keeps URL
 * credentials out of such words.
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

/**
 * `text` cut to at most `max` UTF-16 units plus an ellipsis, never inside a surrogate pair.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { clip } from "./error_text.ts";
 * assert.equal(clip("abcdef", 3), "abc…");
 * assert.equal(clip("ab\u{1F600}", 3), "ab…");
 * assert.equal(clip("abc", 3), "abc");
 * ```
 */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return text.slice(0, end) + "…";
}

/** Client text quoted in an error message is cut to this many UTF-16 units. */
export const MAX_QUOTED_CHARS = 120;

/**
 * Client-supplied text quoted for an error message, cut so that a reply never grows with what
 * the client sent: a megabyte-long message type must not make its own error too big to send.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { quoteInput } from "./error_text.ts";
 * assert.equal(quoteInput("turn.begin"), '"turn.begin"');
 * assert.equal(quoteInput("x".repeat(1000)), `"${"x".repeat(120)}…" (1000 characters)`);
 * assert.equal(quoteInput('a"b\nc'), String.raw`"a\"b\nc"`); // quoted as JSON: unambiguous
 * assert.match(quoteInput("\u{1F600}".repeat(100)), /\(100 characters\)$/); // code points
 * ```
 */
export function quoteInput(text: string): string {
  // JSON quoting, so quotes and newlines in the text cannot make the message ambiguous.
  if (text.length <= MAX_QUOTED_CHARS) return JSON.stringify(text);
  return `${JSON.stringify(clip(text, MAX_QUOTED_CHARS))} (${codePoints(text)} characters)`;
}

/** The number of code points in `text`, counted without allocating. */
function codePoints(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xdc00 && c <= 0xdfff && i > 0) {
      const h = text.charCodeAt(i - 1);
      if (h >= 0xd800 && h <= 0xdbff) continue; // the second half of a pair
    }
    n++;
  }
  return n;
}

/**
 * `user:password@` (or `user@`) after a URL scheme, replaced by `[redacted]@`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { stripUrlCredentials } from "./error_text.ts";
 * assert.equal(
 *   stripUrlCredentials("at https://bob:hunter2@llm.example/v1: refused"),
 *   "at https://[redacted]@llm.example/v1: refused",
 * );
 * ```
 */
export function stripUrlCredentials(text: string): string {
  return text.replace(/\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@]+@/gi, "$1[redacted]@");
}
