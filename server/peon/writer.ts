/**
 * The server's single output: a queue bounded by frame count and by bytes, drained in order
 * to a byte sink. Turn emission waits for room (never drops) and is interrupted by its abort
 * signal; connection-level sends give up after a backpressure timeout.
 *
 * @module
 */
import { errorText } from "../error_text.ts";
import { FrameTooLargeError } from "../../protocol/ndjson.ts";
import { utf8Length } from "../utf8.ts";
import type { SeqCounter } from "../core/seq.ts";
import { after, type Timer } from "../timer.ts";

const encoder = new TextEncoder();
/** Microtask hops without a new frame after which a batch is written. */
const SIBLING_HOPS = 16;
/** Most microtask hops a batch waits for siblings in all. */
const MAX_SIBLING_HOPS = 4096;

/** Thrown by {@link FrameWriter.send} when the writer was closed or failed. */
export class WriterClosedError extends Error {
  /** Builds the error with the reason the writer stopped. */
  constructor(reason: string) {
    super(`Cannot send: the writer is closed (${reason})`);
    this.name = "WriterClosedError";
  }
}

/** Thrown by {@link FrameWriter.send} when no room appeared within the timeout. */
export class BackpressureTimeoutError extends Error {
  /** Builds the error for a wait of `ms` milliseconds. */
  constructor(ms: number) {
    super(`Cannot send: output blocked for ${ms} ms`);
    this.name = "BackpressureTimeoutError";
  }
}

/** Bounds of a {@link FrameWriter}. */
export interface FrameWriterOptions {
  /** Largest encoded frame, excluding its newline. */
  maxFrameBytes: number;
  /** Most frames queued at once; the protocol says 256. */
  maxFrames?: number;
  /** Most bytes queued at once; default max(16 MiB, 2 × maxFrameBytes). */
  maxBytes?: number;
}

interface Waiter {
  resolve: () => void;
}

/**
 * Bounded, ordered frame output.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { FrameWriter } from "./writer.ts";
 * const chunks: Uint8Array[] = [];
 * const w = new FrameWriter(new WritableStream({ write: (c) => void chunks.push(c) }), {
 *   maxFrameBytes: 1024,
 * });
 * await w.send({ type: "x" });
 * await w.close();
 * assert(chunks.length === 1);
 * ```
 */
export class FrameWriter {
  readonly maxFrames: number;
  readonly maxBytes: number;
  readonly maxFrameBytes: number;
  // Frames as JSON text (no newline): a batch is encoded in one go when it is written, not one
  // encoder call per frame; sizes are counted in UTF-8 bytes without encoding.
  #queue: string[] = [];
  #queuedBytes = 0;
  #writingFrames = 0; // frames handed to the sink whose write has not completed
  // Called once when the writer stops: wakes a drain loop waiting on a stuck sink write.
  #onStop: (() => void) | undefined;
  #waiters: Waiter[] = [];
  #drainWaiters: Array<() => void> = [];
  #wakeDrain: (() => void) | undefined;
  #sink: WritableStreamDefaultWriter<Uint8Array>;
  #closedReason: string | undefined;
  #closing = false;
  #drainLoop: Promise<void>;
  /** Resolves with the reason when the sink fails (broken pipe). */
  readonly failed: Promise<string>;
  #fail!: (reason: string) => void;

