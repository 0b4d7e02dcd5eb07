/**
 * A typed Peon client over any pair of byte streams: sends client messages as NDJSON and
 * delivers validated server events to listeners. Used by the TUI, `scv exec` and the tests.
 *
 * @module
 */
import {
  type DecodedFrame,
  encodeFrame,
  NdjsonBatchDecoderStream,
  NdjsonDecoderStream,
} from "./ndjson.ts";
import { PROTOCOL_VERSION, SCV_VERSION } from "./constants.ts";
import type { ClientMessage, ServerEvent, ServerEventOf, ServerEventType } from "./types.ts";

/** What a client sees on its input: an event, a frame it could not take, or the end. */
export type ClientInput =
  | { kind: "event"; event: ServerEvent; text: string }
  | { kind: "malformed"; reason: string; text?: string }
  | { kind: "closed"; error?: string };

/** A function that receives everything the client reads. */
export type ClientListener = (input: ClientInput) => void;

/** Distributive omit, so each message keeps its own fields. */
export type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
/** A client message whose `request_id` the client fills in. */
export type OutgoingMessage = DistributiveOmit<ClientMessage, "request_id"> & {
  request_id?: string;
};

/** An `error` event returned for a request, as a rejection. */
export class PeonRequestError extends Error {
  /** The error event. */
  readonly event: ServerEventOf<"error">;
  /** Wraps an `error` event. */
  constructor(event: ServerEventOf<"error">) {
    super(`${event.code}: ${event.message}`);
    this.name = "PeonRequestError";
    this.event = event;
  }
}

/** Options of a {@link PeonClient}. */
export interface PeonClientOptions {
  /** The largest server frame accepted; larger lines are reported as malformed. */
  maxFrameBytes?: number;
  /** Client name sent in `initialize`. */
  name?: string;
  /** Client version sent in `initialize`. */
  version?: string;
  /**
   * Check every event against the protocol schema (default true). `false` trusts the server,
   * for an in-process one built from the same schemas (`scv exec`): events are only
   * JSON-parsed, and zod is not loaded for them.
   */
  validate?: boolean;
}

/**
 * A Peon client. Listeners see every input in order; `request` sends a message and resolves
 * with the first event of the given types that carries its `request_id`, or rejects on `error`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { PeonClient } from "./client.ts";
 * const toServer = new TransformStream<Uint8Array, Uint8Array>();
 * const fromServer = new TransformStream<Uint8Array, Uint8Array>();
 * const client = new PeonClient(fromServer.readable, toServer.writable);
 * // A fake server that answers the one message it reads, then hangs up.
 * void (async () => {
 *   const { value } = await toServer.readable.getReader().read();
 *   const req = JSON.parse(new TextDecoder().decode(value));
 *   const reply = { type: "initialized", request_id: req.request_id, protocol_version: 1,
 *     server: { name: "s", version: "0" } };
 *   const w = fromServer.writable.getWriter();
 *   await w.write(new TextEncoder().encode(JSON.stringify(reply) + "\n"));
 *   await w.close();
 * })();
 * const ev = await client.initialize();
 * assert(ev.server.name === "s");
 * await client.close();
 * ```
 */
export class PeonClient {
  #writer: WritableStreamDefaultWriter<Uint8Array>;
  #listeners = new Set<ClientListener>();
  #nextId = 1;
  #closed = false;
  #inputEnded = false;
  #done: Promise<void>;
  #reader: ReadableStreamDefaultReader<DecodedFrame | DecodedFrame[]>;
  #name: string;
  #version: string;
  #validate: boolean;

  /** Starts reading `readable` at once; messages are written to `writable`. */
  constructor(
    readable: ReadableStream<Uint8Array>,
    writable: WritableStream<Uint8Array>,
    options: PeonClientOptions = {},
  ) {
    this.#writer = writable.getWriter();
    this.#name = options.name ?? "scv-client";
    this.#version = options.version ?? SCV_VERSION;
    this.#validate = options.validate ?? true;
    // Server frames are at most 8 MiB by default; accept whatever the caller says.
    const limit = options.maxFrameBytes ?? 8 * 1024 * 1024;
    // A trusted server's frames are taken a chunk at a time (one stream read per chunk, not per
    // frame); checked clients keep one read per frame, so listeners that await between events
    // see them as before.
    this.#reader = this.#validate
      ? readable.pipeThrough(new NdjsonDecoderStream(limit)).getReader()
      : readable.pipeThrough(new NdjsonBatchDecoderStream(limit)).getReader();
    this.#done = this.#readLoop();
  }

