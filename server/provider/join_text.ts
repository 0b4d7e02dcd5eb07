/**
 * Joining the text of one network read: the SSE events a single read of the provider's stream
 * completed are handled together, and their adjacent text (or reasoning) pieces become one
 * event. A fast stream that arrives faster than it is relayed then costs one client event per
 * read instead of one per token, while a slow stream, one event per read, is relayed exactly as
 * it came. Pure.
 *
 * @module
 */
import type { ProviderEvent } from "./types.ts";

/** The longest text a joined event carries, in UTF-16 code units, whatever the frame limit. */
export const MAX_JOINED_TEXT_CHARS = 16 * 1024;

/**
 * `events` with each run of adjacent `text` events (and of `reasoning` events) joined into one,
 * as long as the joined text stays within `maxChars` (a piece that is longer alone is kept as it
 * is). Order, and every other event, are kept. `maxChars` of 0 or less joins nothing.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { joinText } from "./join_text.ts";
 * const joined = joinText([
 *   { type: "text", text: "Hel" },
 *   { type: "text", text: "lo" },
 *   { type: "notice", message: "n" },
 *   { type: "text", text: "!" },
 * ], 100);
 * assert.deepEqual(joined, [
 *   { type: "text", text: "Hello" },
 *   { type: "notice", message: "n" },
 *   { type: "text", text: "!" },
 * ]);
 * ```
 */
export function joinText(events: readonly ProviderEvent[], maxChars: number): ProviderEvent[] {
  if (maxChars <= 0 || events.length < 2) return [...events];
  const out: ProviderEvent[] = [];
  for (const ev of events) {
    const last = out[out.length - 1];
    if (
      last !== undefined && (ev.type === "text" || ev.type === "reasoning") &&
      last.type === ev.type && last.text.length + ev.text.length <= maxChars
    ) {
      out[out.length - 1] = { type: ev.type, text: last.text + ev.text };
    } else out.push(ev);
  }
  return out;
}
