/**
 * ACP's stdio transport with scv's frame bounds: NDJSON in, at most `max_client_frame_bytes` a
 * line, and NDJSON out, at most `max_server_frame_bytes` a line. Unlike the SDK's own
 * `ndJsonStream`, a line that is too long, not UTF-8 or not JSON is answered with a JSON-RPC
 * error and the connection goes on; nothing but JSON-RPC messages is ever written.
 *
 * @module
 */
import type { AnyMessage, Stream } from "@agentclientprotocol/sdk";
import { NdjsonDecoderStream } from "../../protocol/ndjson.ts";

/** JSON-RPC error codes the transport answers with. */
export const JSONRPC = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
} as const;

/** Bounds and diagnostics of {@link boundedStream}. */
export interface TransportOptions {
  /** Longest client line in UTF-8 bytes, without its newline. */
  maxClientFrameBytes: number;
  /** Longest line written, without its newline. */
  maxServerFrameBytes: number;
  /** Where dropped or refused messages are reported; never receives message contents. */
  log: (line: string) => void;
  /**
   * Client messages passed on while the output is stalled before input stops being read;
   * default {@link MAX_PENDING_WRITES}.
   */
  maxPendingWrites?: number;
}

/** Client messages read while the output is stalled before input stops being read. */
export const MAX_PENDING_WRITES = 256;

const encoder = new TextEncoder();

/** The encoded line of a message, or its size when it is over `max` bytes. */
export function encodeMessage(
  message: unknown,
  max: number,
): { ok: true; bytes: Uint8Array } | { ok: false; size: number } {
  const bytes = encoder.encode(`${JSON.stringify(message)}\n`);
  return bytes.length - 1 <= max ? { ok: true, bytes } : { ok: false, size: bytes.length - 1 };
}

/**
 * Whether a message would fit one frame of `max` bytes, so that a request that could not be
 * sent is refused before it is made (a dropped request would never be answered).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { fitsFrame } from "./transport.ts";
 * assert(fitsFrame({ a: 1 }, 7) && !fitsFrame({ a: 1 }, 6));
 * ```
 */
export function fitsFrame(message: unknown, max: number): boolean {
  return encodeMessage(message, max).ok;
}

function errorResponse(code: number, message: string, id: unknown = null): AnyMessage {
  return { jsonrpc: "2.0", id: id as string | number | null, error: { code, message } };
}

/**
 * Wraps a byte stream pair as an ACP SDK `Stream` whose frames are bounded both ways.
 *
 * An outgoing response too large for a frame becomes an internal-error response naming its
 * size; an outgoing notification or request too large is dropped and logged (callers check
 * requests with {@link fitsFrame} first, and bound what they notify).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { boundedStream } from "./transport.ts";
 * const out: string[] = [];
 * const stream = boundedStream(
 *   ReadableStream.from([new TextEncoder().encode("not json\n")]),
 *   new WritableStream({ write: (b) => void out.push(new TextDecoder().decode(b)) }),
 *   { maxClientFrameBytes: 1024, maxServerFrameBytes: 1024, log: () => {} },
 * );
 * assert.equal((await Array.fromAsync(stream.readable)).length, 0);
 * assert(out[0]!.includes("-32700"));
 * ```
 */
export function boundedStream(
  input: ReadableStream<Uint8Array>,
  output: WritableStream<Uint8Array>,
  options: TransportOptions,
): Stream {
  const { maxServerFrameBytes: max, log } = options;
  const sink = output.getWriter();
  let chain: Promise<void> = Promise.resolve();
  const maxOwed = options.maxPendingWrites ?? MAX_PENDING_WRITES;
  let busy = 0; // writes started and not finished
  let owed = 0; // client messages passed on since the output was last idle
  let idle = Promise.withResolvers<void>();
  // One writer, one queue: the SDK's messages and the transport's own error replies never
  // interleave, and each waits for the one before it (backpressure reaches the sender).
  const write = (message: AnyMessage): Promise<void> => {
    busy++;
    const next = chain.then(() => {
      const bytes = bytesOf(message);
      if (bytes.length > 0) return sink.write(bytes);
    }).finally(() => {
      if (--busy > 0) return;
      owed = 0;
      idle.resolve();
    });
    chain = next.catch(() => {});
    return next;
  };
  // A client that sends without reading gets no more of its messages read while its answers
  // wait: what it is owed is bounded (the SDK queues an answer per request), not what it sends.
  const room = async (): Promise<void> => {
    while (busy > 0 && owed >= maxOwed) {
      idle = Promise.withResolvers<void>();
      await idle.promise;
    }
  };
  const bytesOf = (message: AnyMessage): Uint8Array => {
    const encoded = encodeMessage(message, max);
    if (encoded.ok) return encoded.bytes;
    const m = message as { id?: unknown; method?: unknown };
    if (m.method === undefined && m.id !== undefined) {
      const reply = errorResponse(
        JSONRPC.internalError,
        `response of ${encoded.size} bytes exceeds max_server_frame_bytes (${max})`,
        m.id,
      );
      const fallback = encodeMessage(reply, max);
      if (fallback.ok) return fallback.bytes;
    }
    log(
      `scv-acp: dropped an outgoing ${typeof m.method === "string" ? `"${m.method}" ` : ""}` +
        `message of ${encoded.size} bytes: over max_server_frame_bytes (${max})`,
    );
    return new Uint8Array(0);
  };

  const frames = input.pipeThrough(new NdjsonDecoderStream(options.maxClientFrameBytes))
    .getReader();
  const readable = new ReadableStream<AnyMessage>({
    async pull(controller) {
      await room();
      while (true) {
        let next;
        try {
          next = await frames.read();
        } catch {
          controller.close(); // a failed input reads as EOF
          return;
        }
        if (next.done) {
          controller.close();
          return;
        }
        const frame = next.value;
        if (frame.kind === "oversize") {
          await write(errorResponse(
            JSONRPC.invalidRequest,
            `Invalid request: frame of ${frame.bytes} bytes exceeds max_client_frame_bytes ` +
              `(${frame.limit})`,
          )).catch(() => {});
          continue;
        }
        if (frame.kind === "invalid_utf8") {
          await write(errorResponse(JSONRPC.parseError, "Parse error: frame is not valid UTF-8"))
            .catch(() => {});
          continue;
        }
        let value: unknown;
        try {
          value = JSON.parse(frame.text);
        } catch {
          await write(errorResponse(JSONRPC.parseError, "Parse error: frame is not valid JSON"))
            .catch(() => {});
          continue;
        }
        if (typeof value !== "object" || value === null || Array.isArray(value)) {
          const what = Array.isArray(value) ? "a batch (ACP does not use batches)" : typeof value;
          await write(errorResponse(
            JSONRPC.invalidRequest,
            `Invalid request: a message must be a JSON-RPC object, got ${
              value === null ? "null" : what
            }`,
          )).catch(() => {});
          continue;
        }
        // The SDK checks the JSON-RPC shape itself and answers -32600 for a bad one.
        owed++;
        controller.enqueue(value as AnyMessage);
        return;
      }
    },
    cancel: () => frames.cancel().catch(() => {}),
  }, { highWaterMark: 0 });
  const writable = new WritableStream<AnyMessage>({
    write: (message) => write(message),
    close: () => chain.then(() => sink.close()).catch(() => {}),
    abort: () => sink.abort().catch(() => {}),
  });
  return { readable, writable };
}
