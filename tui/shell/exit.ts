/**
 * How the TUI's shell decides to end: the first {@link ExitLatch.finish} wins, later ones are
 * ignored, and every part checks {@link ExitLatch.exiting} before doing more.
 *
 * @module
 */

/** Why the TUI ends: its exit status and a message for stderr after the terminal is restored. */
export interface Outcome {
  status: number;
  message?: string | undefined;
}

/**
 * A one-shot latch for the TUI's exit.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ExitLatch } from "./exit.ts";
 * const exit = new ExitLatch();
 * exit.finish(0);
 * exit.finish(1, "too late");
 * assert.deepEqual(await exit.done, { status: 0, message: undefined });
 * ```
 */
export class ExitLatch {
  #exiting = false;
  #resolve!: (o: Outcome) => void;
  /** Resolves with the first outcome given to {@link finish}. */
  readonly done: Promise<Outcome> = new Promise((r) => {
    this.#resolve = r;
  });

  /** True once an exit was decided (or the shell is cleaning up). */
  get exiting(): boolean {
    return this.#exiting;
  }

  /** Decides the exit, unless one was decided already. */
  finish(status: number, message?: string): void {
    if (this.#exiting) return;
    this.#exiting = true;
    this.#resolve({ status, message });
  }

  /** Marks the shell as ending without deciding an outcome (cleanup has begun). */
  stop(): void {
    this.#exiting = true;
  }
}
