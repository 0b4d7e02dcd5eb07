/**
 * A session's sequence numbers. The core owns them (every face numbers a session's events the
 * same way); the Peon writer takes one only when a frame is actually queued.
 *
 * @module
 */

/** Per-session sequence numbers, assigned only when a frame is actually queued. */
export class SeqCounter {
  #last: number;
  /** Starts after `last` (a resumed session's recorded last seq); 0 for a new session. */
  constructor(last = 0) {
    if (!Number.isSafeInteger(last) || last < 0) {
      throw new RangeError(`Cannot start a seq counter at ${last}: it must be a whole number >= 0`);
    }
    this.#last = last;
  }
  /** The last number handed out (0 before the first). */
  get last(): number {
    return this.#last;
  }
  /** The number the next queued frame gets. */
  peek(): number {
    return this.#last + 1;
  }
  /** Takes the next number. */
  take(): number {
    return ++this.#last;
  }
}
