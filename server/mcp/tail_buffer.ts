/**
 * The last N bytes of a stream, in fixed memory: what is kept of an MCP server's stderr for the
 * messages that name it.
 *
 * @module
 */

/**
 * Keeps the latest `limit` bytes pushed into it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { TailBuffer } from "./tail_buffer.ts";
 * const t = new TailBuffer(4);
 * t.push(new TextEncoder().encode("abcdef"));
 * assert.equal(t.text(), "cdef");
 * assert.equal(t.dropped, 2);
 * ```
 */
export class TailBuffer {
  #buf: Uint8Array;
  #len = 0;
  /** Bytes pushed but no longer kept. */
  dropped = 0;

  /** Creates an empty buffer keeping at most `limit` bytes. */
  constructor(readonly limit: number) {
    this.#buf = new Uint8Array(limit);
  }

  /** Appends bytes, forgetting the oldest beyond the limit. */
  push(chunk: Uint8Array): void {
    const n = this.limit;
    if (chunk.length >= n) {
      this.dropped += this.#len + chunk.length - n;
      this.#buf.set(chunk.subarray(chunk.length - n));
      this.#len = n;
      return;
    }
    const over = this.#len + chunk.length - n;
    if (over > 0) {
      this.#buf.copyWithin(0, over, this.#len);
      this.#len -= over;
      this.dropped += over;
    }
    this.#buf.set(chunk, this.#len);
    this.#len += chunk.length;
  }

  /** The kept bytes as text (a character cut at the start shows as U+FFFD), trimmed. */
  text(): string {
    return new TextDecoder().decode(this.#buf.subarray(0, this.#len)).trim();
  }
}
