/**
 * Newline-delimited JSON framing as Web Streams, with byte limits that count the encoded frame
 * without its newline. The decoder never holds more than the limit: an oversized line is
 * reported once and skipped up to the next newline, so the stream resynchronises.
 *
 * @module
 */

/** One decoded line: its text, or why it could not be taken. */
export type DecodedFrame =
  | { kind: "frame"; text: string }
  | { kind: "oversize"; bytes: number; limit: number }
  | { kind: "invalid_utf8" };

const NEWLINE = 0x0a;
const CR = 0x0d;

/**
 * Splits a byte stream into lines of at most `maxFrameBytes` bytes (exclusive of the newline and
 * of a trailing carriage return). Blank lines are skipped. A final line without a newline is
 * still a frame.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { NdjsonDecoderStream } from "./ndjson.ts";
 * const bytes = new TextEncoder().encode('{"a":1}\n{"b":2}\n');
 * const frames = await Array.fromAsync(
 *   ReadableStream.from([bytes]).pipeThrough(new NdjsonDecoderStream(1024)),
 * );
 * assert(frames.length === 2);
 * ```
 */
export class NdjsonDecoderStream extends TransformStream<Uint8Array, DecodedFrame> {
  /** Creates a decoder that refuses lines longer than `maxFrameBytes`. */
  constructor(maxFrameBytes: number) {
    if (!Number.isInteger(maxFrameBytes) || maxFrameBytes <= 0) {
      throw new RangeError(
        `Cannot create decoder: limit must be a positive integer, got ${maxFrameBytes}`,
      );
    }
    const utf8 = new TextDecoder("utf-8", { fatal: true });
    // Room for the limit plus one byte, so "one byte over" is seen without growing further.
    let buf = new Uint8Array(Math.min(maxFrameBytes + 2, 64 * 1024));
    let len = 0;
    let skipping = false; // inside a line already known to be too long
    let skippedBytes = 0;

    const grow = (need: number) => {
      if (need <= buf.length) return;
      let size = buf.length * 2;
      while (size < need) size *= 2;
      const next = new Uint8Array(Math.min(size, maxFrameBytes + 2));
      next.set(buf.subarray(0, len));
      buf = next;
    };

    const emitLine = (
      controller: TransformStreamDefaultController<DecodedFrame>,
      line: Uint8Array,
    ) => {
      let end = line.length;
      if (end > 0 && line[end - 1] === CR) end--;
      if (end === 0) return;
      const body = line.subarray(0, end);
      if (body.length > maxFrameBytes) {
        controller.enqueue({ kind: "oversize", bytes: body.length, limit: maxFrameBytes });
        return;
      }
      let text: string;
      try {
        text = utf8.decode(body);
      } catch {
        controller.enqueue({ kind: "invalid_utf8" });
        return;
      }
      if (text.trim() === "") return;
      controller.enqueue({ kind: "frame", text });
    };

    super({
      transform(chunk, controller) {
        let start = 0;
        while (start < chunk.length) {
          const nl = chunk.indexOf(NEWLINE, start);
          const end = nl === -1 ? chunk.length : nl;
          const piece = chunk.subarray(start, end);
          if (skipping) {
            skippedBytes += piece.length;
          } else if (len + piece.length > maxFrameBytes + 1) {
            // Over the limit even allowing a trailing CR: drop what we hold and skip the rest.
            skipping = true;
            skippedBytes = len + piece.length;
            len = 0;
          } else {
            grow(len + piece.length);
            buf.set(piece, len);
            len += piece.length;
          }
          if (nl === -1) break;
          if (skipping) {
            controller.enqueue({ kind: "oversize", bytes: skippedBytes, limit: maxFrameBytes });
            skipping = false;
            skippedBytes = 0;
          } else {
            emitLine(controller, buf.subarray(0, len));
            len = 0;
          }
          start = nl + 1;
        }
      },
      flush(controller) {
        if (skipping) {
          controller.enqueue({ kind: "oversize", bytes: skippedBytes, limit: maxFrameBytes });
        } else if (len > 0) {
          emitLine(controller, buf.subarray(0, len));
        }
      },
    });
  }
}

const encoder = new TextEncoder();

/** Thrown when an encoded frame is over the server-frame limit; nothing was written. */
export class FrameTooLargeError extends RangeError {
  /** The encoded size in bytes, without the newline. */
  readonly bytes: number;
  /** The limit it exceeded. */
  readonly limit: number;
  /** Builds the error for a frame of `bytes` over `limit`. */
  constructor(type: string, bytes: number, limit: number) {
    super(`Cannot encode "${type}" frame: ${bytes} bytes exceeds the ${limit}-byte limit`);
    this.name = "FrameTooLargeError";
    this.bytes = bytes;
    this.limit = limit;
  }
}

/**
 * Encodes one value as an NDJSON line (with its newline), refusing frames over `maxFrameBytes`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { encodeFrame } from "./ndjson.ts";
 * const line = encodeFrame({ type: "x" }, 100);
 * assert(new TextDecoder().decode(line) === '{"type":"x"}\n');
 * ```
 */
export function encodeFrame(value: unknown, maxFrameBytes: number): Uint8Array {
  const text = JSON.stringify(value);
  // Encoded with its newline in one go: the frame is measured and written from the same bytes.
  const bytes = encoder.encode(text + "\n");
  const size = bytes.length - 1;
  if (size > maxFrameBytes) {
    const type = (value as { type?: unknown })?.type;
    throw new FrameTooLargeError(String(type ?? "?"), size, maxFrameBytes);
  }
  return bytes;
}

/**
 * Encodes values as NDJSON lines, erroring the stream on a frame over the limit.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { NdjsonEncoderStream } from "./ndjson.ts";
 * const out = ReadableStream.from([{ a: 1 }]).pipeThrough(new NdjsonEncoderStream(100));
 * assert((await Array.fromAsync(out)).length === 1);
 * ```
 */
export class NdjsonEncoderStream extends TransformStream<unknown, Uint8Array> {
  /** Creates an encoder that refuses frames over `maxFrameBytes`. */
  constructor(maxFrameBytes: number) {
    super({
      transform(value, controller) {
        controller.enqueue(encodeFrame(value, maxFrameBytes));
      },
    });
  }
}
