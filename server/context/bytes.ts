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

import { utf8Length } from "../utf8.ts";

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
