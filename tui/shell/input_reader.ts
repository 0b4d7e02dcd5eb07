/**
 * The shell's input reader: terminal bytes to key events, with a lone Escape told apart from
 * the start of an escape sequence by a short timeout.
 *
 * @module
 */
import { type KeyEvent, KeyParser } from "../keys.ts";
import { errorText } from "../text.ts";
import type { ExitLatch } from "./exit.ts";

/** How long a lone ESC waits for the rest of a sequence before it counts as Escape. */
export const ESC_TIMEOUT_MS = 40;

/** Options of {@link InputReader}. */
export interface InputReaderOptions {
  /** Where bytes come from (the terminal's stdin). */
  input: { read(buf: Uint8Array): Promise<number | null> };
  exit: ExitLatch;
  /** Called with each batch of key events parsed from one read. */
  onKeys: (events: KeyEvent[]) => void;
}

/** Reads the terminal until EOF (exit 0), a read error (exit 1) or the exit. */
export class InputReader implements Disposable {
  #o: InputReaderOptions;
  #parser = new KeyParser();
  #escTimer: ReturnType<typeof setTimeout> | undefined;

  /** A reader over `options`; {@link start} begins reading. */
  constructor(options: InputReaderOptions) {
    this.#o = options;
  }

  #deliver(events: KeyEvent[]): void {
    if (events.length > 0) this.#o.onKeys(events);
  }

  /** Starts the read loop in the background. */
  start(): void {
    void this.#loop();
  }

  async #loop(): Promise<void> {
    const { exit } = this.#o;
    const buf = new Uint8Array(64 * 1024);
    while (!exit.exiting) {
      let n: number | null;
      try {
        n = await this.#o.input.read(buf);
      } catch (e) {
        if (!exit.exiting) exit.finish(1, `scv: cannot read the terminal: ${errorText(e)}`);
        return;
      }
      if (n === null) {
        exit.finish(0);
        return;
      }
      if (this.#escTimer !== undefined) clearTimeout(this.#escTimer);
      this.#escTimer = undefined;
      this.#deliver(this.#parser.feed(buf.subarray(0, n)));
      if (this.#parser.pending) {
        this.#escTimer = setTimeout(() => {
          this.#escTimer = undefined;
          this.#deliver(this.#parser.flush());
        }, ESC_TIMEOUT_MS);
      }
    }
  }

  /** Drops a pending Escape timer. */
  [Symbol.dispose](): void {
    if (this.#escTimer !== undefined) clearTimeout(this.#escTimer);
    this.#escTimer = undefined;
  }
}
