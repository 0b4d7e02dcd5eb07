/**
 * A bounded Server-Sent Events decoder: bytes in, events out, no I/O. It counts UTF-8 bytes
 * exactly (it works on bytes, not decoded text), so the protocol's 1 MiB event cap is
 * `response_limit` at exactly one byte over, whatever the line endings.
 *
 * @module
 */
import { ProviderError } from "./types.ts";

/** One dispatched SSE event. */
export interface SseEvent {
  /** The `event:` field; `"message"` when absent. */
  event: string;
  /** The `data:` lines joined by `\n`. */
  data: string;
  /** A non-standard `error:` field (older llama.cpp servers send their errors this way). */
  error?: string;
}

/** A line longer than the event cap plus this much (a field name, its colon) is over the cap. */
const FIELD_SLACK = 64;
const LF = 10;
const CR = 13;

/**
 * Decodes an SSE byte stream incrementally. `push` returns the events completed by the chunk;
 * an event whose data (or any line) would pass `maxEventBytes` throws
 * `ProviderError("response_limit")` before more than that is buffered.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { SseDecoder } from "./sse.ts";
 * const d = new SseDecoder(1024);
 * const enc = new TextEncoder();
 * assert.deepEqual(d.push(enc.encode("data: a\r\ndata: b\n\nda")), [{ event: "message", data: "a\nb" }]);
 * assert.deepEqual(d.push(enc.encode("ta: c\n\n")), [{ event: "message", data: "c" }]);
 * ```
 */
export class SseDecoder {
  #max: number;
  #decoder = new TextDecoder();
  /** Pieces of the current, unterminated line. */
  #partial: Uint8Array[] = [];
  #partialBytes = 0;
  /** The previous chunk ended in CR: a leading LF of the next one ends nothing. */
  #skipLf = false;
  #first = true;
  #data: string[] = [];
  #dataBytes = 0;
  #event = "";
  #error: string | undefined;

  /** A decoder whose events may carry at most `maxEventBytes` bytes of data. */
  constructor(maxEventBytes: number) {
    this.#max = maxEventBytes;
  }

  /** Feeds the next bytes; returns the events they completed, in order. */
  push(chunk: Uint8Array): SseEvent[] {
    const out: SseEvent[] = [];
    let pos = 0;
    if (this.#skipLf && chunk.length > 0) {
      if (chunk[0] === LF) pos = 1;
      this.#skipLf = false;
    }
    // Each terminator is searched once per chunk, not once per line: a chunk of many LF-only
    // lines must not be rescanned for a CR it does not contain.
    let lf = chunk.indexOf(LF, pos);
    let cr = chunk.indexOf(CR, pos);
    while (pos < chunk.length) {
      if (lf !== -1 && lf < pos) lf = chunk.indexOf(LF, pos);
      if (cr !== -1 && cr < pos) cr = chunk.indexOf(CR, pos);
      const end = lf === -1 ? cr : cr === -1 ? lf : Math.min(lf, cr);
      if (end === -1) {
        this.#keep(chunk.subarray(pos));
        break;
      }
      if (this.#partial.length === 0) {
        // The common case: the whole line is in this chunk, so no copy is made.
        const line = chunk.subarray(pos, end);
        if (line.length > this.#max + FIELD_SLACK) throw this.#overCap();
        this.#lineBytes(line, out);
      } else {
        this.#keep(chunk.subarray(pos, end));
        this.#line(out);
      }
      if (chunk[end] === CR) {
        if (end + 1 < chunk.length) pos = chunk[end + 1] === LF ? end + 2 : end + 1;
        else {
          this.#skipLf = true;
          pos = end + 1;
        }
      } else pos = end + 1;
    }
    return out;
  }

  /**
   * Ends the stream. A last event that lacked its blank line is still dispatched: servers that
   * end on `data: [DONE]\n` without one are common, and the data is complete.
   */
  end(): SseEvent[] {
    const out: SseEvent[] = [];
    if (this.#partialBytes > 0 || this.#partial.length > 0) this.#line(out);
    this.#dispatch(out);
    return out;
  }

  #keep(piece: Uint8Array): void {
    if (piece.length === 0) return;
    this.#partialBytes += piece.length;
    if (this.#partialBytes > this.#max + FIELD_SLACK) throw this.#overCap();
    // The chunk's buffer may be reused by the reader: keep a copy only of what outlives it.
    this.#partial.push(piece.slice());
  }

  #overCap(): ProviderError {
    return new ProviderError(
      "response_limit",
      `Provider sent an SSE event over ${this.#max} bytes`,
    );
  }

  #line(out: SseEvent[]): void {
    const parts = this.#partial;
    let bytes: Uint8Array;
    if (parts.length === 1) bytes = parts[0]!;
    else if (parts.length === 0) bytes = new Uint8Array(0);
    else {
      bytes = new Uint8Array(this.#partialBytes);
      let off = 0;
      for (const p of parts) {
        bytes.set(p, off);
        off += p.length;
      }
    }
    this.#partial = [];
    this.#partialBytes = 0;
    this.#lineBytes(bytes, out);
  }

  #lineBytes(bytes: Uint8Array, out: SseEvent[]): void {
    if (bytes.length === 0) {
      this.#dispatch(out);
      return;
    }
    let start = 0;
    if (this.#first) {
      this.#first = false;
      // A UTF-8 byte order mark at the very start is not part of the first field.
      if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) start = 3;
    }
    if (bytes[start] === 0x3a) return; // ":" starts a comment (keep-alives)
    const colon = bytes.indexOf(0x3a, start);
    const nameEnd = colon === -1 ? bytes.length : colon;
    let valueStart = colon === -1 ? bytes.length : colon + 1;
    if (bytes[valueStart] === 0x20) valueStart++;
    const valueBytes = bytes.length - valueStart;
    // "data" is nearly every line: recognised on bytes, without decoding the name.
    const isData = nameEnd - start === 4 && bytes[start] === 0x64 && bytes[start + 1] === 0x61 &&
      bytes[start + 2] === 0x74 && bytes[start + 3] === 0x61;
    const name = isData ? "data" : this.#decoder.decode(bytes.subarray(start, nameEnd));
    if (name === "data") {
      const added = valueBytes + (this.#data.length > 0 ? 1 : 0);
      if (this.#dataBytes + added > this.#max) throw this.#overCap();
      this.#dataBytes += added;
      this.#data.push(this.#decoder.decode(bytes.subarray(valueStart)));
    } else if (name === "event") {
      this.#event = this.#decoder.decode(bytes.subarray(valueStart));
    } else if (name === "error") {
      this.#error = this.#decoder.decode(bytes.subarray(valueStart));
    }
    // "id", "retry" and unknown fields mean nothing to a one-shot response stream.
  }

  #dispatch(out: SseEvent[]): void {
    if (this.#data.length === 0 && this.#error === undefined) {
      this.#event = "";
      return;
    }
    const ev: SseEvent = {
      event: this.#event || "message",
      data: this.#data.length === 1 ? this.#data[0]! : this.#data.join("\n"),
    };
    if (this.#error !== undefined) ev.error = this.#error;
    out.push(ev);
    this.#data = [];
    this.#dataBytes = 0;
    this.#event = "";
    this.#error = undefined;
  }
}
