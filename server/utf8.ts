/**
 * UTF-8 byte counting without encoding: the protocol's limits all count UTF-8 bytes.
 *
 * @module
 */

/**
 * UTF-8 byte length of a string, computed without allocating. A lone surrogate counts 3 bytes,
 * as the encoder replaces it by U+FFFD.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { utf8Length } from "./utf8.ts";
 * assert.equal(utf8Length("a\u00e9\u20ac\u{1F600}"), 1 + 2 + 3 + 4);
 * ```
 */
export function utf8Length(text: string): number {
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) {
      bytes += 1;
      continue;
    }
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        bytes += 2; // two code units, four bytes
        i++;
        continue;
      }
    }
    bytes += 2;
  }
  return bytes;
}
