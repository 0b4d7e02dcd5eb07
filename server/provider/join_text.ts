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

/**
 * Relays one read's events (`batch`): `each` turns an event into provider events (pushed onto
 * `out`) and says whether the response is complete; what they make is yielded with its text
 * joined up to `maxChars`. What came before an event that throws still goes out before the
 * error. Returns whether `each` said the response is complete (the rest of the read is left).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { relayRead } from "./join_text.ts";
 * const read = relayRead(["a", "b", "end", "c"], (ev, out) => {
 *   if (ev === "end") return true;
 *   out.push({ type: "text", text: ev });
 *   return false;
 * }, 100);
 * assert.deepEqual([...read], [{ type: "text", text: "ab" }]);
 * ```
 */
export function* relayRead<E>(
  batch: readonly E[],
  each: (ev: E, out: ProviderEvent[]) => boolean,
  maxChars: number,
): Generator<ProviderEvent, boolean> {
  const out: ProviderEvent[] = [];
  let complete = false;
  let failure: { error: unknown } | undefined;
  try {
    for (const ev of batch) {
      if ((complete = each(ev, out))) break;
    }
  } catch (error) {
    failure = { error };
  }
  yield* joinText(out, maxChars);
  if (failure) throw failure.error;
  return complete;
}
