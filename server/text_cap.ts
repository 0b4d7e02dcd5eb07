/**
 * Caps a string to a UTF-8 byte budget, keeping its head and tail around a marker, so that the
 * end of a long output (where errors usually are) survives.
 *
 * @module
 */
import { utf8Length } from "./provider/limits.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Caps `text` to at most `maxBytes` UTF-8 bytes, head and tail kept.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { capText } from "./text_cap.ts";
 * const r = capText("a".repeat(1000), 100);
 * assert(r.truncated && new TextEncoder().encode(r.text).length <= 100);
 * ```
 */
export function capText(text: string, maxBytes: number): { text: string; truncated: boolean } {
  const size = utf8Length(text);
  if (size <= maxBytes) return { text, truncated: false };
  const bytes = encoder.encode(text);
  let marker = `\n[... ${size} bytes in all, middle omitted ...]\n`;
  if (marker.length >= maxBytes) marker = "…";
  if (utf8Length(marker) > maxBytes) marker = ""; // "…" is 3 bytes: a 1- or 2-byte cap has no room
  const room = Math.max(0, maxBytes - utf8Length(marker));
  const headLen = Math.ceil(room / 2);
  const tailLen = room - headLen;
  const head = decoder.decode(bytes.subarray(0, boundaryBack(bytes, headLen)));
  const tail = decoder.decode(bytes.subarray(boundaryForward(bytes, bytes.length - tailLen)));
  return { text: head + marker + tail, truncated: true };
}

// Never split a UTF-8 sequence: move a cut to the start of the character it falls in.
function boundaryBack(bytes: Uint8Array, i: number): number {
  while (i > 0 && i < bytes.length && (bytes[i]! & 0xc0) === 0x80) i--;
  return i;
}

function boundaryForward(bytes: Uint8Array, i: number): number {
  while (i < bytes.length && (bytes[i]! & 0xc0) === 0x80) i++;
  return i;
}