  /** Starts draining into `sink` at once. */
  constructor(sink: WritableStream<Uint8Array>, options: FrameWriterOptions) {
    this.maxFrameBytes = options.maxFrameBytes;
    this.maxFrames = options.maxFrames ?? 256;
    this.maxBytes = options.maxBytes ?? Math.max(16 * 1024 * 1024, 2 * options.maxFrameBytes);
    this.#sink = sink.getWriter();
    this.failed = new Promise((resolve) => (this.#fail = resolve));
    this.#drainLoop = this.#drain();
  }

  /** Frames queued and not yet written by the sink. */
  get queuedFrames(): number {
    return this.#queue.length + this.#writingFrames;
  }

  /** Bytes queued and not yet written by the sink. */
  get queuedBytes(): number {
    return this.#queuedBytes;
  }

  // Room for any frame: a whole max-size frame fits under the byte bound.
  #hasRoom(): boolean {
    return this.queuedFrames < this.maxFrames &&
      this.#queuedBytes + this.maxFrameBytes + 1 <= this.maxBytes;
  }

  async #drain(): Promise<void> {
    while (true) {
      if (this.#queue.length === 0) {
        if (this.#closing || this.#closedReason !== undefined) break;
        for (const d of this.#drainWaiters.splice(0)) d();
        await new Promise<void>((resolve) => (this.#wakeDrain = resolve));
        this.#wakeDrain = undefined;
        // Let the producer queue this frame's siblings first (a provider chunk holds many
        // deltas, and they then go out as one write: one encode, one pipe write, one read on
        // the other side). Microtask hops, not a timer: a timer costs milliseconds here, and the
        // deltas of one chunk all arrive within the current task. The wait ends once a few hops
        // pass without a new frame, or when the queue is full.
        for (let hops = 0, quiet = 0; quiet < SIBLING_HOPS && hops < MAX_SIBLING_HOPS; hops++) {
          if (this.#closing || this.#closedReason !== undefined || !this.#hasRoom()) break;
          const queued = this.#queue.length;
          await null;
          quiet = this.#queue.length === queued ? quiet + 1 : 0;
        }
        continue;
      }
      // Batch everything queued into one write: far fewer syscalls under a delta flood.
      const frames = this.#queue;
      const bytes = this.#queuedBytes;
      this.#queue = [];
      const chunk = encoder.encode(frames.join("\n") + "\n");
      this.#writingFrames = frames.length;
      try {
        const written = this.#sink.write(chunk);
        written.catch(() => {}); // may settle after an abort stopped waiting for it
        // A write stuck on a blocked pipe must not hold up abort(). Not Promise.race with a
        // long-lived "stopped" promise: every race would leave a reaction on it for good.
        await new Promise<void>((resolve, reject) => {
          this.#onStop = resolve;
          written.then(resolve, reject);
        });
        this.#onStop = undefined;
        if (this.#closedReason !== undefined) break;
      } catch (e) {
        const reason = errorText(e);
        this.#shutdown(`output failed: ${reason}`);
        this.#fail(reason);
        break;
      }
      this.#queuedBytes -= bytes;
      this.#writingFrames = 0;
      this.#wakeSenders();
    }
    for (const d of this.#drainWaiters.splice(0)) d();
  }

  #wakeSenders(): void {
    while (this.#waiters.length > 0 && (this.#hasRoom() || this.#closedReason !== undefined)) {
      this.#waiters.shift()!.resolve();
    }
  }

  #shutdown(reason: string): void {
    if (this.#closedReason !== undefined) return;
    this.#closedReason = reason;
    this.#queue = [];
    this.#queuedBytes = 0;
    this.#writingFrames = 0;
    this.#onStop?.();
    for (const w of this.#waiters.splice(0)) w.resolve();
    this.#wakeDrain?.();
  }

  /**
   * Queues one event, waiting for room. `seq`, when given, is written into the event's `seq`
   * field in place (give the object a `seq` key where it should appear) just before encoding, and
   * only consumed when the frame is queued. Rejects with a `FrameTooLargeError` when the encoded
   * frame is over the limit (nothing queued, no seq consumed), with the signal's reason on
   * abort, with {@link BackpressureTimeoutError} after `timeoutMs`, or with
   * {@link WriterClosedError} once the writer failed or `close`/`abort` was called.
   */
  async send(
    event: Record<string, unknown>,
    options: { signal?: AbortSignal; timeoutMs?: number; seq?: SeqCounter } = {},
  ): Promise<number | undefined> {
    const { signal, timeoutMs, seq } = options;
    let woken = false;
    while (true) {
      if (this.#closedReason !== undefined) throw new WriterClosedError(this.#closedReason);
      if (this.#closing) throw new WriterClosedError("closing");
      signal?.throwIfAborted();
      // A sender that was woken may go ahead of later arrivals; a new one queues behind waiters.
      if (this.#hasRoom() && (woken || this.#waiters.length === 0)) break;
      await this.#waitForRoom(signal, timeoutMs);
      woken = true;
    }
    let n: number | undefined;
    if (seq) {
      n = seq.peek();
      event.seq = n;
    }
    const text = JSON.stringify(event);
    const size = utf8Length(text);
    if (size > this.maxFrameBytes) {
      throw new FrameTooLargeError(String(event.type ?? "?"), size, this.maxFrameBytes);
    }
    if (seq) seq.take();
    this.#queue.push(text);
    this.#queuedBytes += size + 1;
    this.#wakeDrain?.();
    return n;
  }

  #waitForRoom(signal: AbortSignal | undefined, timeoutMs: number | undefined): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      let timer: Timer | undefined;
      const waiter: Waiter = {
        resolve: () => {
          cleanup();
          resolve();
        },
      };
      const onAbort = () => {
        cleanup();
        this.#waiters = this.#waiters.filter((w) => w !== waiter);
        reject(signal!.reason);
      };
      const cleanup = () => {
        timer?.cancel();
        signal?.removeEventListener("abort", onAbort);
      };
      if (timeoutMs !== undefined) {
        timer = after(timeoutMs, () => {
          cleanup();
          this.#waiters = this.#waiters.filter((w) => w !== waiter);
          reject(new BackpressureTimeoutError(timeoutMs));
        });
      }
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#waiters.push(waiter);
    });
  }

  /** Resolves when everything queued so far was handed to the sink (or the writer stopped). */
  flushed(): Promise<void> {
    if (this.#queue.length === 0 && this.#queuedBytes === 0) return Promise.resolve();
    if (this.#closedReason !== undefined) return Promise.resolve();
    return new Promise((resolve) => this.#drainWaiters.push(resolve));
  }

  /** Drains what is queued, then closes the sink. */
  async close(): Promise<void> {
    this.#closing = true;
    this.#wakeDrain?.();
    await this.#drainLoop;
    if (this.#closedReason !== undefined) return; // failed or aborted: nothing left to close
    this.#shutdown("closed");
    await this.#sink.close().catch(() => {});
  }

  /**
   * Drops what is queued and aborts the sink, waiting for the drain loop to end but not for a
   * sink write that never completes.
   */
  async abort(reason = "aborted"): Promise<void> {
    this.#shutdown(reason);
    // The stream only aborts once its write in flight settles, which a blocked pipe never does.
    this.#sink.abort(reason).catch(() => {});
    await this.#drainLoop;
  }
}