  async #readLoop(): Promise<void> {
    let error: string | undefined;
    try {
      // The schemas (and zod) load only where events are checked.
      const schema = this.#validate ? await import("./schema.ts") : undefined;
      while (true) {
        const { value: read, done } = await this.#reader.read();
        if (done) break;
        for (const value of Array.isArray(read) ? read : [read]) this.#take(value, schema);
      }
    } catch (e) {
      error = e instanceof Error ? e.message : String(e);
    }
    this.#inputEnded = true;
    this.#emit(error === undefined ? { kind: "closed" } : { kind: "closed", error });
  }

  /** Turns one decoded frame into what listeners see. */
  #take(value: DecodedFrame, schema: typeof import("./schema.ts") | undefined): void {
    if (value.kind === "oversize") {
      this.#emit({ kind: "malformed", reason: `frame of ${value.bytes} bytes over the limit` });
      return;
    }
    if (value.kind === "invalid_utf8") {
      this.#emit({ kind: "malformed", reason: "frame is not valid UTF-8" });
      return;
    }
    let json: unknown;
    try {
      json = JSON.parse(value.text);
    } catch {
      this.#emit({ kind: "malformed", reason: "frame is not JSON", text: value.text });
      return;
    }
    if (!schema) {
      if (typeof (json as { type?: unknown } | null)?.type !== "string") {
        this.#emit({ kind: "malformed", reason: "frame has no type", text: value.text });
      } else this.#emit({ kind: "event", event: json as ServerEvent, text: value.text });
      return;
    }
    const parsed = schema.ServerEvent.safeParse(json);
    if (!parsed.success) {
      this.#emit({
        kind: "malformed",
        reason: `unexpected event: ${schema.describeIssues(parsed.error)}`,
        text: value.text.slice(0, 200),
      });
      return;
    }
    this.#emit({ kind: "event", event: parsed.data, text: value.text });
  }

  #emit(input: ClientInput): void {
    for (const l of [...this.#listeners]) l(input);
  }

  /** Adds a listener; returns a function that removes it. */
  on(listener: ClientListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** A fresh request id, unique for this client. */
  nextRequestId(): string {
    return `c${this.#nextId++}`;
  }

  /** Sends one message, filling `request_id` when absent; resolves with the id used. */
  async send(message: OutgoingMessage): Promise<string> {
    if (this.#closed) throw new Error("Cannot send: the client is closed");
    const request_id = message.request_id ?? this.nextRequestId();
    await this.#writer.write(encodeFrame({ ...message, request_id }, Number.MAX_SAFE_INTEGER));
    return request_id;
  }

  /**
   * Sends a message and waits for the first event of one of `replyTypes` with its request id.
   * Rejects with {@link PeonRequestError} on an `error` for it, or when the input closes.
   */
  async request<T extends ServerEventType>(
    message: OutgoingMessage,
    replyTypes: readonly T[],
  ): Promise<ServerEventOf<T>> {
    const request_id = message.request_id ?? this.nextRequestId();
    if (this.#inputEnded) {
      throw new Error(`Connection closed before a reply to "${message.type}"`);
    }
    let off = () => {};
    const reply = new Promise<ServerEventOf<T>>((resolve, reject) => {
      off = this.on((input) => {
        if (input.kind === "closed") {
          off();
          reject(new Error(`Connection closed before a reply to "${message.type}"`));
          return;
        }
        if (input.kind !== "event") return;
        const ev = input.event;
        if (ev.type === "error" && (ev.request_id === request_id || ev.fatal)) {
          off();
          reject(new PeonRequestError(ev));
        } else if (
          (replyTypes as readonly string[]).includes(ev.type) &&
          (ev as { request_id?: string }).request_id === request_id
        ) {
          off();
          resolve(ev as ServerEventOf<T>);
        }
      });
    });
    // A failed send is the rejection; the reply, which can no longer come, must not be another.
    reply.catch(() => {});
    try {
      await this.send({ ...message, request_id });
    } catch (e) {
      off();
      throw e;
    }
    return await reply;
  }

  /** Sends `initialize` (asking for the optional events in `capabilities`) and waits for `initialized`. */
  initialize(
    capabilities?: { reasoning?: boolean; notices?: boolean },
  ): Promise<ServerEventOf<"initialized">> {
    return this.request({
      type: "initialize",
      protocol_version: PROTOCOL_VERSION,
      client: { name: this.#name, version: this.#version },
      ...(capabilities ? { capabilities } : {}),
    }, ["initialized"]);
  }

  /** Sends `session.start` and waits for `session.started`. */
  startSession(cwd: string, resume?: string): Promise<ServerEventOf<"session.started">> {
    return this.request(
      { type: "session.start", cwd, ...(resume !== undefined ? { resume } : {}) },
      ["session.started"],
    );
  }

  /** Resolves when the input has ended. */
  get closed(): Promise<void> {
    return this.#done;
  }

  /** Closes the output (the server sees EOF) and waits for the input to end. */
  async close(): Promise<void> {
    if (!this.#closed) {
      this.#closed = true;
      await this.#writer.close().catch(() => {});
    }
    await this.#done;
  }

  /** Stops reading at once, without waiting for the server. */
  async abort(): Promise<void> {
    this.#closed = true;
    await this.#writer.abort().catch(() => {});
    await this.#reader.cancel().catch(() => {});
    await this.#done;
  }
}
