/**
 * The `provider_timeout_ms` clock of one provider request: an abort signal that fires when no
 * byte arrived for the timeout, or when the caller's signal aborts.
 *
 * @module
 */
import { after, type Timer } from "../timer.ts";

/**
 * An abort signal for "nothing received for `ms`". Activity only moves a timestamp (one timer,
 * re-armed when it fires), so a stream of thousands of chunks costs no timer churn. While paused
 * (the consumer is busy with an event) the clock does not run: a slow client is not a silent
 * provider.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { IdleTimer } from "./idle_timer.ts";
 * const t = new IdleTimer(60_000, new AbortController().signal);
 * t.touch();
 * assert.equal(t.signal.aborted, false);
 * t.stop();
 * ```
 */
export class IdleTimer {
  #controller = new AbortController();
  #timer: Timer | undefined;
  #ms: number;
  #parent: AbortSignal;
  #onParent = () => this.#controller.abort(this.#parent.reason);
  #paused = false;
  #last = Date.now();
  #stopped = false;
  /** Whether the timeout (not the parent) aborted the signal. */
  fired = false;

  /** Starts the clock; `parent` aborting aborts this signal with the same reason. */
  constructor(ms: number, parent: AbortSignal) {
    this.#ms = ms;
    this.#parent = parent;
    if (parent.aborted) this.#controller.abort(parent.reason);
    else parent.addEventListener("abort", this.#onParent, { once: true });
    this.#arm(ms);
  }

  /** Aborts on idle timeout or when the parent aborts. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  #arm(ms: number): void {
    this.#timer = after(ms, () => {
      this.#timer = undefined;
      if (this.#stopped) return;
      const idle = Date.now() - this.#last;
      if (this.#paused || idle < this.#ms) {
        this.#arm(this.#paused ? this.#ms : this.#ms - idle);
        return;
      }
      this.fired = true;
      this.#controller.abort(new DOMException("provider idle timeout", "TimeoutError"));
    });
  }

  /** Something arrived. */
  touch(): void {
    this.#last = Date.now();
  }

  /** The consumer is busy: the clock stops. */
  pause(): void {
    this.#paused = true;
  }

  /** The consumer is back: the clock restarts from now. */
  resume(): void {
    this.#paused = false;
    this.#last = Date.now();
  }

  /** Ends the clock and detaches from the parent signal. */
  stop(): void {
    this.#stopped = true;
    this.#timer?.cancel();
    this.#timer = undefined;
    this.#parent.removeEventListener("abort", this.#onParent);
  }
}
