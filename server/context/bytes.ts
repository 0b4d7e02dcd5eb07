/**
 * Encoded sizes: the UTF-8 length of a string, of one message's JSON and of a whole history's
 * JSON, without building the encoded bytes. Per-message sizes are cached by message object, so a
 * history that grew by one message costs one `JSON.stringify` of that message.
 *
 * Messages are treated as immutable: a message object changed after it was measured keeps its
 * old size. Build a new object instead of editing one in place.
 *
 * @module
 */
import type { ChatMessage } from "../provider/types.ts";

/**
 * The number of bytes `new TextEncoder().encode(text)` would produce, computed without
 * allocating. A lone surrogate counts 3 bytes, as the encoder replaces it by U+FFFD.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { utf8Length } from "./bytes.ts";
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

const messageSizes = new WeakMap<ChatMessage, number>();

/**
 * The UTF-8 length of `JSON.stringify(message)`, cached per message object.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { messageBytes } from "./bytes.ts";
 * const m = { role: "user" as const, content: "h\u00e9" };
 * assert.equal(messageBytes(m), new TextEncoder().encode(JSON.stringify(m)).length);
 * ```
 */
export function messageBytes(message: ChatMessage): number {
  let size = messageSizes.get(message);
  if (size === undefined) {
    size = utf8Length(JSON.stringify(message));
    messageSizes.set(message, size);
  }
  return size;
}

/**
 * The UTF-8 length of `JSON.stringify(history)`: the brackets, the commas between messages and
 * each message's cached {@link messageBytes}. A history of n known messages costs n cache
 * look-ups.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { historyBytes } from "./bytes.ts";
 * const history = [
 *   { role: "user" as const, content: "hi" },
 *   { role: "assistant" as const, content: "hello" },
 * ];
 * assert.equal(historyBytes(history), JSON.stringify(history).length);
 * assert.equal(historyBytes([]), 2);
 * ```
 */
export function historyBytes(history: readonly ChatMessage[]): number {
  let bytes = 2 + Math.max(0, history.length - 1);
  for (const m of history) bytes += messageBytes(m);
  return bytes;
}
