/**
 * Bounded tool output: keeps the head and the tail of a byte stream in fixed memory and renders
 * it as UTF-8 text no larger than the limit, with a marker where bytes were left out.
 *
 * @module
 */

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });

/**
 * The line that stands for the bytes left out between head and tail.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { omissionMarker } from "./output.ts";
 * assert(omissionMarker(12) === "\n[... 12 bytes omitted ...]\n");
 * ```
 */
export function omissionMarker(omitted: number): string {
  return `\n[... ${omitted} bytes omitted ...]\n`;
}

/** A rendered, bounded output. */
export interface BoundedText {
  text: string;
  truncated: boolean;
}

/** Index of the first byte of the character at or before `i`, so a cut never splits one. */
function charStartAtOrBefore(bytes: Uint8Array, i: number): number {
  let j = Math.min(i, bytes.length);
  // Step back over at most three continuation bytes (0b10xxxxxx).
  for (let k = 0; k < 3 && j > 0 && j < bytes.length && (bytes[j]! & 0xc0) === 0x80; k++) j--;
  return j;
}

/** Length of `bytes` without a character cut off at its end. */
function completeLength(bytes: Uint8Array): number {
  const n = bytes.length;
  const lead = charStartAtOrBefore(bytes, Math.max(0, n - 1));
  const b = bytes[lead] ?? 0;
  const width = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
  return lead + width > n ? lead : n;
}

/** Index of the first byte of the character at or after `i`. */
function charStartAtOrAfter(bytes: Uint8Array, i: number): number {
  let j = Math.max(0, i);
  for (let k = 0; k < 3 && j < bytes.length && (bytes[j]! & 0xc0) === 0x80; k++) j++;
  return j;
}

/**
 * The longest prefix of `s` whose UTF-8 encoding fits in `max` bytes; never splits a character.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { headOf } from "./output.ts";
 * assert.equal(headOf("aé", 2), "a");
 * ```
 */
export function headOf(s: string, max: number): string {
  const bytes = encoder.encode(s);
  if (bytes.length <= max) return s;
  return decoder.decode(bytes.subarray(0, charStartAtOrBefore(bytes, max)));
}

/** The longest suffix of `s` whose UTF-8 encoding fits in `max` bytes. */
function tailOf(s: string, max: number): string {
  const bytes = encoder.encode(s);
  if (bytes.length <= max) return s;
  return decoder.decode(bytes.subarray(charStartAtOrAfter(bytes, bytes.length - max)));
}

/** Joins head and tail around a marker, all within `max` bytes (when `max` allows a marker). */
function render(head: string, tail: string, total: number, max: number): BoundedText {
  // The marker is sized for `total`, which has at least as many digits as the real count.
  const reserve = encoder.encode(omissionMarker(total)).length;
  // A limit too small for the marker keeps the head alone; `truncated` still tells.
  if (reserve >= max) return { text: headOf(head, max), truncated: true };
  const budget = Math.max(0, max - reserve);
  const h = headOf(head, Math.ceil(budget / 2));
  const t = tailOf(tail, budget - encoder.encode(h).length);
  const omitted = total - encoder.encode(h).length - encoder.encode(t).length;
  return { text: h + omissionMarker(Math.max(0, omitted)) + t, truncated: true };
}

/**
 * Cuts `text` to at most `maxBytes` UTF-8 bytes, keeping its head and tail. Used where the whole
 * text is already in memory (a diff, a list of matches).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { truncateText } from "./output.ts";
 * const r = truncateText("a".repeat(1000), 100);
 * assert(r.truncated && new TextEncoder().encode(r.text).length <= 100);
 * ```
 */
export function truncateText(text: string, maxBytes: number): BoundedText {
  const bytes = encoder.encode(text);
  if (bytes.length <= maxBytes) return { text, truncated: false };
  return render(text, text, bytes.length, maxBytes);
}

/**
 * Collects a stream of bytes of any length in memory bounded by `maxBytes`: the first half is
 * kept as it arrives, the rest goes through a ring buffer holding the latest bytes. A flooding
 * command therefore costs a fixed amount of memory however long it runs.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { OutputBuffer } from "./output.ts";
 * const b = new OutputBuffer(64);
 * for (let i = 0; i < 100; i++) b.push(new TextEncoder().encode(`line ${i}\n`));
 * const r = b.render();
 * assert(r.truncated && r.text.startsWith("line 0") && r.text.endsWith("line 99\n"));
 * ```
 */
export class OutputBuffer {
  #max: number;
  #head: Uint8Array;
  #headLength = 0;
  #ring: Uint8Array;
  /** Bytes written to the ring in all; the write position is this modulo its size. */
  #ringWritten = 0;
  #total = 0;

  /** Creates a buffer that renders at most `maxBytes` bytes. */
  constructor(maxBytes: number) {
    if (!Number.isInteger(maxBytes) || maxBytes < 0) {
      throw new RangeError(`Cannot create output buffer: maxBytes must be a non-negative integer`);
    }
    this.#max = maxBytes;
    this.#head = new Uint8Array(Math.ceil(maxBytes / 2));
    // The ring holds everything that did not fit in the head, so output that fits the limit
    // renders whole.
    this.#ring = new Uint8Array(maxBytes - this.#head.length);
  }

  /** Bytes pushed so far, kept or not. */
  get totalBytes(): number {
    return this.#total;
  }

  /** Appends a chunk. */
  push(chunk: Uint8Array): void {
    this.#total += chunk.length;
    let rest = chunk;
    if (this.#headLength < this.#head.length) {
      const n = Math.min(rest.length, this.#head.length - this.#headLength);
      this.#head.set(rest.subarray(0, n), this.#headLength);
      this.#headLength += n;
      rest = rest.subarray(n);
    }
    const size = this.#ring.length;
    if (rest.length === 0 || size === 0) return;
    if (rest.length >= size) {
      // Only the last `size` bytes can survive; realign so the ring starts at 0.
      this.#ring.set(rest.subarray(rest.length - size));
      this.#ringWritten += rest.length;
      this.#ringWritten -= this.#ringWritten % size;
      return;
    }
    const at = this.#ringWritten % size;
    const first = Math.min(rest.length, size - at);
    this.#ring.set(rest.subarray(0, first), at);
    this.#ring.set(rest.subarray(first), 0);
    this.#ringWritten += rest.length;
  }

  /** The bytes of the ring in arrival order. */
  #tailBytes(): Uint8Array {
    const size = this.#ring.length;
    if (this.#ringWritten <= size) return this.#ring.subarray(0, this.#ringWritten);
    const at = this.#ringWritten % size;
    const out = new Uint8Array(size);
    out.set(this.#ring.subarray(at), 0);
    out.set(this.#ring.subarray(0, at), size - at);
    return out;
  }

  /**
   * The output as text, invalid UTF-8 replaced, within the limit minus `reserveBytes` (room
   * the caller keeps for a status line it appends).
   */
  render(reserveBytes = 0): BoundedText {
    const max = Math.max(0, this.#max - reserveBytes);
    const head = this.#head.subarray(0, this.#headLength);
    const tail = this.#tailBytes();
    if (this.#total === head.length + tail.length) {
      const whole = new Uint8Array(this.#total);
      whole.set(head);
      whole.set(tail, head.length);
      // Replacement characters can make the text longer than the bytes it came from.
      return truncateText(decoder.decode(whole), max);
    }
    const headText = decoder.decode(head.subarray(0, completeLength(head)));
    const tailText = decoder.decode(tail.subarray(charStartAtOrAfter(tail, 0)));
    return render(headText, tailText, this.#total, max);
  }
}
