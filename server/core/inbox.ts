/**
 * A session's inbox: the steers waiting for the active turn's next safe point, and the prompts
 * queued behind it (scv 0.3, docs/steering.md). Both are bounded; what is accepted is told to an
 * observer (the session's recorder) so that a crash loses none of it. The inbox knows no wire:
 * the Peon and ACP faces put text in, the agent loop takes steers out, and a face starts the
 * next queued prompt when its active turn ends.
 *
 * @module
 */
import { MAX_QUEUED_PER_SESSION, MAX_STEERS_PER_TURN } from "../../protocol/constants.ts";
import type { ImagePart } from "../images/image_part.ts";

/**
 * The most images that may wait in one session's inbox, steers and queued prompts together:
 * each entry may carry `MAX_ATTACHMENTS`, and they are held in memory until they enter.
 */
export const MAX_WAITING_IMAGES = 32;

/** The most image bytes (as the base64 the history keeps) that may wait in one inbox. */
export const MAX_WAITING_IMAGE_BYTES = 32 * 1024 * 1024;

/** The bounds of the images that wait in an inbox; see {@link MAX_WAITING_IMAGES}. */
export interface InboxLimits {
  /** The most images waiting; default {@link MAX_WAITING_IMAGES}. */
  images: number;
  /** The most base64 bytes of them waiting; default {@link MAX_WAITING_IMAGE_BYTES}. */
  imageBytes: number;
}

/** One steer or queued prompt that waits, as the record and `session.started.queued` hold it. */
export interface Waiting {
  /** The `request_id` of the `turn.steer` or the queued `turn.start`. */
  requestId: string;
  prompt: string;
  kind: "steer" | "queue";
  /**
   * The names of its images. Their bytes are held in memory only: a resumed session starts no
   * waiting entry by itself, and a client that sends one again sends its images with it.
   */
  images?: string[];
}

/**
 * What a session's record said was waiting, as {@link Inbox.recovered} holds it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { recoveredOf } from "./inbox.ts";
 * assert.deepEqual(recoveredOf([{ request_id: "r", prompt: "p", kind: "queue" }]), [
 *   { requestId: "r", prompt: "p", kind: "queue" },
 * ]);
 * ```
 */
export function recoveredOf(
  records: readonly {
    request_id: string;
    prompt: string;
    kind: Waiting["kind"];
    images?: string[];
  }[],
): Waiting[] {
  return records.map((r) => ({
    requestId: r.request_id,
    prompt: r.prompt,
    kind: r.kind,
    ...(r.images?.length ? { images: r.images } : {}),
  }));
}

/** A steer or a queued prompt as the inbox holds it. */
interface Entry {
  readonly requestId: string;
  readonly prompt: string;
  /**
   * Its images (scv 0.3), bounded by {@link InboxLimits}; in memory only, the record keeps
   * their names.
   */
  readonly images?: readonly ImagePart[];
  /**
   * Settles once the client was told it was accepted (`turn.steer.accepted`, `turn.queued`):
   * the face sets it, and the steer enters, or the queued prompt starts, only after it, so the
   * client always hears of the acceptance first. Starts resolved.
   */
  announced: Promise<void>;
}

/** A steer as the agent loop takes it. */
export type Steer = Entry;

/** A queued prompt as a face starts it. */
export type Queued = Entry;

/**
 * Who keeps the inbox durable (the session's recorder). `waiting` resolves once the entry is
 * recorded (the face answers the client after it); `settled` says entries no longer wait
 * (entered the conversation, started, taken back or handed back to the client).
 */
export interface InboxObserver {
  waiting(entry: Waiting): Promise<void>;
  settled(requestIds: readonly string[]): void;
}

/**
 * An accepted entry with its position (from 1), settling `recorded` once it is on disk; or why
 * it was refused (the message of an `invalid_request`).
 */
export type Accepted =
  | { ok: true; entry: Entry; position: number; recorded: Promise<void> }
  | { ok: false; message: string };

