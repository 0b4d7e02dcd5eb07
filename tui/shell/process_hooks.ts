/**
 * What the TUI changes in its process while it runs, each undone by disposing what set it up:
 * signal listeners, the catch of stray errors, console output diverted to the log, and the
 * terminal's raw mode.
 *
 * @module
 */
import {
  AUTOWRAP_ON,
  CURSOR_HIDE,
  CURSOR_SHOW,
  FOCUS_OFF,
  FOCUS_ON,
  PASTE_OFF,
  PASTE_ON,
  SYNC_END,
} from "../terminal.ts";
import { errorText } from "../text.ts";
import type { ExitLatch } from "./exit.ts";

const encoder = new TextEncoder();

/** Writes all of `s` to stdout, synchronously (a frame must not interleave with another). */
export function writeAll(s: string): void {
  if (s === "") return;
  let data = encoder.encode(s);
  while (data.length > 0) {
    const n = Deno.stdout.writeSync(data);
    data = data.subarray(n);
  }
}

/** Listens to the signals the TUI handles: a resize redraws, the others end it as 128+n. */
export function listenSignals(exit: ExitLatch, onResize: () => void): Disposable {
  const handlers: Array<[Deno.Signal, () => void]> = [
    ["SIGWINCH", onResize],
    ["SIGINT", () => exit.finish(130)],
    ["SIGTERM", () => exit.finish(143)],
    ["SIGHUP", () => exit.finish(129)],
  ];
  const added: typeof handlers = [];
  for (const [sig, fn] of handlers) {
    try {
      Deno.addSignalListener(sig, fn);
      added.push([sig, fn]);
    } catch {
      // A signal this platform does not have; nothing to listen to.
    }
  }
  return {
    [Symbol.dispose]() {
      for (const [sig, fn] of added) {
        try {
          Deno.removeSignalListener(sig, fn);
        } catch {
          // Already gone.
        }
      }
    },
  };
}

/** An error nobody caught ends the TUI with its message, the terminal restored first. */
export function catchStrayErrors(exit: ExitLatch): Disposable {
  const onRejection = (e: PromiseRejectionEvent) => {
    e.preventDefault();
    exit.finish(1, `scv: internal error: ${errorText(e.reason)}`);
  };
  const onError = (e: ErrorEvent) => {
    e.preventDefault();
    exit.finish(1, `scv: internal error: ${errorText(e.error ?? e.message)}`);
  };
  globalThis.addEventListener("unhandledrejection", onRejection);
  globalThis.addEventListener("error", onError);
  return {
    [Symbol.dispose]() {
      globalThis.removeEventListener("unhandledrejection", onRejection);
      globalThis.removeEventListener("error", onError);
    },
  };
}

/**
 * Nothing may print over the screen while the TUI owns it: stray console output (from any
 * module in this process) goes to `line` instead, until disposed.
 */
export function divertConsole(line: (text: string) => void): Disposable {
  const saved = {
    log: console.log,
    info: console.info,
    warn: console.warn,
    error: console.error,
    debug: console.debug,
  };
  const toLog = (...args: unknown[]) => line(args.map((a) => String(a)).join(" "));
  console.log =
    console.info =
    console.warn =
    console.error =
    console.debug =
      toLog;
  return {
    [Symbol.dispose]() {
      Object.assign(console, saved);
    },
  };
}

/**
 * Leaves raw mode, shows the cursor, disables bracketed paste and focus reporting; safe to call
 * twice.
 */
export function restoreTerminal(): void {
  try {
    writeAll(SYNC_END + AUTOWRAP_ON + PASTE_OFF + FOCUS_OFF + CURSOR_SHOW);
  } catch {
    // stdout is gone.
  }
  try {
    Deno.stdin.setRaw(false);
  } catch {
    // Not a terminal any more.
  }
}

/**
 * Puts the terminal in raw mode with bracketed paste, focus reporting and a hidden cursor. The returned
 * disposable restores it, and is returned before raw mode is tried, so a failure half-way is
 * undone too: the caller registers it first (`stack.use(rawMode(…))` would not run on a throw).
 */
export function rawTerminal(): Disposable & { enter(): void } {
  return {
    enter() {
      Deno.stdin.setRaw(true);
      writeAll(PASTE_ON + FOCUS_ON + CURSOR_HIDE);
    },
    [Symbol.dispose]: restoreTerminal,
  };
}
