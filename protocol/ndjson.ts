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
 * The line splitter behind both decoder streams: `push` each chunk, `end` once; frames go to
 * `emit` in order. A run of complete lines that are all within the limit is decoded in one
 * `TextDecoder` call and split as text (a newline byte never occurs inside a UTF-8 sequence),
 * so a flood of small frames costs one decode per chunk; anything else (an oversized or invalid
 * line, a line split across chunks) takes the line-by-line path.
 */
function ndjsonSplitter(maxFrameBytes: number, emit: (frame: DecodedFrame) => void) {
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

  const emitLine = (line: Uint8Array) => {
    let end = line.length;
    if (end > 0 && line[end - 1] === CR) end--;
    if (end === 0) return;
    const body = line.subarray(0, end);
    if (body.length > maxFrameBytes) {
      emit({ kind: "oversize", bytes: body.length, limit: maxFrameBytes });
      return;
    }
    let text: string;
    try {
      text = utf8.decode(body);
    } catch {
      emit({ kind: "invalid_utf8" });
      return;
    }
    if (text.trim() === "") return;
    emit({ kind: "frame", text });
  };

  // Complete lines chunk[0..last) in one decode, when each is within the limit and all are
  // valid UTF-8; false (nothing emitted) otherwise.
  const wholeLines = (chunk: Uint8Array, last: number): boolean => {
    for (let start = 0; start < last;) {
      let nl = chunk.indexOf(NEWLINE, start);
      if (nl === -1 || nl > last) nl = last;
      const bytes = nl - start - (nl > start && chunk[nl - 1] === CR ? 1 : 0);
      if (bytes > maxFrameBytes) return false;
      start = nl + 1;
    }
    let text: string;
    try {
      text = utf8.decode(chunk.subarray(0, last));
    } catch {
      return false;
    }
    for (const raw of text.split("\n")) {
      const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
      if (line.trim() !== "") emit({ kind: "frame", text: line });
    }
    return true;
  };

  return {
    push(chunk: Uint8Array): void {
      let start = 0;
      if (len === 0 && !skipping) {
        const last = chunk.lastIndexOf(NEWLINE);
        if (last > 0 && wholeLines(chunk, last)) start = last + 1;
      }
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
          emit({ kind: "oversize", bytes: skippedBytes, limit: maxFrameBytes });
          skipping = false;
          skippedBytes = 0;
        } else {
          emitLine(buf.subarray(0, len));
          len = 0;
        }
        start = nl + 1;
      }
    },
    end(): void {
      if (skipping) {
        emit({ kind: "oversize", bytes: skippedBytes, limit: maxFrameBytes });
      } else if (len > 0) {
        emitLine(buf.subarray(0, len));
      }
    },
  };
}

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
    let controller!: TransformStreamDefaultController<DecodedFrame>;
    const splitter = ndjsonSplitter(maxFrameBytes, (frame) => controller.enqueue(frame));
    super({
      start(c) {
        controller = c;
      },
      transform: (chunk) => splitter.push(chunk),
      flush: () => splitter.end(),
    });
  }
}

/**
 * {@link NdjsonDecoderStream} that passes on the frames of each input chunk as one array (never
 * empty), for a reader that would otherwise pay a stream read per frame.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { NdjsonBatchDecoderStream } from "./ndjson.ts";
 * const bytes = new TextEncoder().encode('{"a":1}\n{"b":2}\n');
 * const batches = await Array.fromAsync(
 *   ReadableStream.from([bytes]).pipeThrough(new NdjsonBatchDecoderStream(1024)),
 * );
 * assert(batches.length === 1 && batches[0]!.length === 2);
 * ```
 */
export class NdjsonBatchDecoderStream extends TransformStream<Uint8Array, DecodedFrame[]> {
  /** Creates a decoder that refuses lines longer than `maxFrameBytes`. */
  constructor(maxFrameBytes: number) {
    let batch: DecodedFrame[] = [];
    const splitter = ndjsonSplitter(maxFrameBytes, (frame) => batch.push(frame));
    const pass = (controller: TransformStreamDefaultController<DecodedFrame[]>) => {
      if (batch.length === 0) return;
      controller.enqueue(batch);
      batch = [];
    };
    super({
      transform(chunk, controller) {
        splitter.push(chunk);
        pass(controller);
      },
      flush(controller) {
        splitter.end();
        pass(controller);
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
