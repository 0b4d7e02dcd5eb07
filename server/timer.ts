/**
 * Delayed calls without the global `setTimeout`. Since Deno 2.8 the global timers are
 * `node:timers`'; the first call in a process loads Deno's Node timers layer, 7-19 ms measured
 * here, and on the path of `scv exec`'s text turn that was a tenth of its start
 * (docs/performance.md). `AbortSignal.timeout` runs on Deno's own web timers, already loaded.
 *
 * A timeout signal cannot be cancelled: it stays in Deno's timer queue until its time. One per
 * call would keep every cancelled call's signal alive for its whole delay (a 5,000-turn soak grew
 * by 10 MiB with a tool call's 120 s bound each turn). So the calls wait in one queue, a heap by
 * deadline, and the queue listens on one signal, due no later than its earliest call (a signal is
 * made for a whole number of milliseconds, rounded down, so it is never due after its call). A
 * signal that turns out to be due too late for a newer, earlier call is kept aside and reused for
 * a later call it is early enough for; a new signal is made only when none kept is early enough,
 * so each new one is due before all those kept. A caller whose deadlines keep moving earlier
 * still makes one signal a call; the queue keeps at most {@link MAX_SPARE} of them aside, so that
 * its own work per call stays bounded.
 *
 * Calls due at one wake-up run one after another in one task (no microtask checkpoint between
 * them, unlike `setTimeout`'s); a call made while they run waits for a later wake-up, so a call
 * that makes another `after(0)` each time it runs never holds the event loop.
 *
 * A pending call keeps the process alive, as `setTimeout`'s does: Deno refs a timeout signal's
 * timer while the signal has an abort listener, and the queue's signal has one exactly while a
 * call waits (tests/server/timer_test.ts shows both sides).
 *
 * @module
 */

/** The longest delay a timer holds (`setTimeout`'s limit; past it, it would fire at once). */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** A call that {@link after} will make; `cancel()` stops it if it has not run yet. */
export interface Timer {
  /** Stops the call if it has not run; a second cancel, or one after it ran, does nothing. */
  cancel(): void;
}

interface Entry {
  at: number;
  seq: number;
  run: () => void;
  /** Its place in the heap; -1 once it ran or was cancelled. */
  index: number;
}

interface Wake {
  at: number;
  signal: AbortSignal;
}

/** The most signals kept aside for reuse; past it the oldest is forgotten (it still comes due). */
export const MAX_SPARE = 32;

const heap: Entry[] = [];
let seq = 0;
/** The signal the queue listens on, due no later than `heap[0]` (when it is not empty). */
let wake: Wake | undefined;
/** Signals made earlier and not yet due, with no listener (so they hold no process open). */
let spare: Wake[] = [];

const before = (a: Entry, b: Entry) => a.at < b.at || (a.at === b.at && a.seq < b.seq);

function place(e: Entry, i: number): void {
  heap[i] = e;
  e.index = i;
}

function siftUp(i: number): void {
  const e = heap[i]!;
  while (i > 0) {
    const parent = (i - 1) >> 1;
    if (!before(e, heap[parent]!)) break;
    place(heap[parent]!, i);
    i = parent;
  }
  place(e, i);
}

function siftDown(i: number): void {
  const e = heap[i]!;
  for (;;) {
    const l = 2 * i + 1;
    if (l >= heap.length) break;
    const r = l + 1;
    const c = r < heap.length && before(heap[r]!, heap[l]!) ? r : l;
    if (!before(heap[c]!, e)) break;
    place(heap[c]!, i);
    i = c;
  }
  place(e, i);
}

function remove(e: Entry): void {
  const i = e.index;
  e.index = -1;
  const last = heap.pop()!;
  if (last === e) return;
  place(last, i);
  siftUp(i);
  siftDown(last.index);
}

function onWake(): void {
  wake = undefined;
  // Timers fire on whole milliseconds: a call due within the next one is due now.
  const now = performance.now() + 1;
  // Only the calls made before this wake-up: one a call makes waits for the next.
  const made = seq;
  const errors: unknown[] = [];
  while (heap.length > 0 && heap[0]!.at <= now && heap[0]!.seq < made) {
    const e = heap[0]!;
    remove(e);
    try {
      e.run();
    } catch (err) {
      errors.push(err);
    }
  }
  arm();
  // As a throwing setTimeout callback does: reported as uncaught, after the queue is sound.
  for (const err of errors) reportError(err);
}

/** Makes the queue listen on a signal due no later than its earliest call (none when empty). */
function arm(): void {
  const next = heap[0];
  if (wake && (next === undefined || wake.at > next.at)) {
    wake.signal.removeEventListener("abort", onWake);
    if (!wake.signal.aborted) spare.push(wake);
    if (spare.length > MAX_SPARE) spare.shift();
    wake = undefined;
  }
  if (next === undefined || wake) return;
  spare = spare.filter((s) => !s.signal.aborted);
  let best: Wake | undefined;
  for (const s of spare) if (s.at <= next.at && (best === undefined || s.at > best.at)) best = s;
  if (best) {
    spare = spare.filter((s) => s !== best);
  } else {
    // Rounded down, so that it is due no later than the call (onWake runs what is due within
    // the next millisecond); rounded up, a kept signal never fitted the call it was made for.
    const now = performance.now();
    const delay = Math.max(0, Math.floor(next.at - now));
    best = { at: now + delay, signal: AbortSignal.timeout(delay) };
  }
  wake = best;
  wake.signal.addEventListener("abort", onWake, { once: true });
}

/**
 * Calls `run` once after `ms` milliseconds (clamped to 0..{@link MAX_TIMER_MS}; not a number
 * is 0).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { after } from "./timer.ts";
 * let ran = false;
 * const t = after(60_000, () => ran = true);
 * t.cancel();
 * await new Promise<void>((r) => after(1, r));
 * assert.equal(ran, false);
 * ```
 */
export function after(ms: number, run: () => void): Timer {
  const delay = Number.isNaN(ms) ? 0 : Math.min(Math.max(0, Math.floor(ms)), MAX_TIMER_MS);
  const e: Entry = { at: performance.now() + delay, seq: seq++, run, index: heap.length };
  heap.push(e);
  siftUp(e.index);
  if (heap[0] === e) arm();
  return {
    cancel: () => {
      if (e.index < 0) return;
      const first = heap[0] === e;
      remove(e);
      if (first) arm();
    },
  };
}

/** Waits `ms` (as {@link after}), or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = after(ms, () => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    });
    const onAbort = () => {
      t.cancel();
      reject(signal!.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Whether `promise` resolves within `ms`: true when it does, false once the time is up (it goes
 * on unwatched); a rejection before then rejects. The timer ends with the answer, so a bound
 * that was not needed holds no process open.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { within } from "./timer.ts";
 * assert.equal(await within(Promise.resolve(), 60_000), true);
 * assert.equal(await within(new Promise(() => {}), 1), false);
 * ```
 */
export async function within(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: Timer | undefined;
  try {
    return await Promise.race([
      promise.then(() => true),
      new Promise<boolean>((r) => (timer = after(ms, () => r(false)))),
    ]);
  } finally {
    timer?.cancel();
  }
}

/**
 * The queue's counts, for tests and benchmarks: the calls waiting, and the timeout signals it
 * made that are not yet due (the one it listens on and those kept aside).
 */
export function timerStats(): { pending: number; signals: number } {
  spare = spare.filter((s) => !s.signal.aborted);
  return { pending: heap.length, signals: spare.length + (wake ? 1 : 0) };
}