/**
 * The inbox of one session; see the module doc.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Inbox } from "./inbox.ts";
 * const inbox = new Inbox();
 * inbox.openTurn("t1");
 * assert(inbox.steer("t1", "s1", "use tabs").ok);
 * assert.deepEqual(inbox.takeSteers("t1").map((s) => s.prompt), ["use tabs"]);
 * assert(inbox.enqueue("q1", "then the docs").ok);
 * assert.deepEqual(inbox.closeTurn("t1"), []);
 * assert.equal(inbox.nextQueued()?.prompt, "then the docs");
 * ```
 */
export class Inbox {
  /** Told of every entry accepted and settled; undefined: nothing is recorded. */
  observer: InboxObserver | undefined;
  /**
   * What a resumed session's record said was waiting when its server stopped: reported by
   * `session.started.queued`, never started, and settled when the session's next turn opens.
   */
  recovered: Waiting[] = [];
  /** The turn that accepts steers; undefined between turns and once a turn is ending. */
  #turnId: string | undefined;
  #steers: Steer[] = [];
  #queue: Queued[] = [];
  #halted = false;
  readonly #limits: InboxLimits;

  /** An empty inbox; `limits` bound the images that wait (defaults for a session). */
  constructor(limits: Partial<InboxLimits> = {}) {
    this.#limits = {
      images: limits.images ?? MAX_WAITING_IMAGES,
      imageBytes: limits.imageBytes ?? MAX_WAITING_IMAGE_BYTES,
    };
  }

  /** The prompts that wait in the queue, next first. */
  get queued(): readonly Queued[] {
    return this.#queue;
  }

  /** Every entry that waits (steers first, then the queue), as a record would list it. */
  get waiting(): Waiting[] {
    const as = (kind: Waiting["kind"]) => (e: Entry): Waiting => waitingOf(e, kind);
    return [...this.#steers.map(as("steer")), ...this.#queue.map(as("queue"))];
  }

  /**
   * A turn starts: it accepts steers until {@link Inbox.closeTurn}. What a crashed run left
   * waiting ({@link Inbox.recovered}) was reported to the client and is settled now.
   */
  openTurn(turnId: string): void {
    this.#turnId = turnId;
    this.#steers = [];
    if (this.recovered.length > 0) {
      const ids = this.recovered.map((w) => w.requestId);
      this.recovered = [];
      this.observer?.settled(ids);
    }
  }

  /**
   * Adds a steer to turn `turnId`; refused when it is not the turn that accepts steers (none
   * runs, or it is ending), when {@link MAX_STEERS_PER_TURN} already wait, or when its images
   * would take the inbox past its {@link InboxLimits}.
   */
  steer(
    turnId: string,
    requestId: string,
    prompt: string,
    images?: readonly ImagePart[],
  ): Accepted {
    if (this.#turnId !== turnId) {
      return {
        ok: false,
        message: `turn "${turnId}" is not running in this session, or is already ending; ` +
          `send the text as a new turn`,
      };
    }
    if (this.#steers.length >= MAX_STEERS_PER_TURN) {
      return {
        ok: false,
        message: `${MAX_STEERS_PER_TURN} steers already wait in turn "${turnId}"; wait for ` +
          `them to enter, or queue the text as a new turn`,
      };
    }
    return this.#accept(this.#steers, requestId, prompt, "steer", images);
  }

  /** Whether steers wait for turn `turnId`. */
  hasSteers(turnId: string): boolean {
    return this.#turnId === turnId && this.#steers.length > 0;
  }

  /** Takes the steers waiting for turn `turnId`, oldest first, at its safe point. */
  takeSteers(turnId: string): Steer[] {
    if (this.#turnId !== turnId || this.#steers.length === 0) return [];
    const taken = this.#steers;
    this.#steers = [];
    this.observer?.settled(taken.map((s) => s.requestId));
    return taken;
  }

  /**
   * Turn `turnId` ends: it accepts no more steers, and the prompts of those still waiting are
   * returned (for `dropped_steers`), oldest first.
   */
  closeTurn(turnId: string): string[] {
    if (this.#turnId !== turnId) return [];
    this.#turnId = undefined;
    const dropped = this.#steers;
    this.#steers = [];
    if (dropped.length > 0) this.observer?.settled(dropped.map((s) => s.requestId));
    return dropped.map((s) => s.prompt);
  }

  /**
   * Queues a prompt behind the active turn; the value is its position, from 1. Refused when
   * {@link MAX_QUEUED_PER_SESSION} already wait, one with this request id does, or its images
   * would take the inbox past its {@link InboxLimits}.
   */
  enqueue(requestId: string, prompt: string, images?: readonly ImagePart[]): Accepted {
    if (this.#queue.length >= MAX_QUEUED_PER_SESSION) {
      return {
        ok: false,
        message: `${MAX_QUEUED_PER_SESSION} prompts already wait in this session's queue; ` +
          `wait for one to start, or take one back with turn.dequeue`,
      };
    }
    if (this.#queue.some((q) => q.requestId === requestId)) {
      return { ok: false, message: `a prompt with this request_id already waits in the queue` };
    }
    return this.#accept(this.#queue, requestId, prompt, "queue", images);
  }

  /** Takes a queued prompt back out; undefined when none with this request id waits. */
  dequeue(requestId: string): string | undefined {
    const i = this.#queue.findIndex((q) => q.requestId === requestId);
    if (i === -1) return undefined;
    const [taken] = this.#queue.splice(i, 1);
    this.observer?.settled([requestId]);
    return taken!.prompt;
  }

  /** The next queued prompt to start, taken out of the queue; undefined when none or halted. */
  nextQueued(): Queued | undefined {
    if (this.#halted) return undefined;
    const next = this.#queue.shift();
    if (next) this.observer?.settled([next.requestId]);
    return next;
  }

  /**
   * Starts no more queued prompts (the connection is closing): they stay waiting, and recorded,
   * so that a resumed session lists them.
   */
  halt(): void {
    this.#halted = true;
  }

  #accept(
    list: Entry[],
    requestId: string,
    prompt: string,
    kind: Waiting["kind"],
    images?: readonly ImagePart[],
  ): Accepted {
    const over = this.#overLimits(images ?? []);
    if (over !== undefined) return { ok: false, message: over };
    const entry: Entry = {
      requestId,
      prompt,
      ...(images && images.length > 0 ? { images } : {}),
      announced: Promise.resolve(),
    };
    list.push(entry);
    const recorded = this.observer?.waiting(waitingOf(entry, kind)) ?? Promise.resolve();
    return { ok: true, entry, position: list.length, recorded };
  }

  /** Why `images` cannot wait besides those waiting already, or undefined when they can. */
  #overLimits(images: readonly ImagePart[]): string | undefined {
    if (images.length === 0) return undefined;
    const waiting = [...this.#steers, ...this.#queue].flatMap((e) => e.images ?? []);
    const count = waiting.length + images.length;
    if (count > this.#limits.images) {
      return `${count} images would wait in this session, over the limit of ` +
        `${this.#limits.images}; wait for the prompts and steers that wait to start, or send ` +
        `fewer images`;
    }
    const bytes = [...waiting, ...images].reduce((n, i) => n + i.data.length, 0);
    if (bytes > this.#limits.imageBytes) {
      return `the images waiting in this session would take ${bytes} bytes as base64, over ` +
        `the limit of ${this.#limits.imageBytes}; wait for the prompts and steers that wait ` +
        `to start, or send smaller images`;
    }
    return undefined;
  }
}

/** An entry as the record lists it: its images by name only. */
function waitingOf(e: Entry, kind: Waiting["kind"]): Waiting {
  return {
    requestId: e.requestId,
    prompt: e.prompt,
    kind,
    ...(e.images?.length ? { images: e.images.map((i) => i.name) } : {}),
  };
}
