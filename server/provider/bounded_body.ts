/**
 * The one bounded read of an HTTP body as text: at most `maxBytes` (the rest is cancelled, not
 * buffered), for at most `waitMs`, whatever arrived before an error or the deadline kept.
 *
 * @module
 */
import { after } from "../timer.ts";

/** Options of {@link readBoundedText}. */
export interface BoundedReadOptions {
  /** Bytes kept at most; the body is cancelled past them. */
  maxBytes: number;
  /** The read stops after this long, with what arrived. */
  waitMs: number;
  /** Called for each chunk (a caller's idle clock). */
  onChunk?: () => void;
  /** Aborting it stops the read, with what arrived. */
  signal?: AbortSignal;
}

/**
 * Reads up to `maxBytes` of `body` as UTF-8 text, trimmed. Never throws: a body that fails or
 * stalls gives what it sent.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readBoundedText } from "./bounded_body.ts";
 * const body = new Response("hello world").body;
 * assert.equal(await readBoundedText(body, { maxBytes: 5, waitMs: 1000 }), "hello");
 * ```
 */
export async function readBoundedText(
  body: ReadableStream<Uint8Array> | null,
  options: BoundedReadOptions,
): Promise<string> {
  if (!body) return "";
  const { maxBytes, waitMs, onChunk, signal } = options;
  const reader = body.getReader();
  const parts: Uint8Array[] = [];
  let total = 0;
  // A body that never ends must not hold up its caller: after the wait, what arrived is it.
  const stop = () => void reader.cancel().catch(() => {});
  const timer = after(waitMs, stop);
  signal?.addEventListener("abort", stop, { once: true });
  try {
    while (total < maxBytes) {
      const { value, done } = await reader.read();
      if (done) break;
      onChunk?.();
      parts.push(value);
      total += value.length;
    }
  } catch {
    // Whatever arrived is still worth having.
  } finally {
    timer.cancel();
    signal?.removeEventListener("abort", stop);
    await reader.cancel().catch(() => {});
  }
  const buf = new Uint8Array(Math.min(total, maxBytes));
  let off = 0;
  for (const p of parts) {
    const take = Math.min(p.length, buf.length - off);
    buf.set(p.subarray(0, take), off);
    off += take;
  }
  return new TextDecoder().decode(buf).trim();
}
