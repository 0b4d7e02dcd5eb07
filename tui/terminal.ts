/**
 * The differential writer of the live region. Given the lines drawn last time and the lines to
 * draw now, it produces the escape sequences that rewrite only the changed lines, inside
 * synchronized-output brackets (`CSI ? 2026 h` … `l`), and it writes finished items above the
 * region, once, into the terminal's own scrollback. It never uses the alternate screen.
 *
 * Layout: the region is anchored to the bottom rows of the screen; finished lines are written
 * above it and scroll up into the terminal's scrollback. Between the last finished line and
 * the region there may be a gap of blank rows (at start-up, or after the region shrank), which
 * the next finished lines fill first. The cursor is hidden and parked at column 0 of the last
 * row; every move is absolute.
 *
 * Why anchor at the bottom: on a resize, terminals that reflow (tmux, kitty, iTerm2, VTE)
 * re-wrap lines and keep the bottom of the screen in place when nothing but the region lies
 * below the older text. The old region, however re-wrapped, then occupies a known number of
 * bottom rows and is erased whole; nothing of it is pushed into scrollback. The region is
 * drawn with autowrap off, so a frame that reaches the terminal just after it shrank (before
 * the resize is seen) cuts its long lines instead of wrapping them.
 *
 * @module
 */
import ansiEscapes from "ansi-escapes";
import { displayWidth } from "./text.ts";

/** Begin synchronized output (the terminal holds the frame until the end marker). */
export const SYNC_START = "\x1b[?2026h";
/** End synchronized output. */
export const SYNC_END = "\x1b[?2026l";
/** Disable autowrap: a line too wide for the terminal is cut at the margin, never wrapped. */
export const AUTOWRAP_OFF = "\x1b[?7l";
/** Enable autowrap (the terminal's default). */
export const AUTOWRAP_ON = "\x1b[?7h";
/** Enable bracketed paste. */
export const PASTE_ON = "\x1b[?2004h";
/** Disable bracketed paste. */
export const PASTE_OFF = "\x1b[?2004l";
/** The sequence that clears the visible screen (not the scrollback) and homes the cursor. */
export const CLEAR_SCREEN = ansiEscapes.eraseScreen + ansiEscapes.cursorTo(0, 0);
/** Hide the cursor. */
export const CURSOR_HIDE = ansiEscapes.cursorHide;
/** Show the cursor. */
export const CURSOR_SHOW = ansiEscapes.cursorShow;

const CLEAR_LINE = ansiEscapes.eraseLine; // CSI 2 K
const CLEAR_DOWN = ansiEscapes.eraseDown; // CSI J

/** Moves to column 0 of a 0-based row. */
function row(r: number): string {
  return `\x1b[${r + 1};1H`;
}

/** The terminal size a frame is drawn for. */
export interface TerminalSize {
  rows: number;
  cols: number;
}

/** Options of one {@link LiveRegion.update}. */
export interface UpdateOptions {
  /** Lines to write above the live region, into scrollback, before redrawing it. */
  above?: readonly string[];
  /** The screen was just cleared and the cursor homed: draw from the top. */
  cleared?: boolean;
}

/**
 * Tracks what the live region shows and turns each new frame into a minimal update string.
 * A change of size between two frames is handled as a resize.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { LiveRegion } from "./terminal.ts";
 * const r = new LiveRegion();
 * const size = { rows: 10, cols: 20 };
 * r.update(["a", "b", "c"], size);
 * const out = r.update(["a", "B", "c"], size);
 * assert(out.includes("B") && !out.includes("a") && !out.includes("c"));
 * assert(r.update(["a", "B", "c"], size) === ""); // nothing changed, nothing written
 * ```
 */
export class LiveRegion {
  #lines: string[] = [];
  #widths: number[] = [];
  #size: TerminalSize | undefined;
  /** First blank row above the region that finished lines may use (the region's top if none). */
  #gapTop = 0;

  /** The lines currently drawn. */
  get lines(): readonly string[] {
    return this.#lines;
  }

  /** The row where the next finished line will be written. */
  get gapTop(): number {
    return this.#gapTop;
  }

  /**
   * Returns the escape string that brings the screen from the previous frame to `next`, with
   * `above` written into scrollback first. Returns "" when nothing changed.
   */
  update(next: readonly string[], size: TerminalSize, options: UpdateOptions = {}): string {
    const rows = Math.max(2, size.rows);
    const lines = next.length > rows - 1 ? next.slice(next.length - (rows - 1)) : [...next];
    const above = options.above ?? [];
    const prev = this.#lines;
    const old = this.#size;
    let out: string;
    if (options.cleared) {
      out = this.#writeFrom(0, above, lines, rows);
    } else if (old === undefined) {
      // First frame: the cursor is at the start of a fresh line. Scroll so that line is the
      // screen's second row (the command that started us stays visible on the first).
      out = "\r" + "\n".repeat(Math.max(0, rows - 2)) + this.#writeFrom(1, above, lines, rows);
    } else if (old.rows !== rows || old.cols !== size.cols) {
      // Resized: the old region sits at the bottom, re-wrapped by the terminal if it reflows.
      // Terminals treat blank rows differently on resize, so the gap above it is given up.
      let height = 0;
      for (const w of this.#widths) height += Math.max(1, Math.ceil(w / Math.max(1, size.cols)));
      out = this.#writeFrom(Math.max(0, rows - height), above, lines, rows);
    } else if (above.length > 0) {
      out = this.#writeFrom(this.#gapTop, above, lines, rows);
    } else if (lines.length !== prev.length) {
      out = this.#resizeRegion(prev.length, lines, rows);
    } else {
      out = this.#diff(prev, lines, rows);
      if (out === "") return "";
    }
    this.#lines = lines;
    this.#widths = lines.map((l) => displayWidth(l));
    this.#size = { rows, cols: size.cols };
    return SYNC_START + out + row(rows - 1) + SYNC_END;
  }

  /**
   * Clears from row `start` down, writes `above` there and the region at the bottom. Lines that
   * do not fit scroll the screen, pushing the oldest into scrollback.
   */
  #writeFrom(start: number, above: readonly string[], lines: string[], rows: number): string {
    let out = row(start) + CLEAR_DOWN;
    for (const line of above) out += line + "\r\n";
    const space = rows - start;
    if (above.length + lines.length >= space) {
      this.#gapTop = rows - lines.length;
      if (lines.length === 0) return out;
      return out + AUTOWRAP_OFF + lines.join("\r\n") + AUTOWRAP_ON;
    }
    this.#gapTop = start + above.length;
    if (lines.length === 0) return out;
    return out + row(rows - lines.length) + AUTOWRAP_OFF + lines.join("\r\n") + AUTOWRAP_ON;
  }

  /** Redraws a region whose height changed, growing into the gap or scrolling for room. */
  #resizeRegion(prevCount: number, lines: string[], rows: number): string {
    const oldTop = rows - prevCount;
    const newTop = rows - lines.length;
    let out = "";
    if (newTop < this.#gapTop) {
      // Not enough blank rows above: scroll the screen up by the missing rows.
      out += row(rows - 1) + "\n".repeat(this.#gapTop - newTop);
      this.#gapTop = newTop;
      out += row(newTop) + CLEAR_DOWN;
    } else {
      out += row(Math.min(oldTop, newTop)) + CLEAR_DOWN;
    }
    if (lines.length === 0) return out;
    return out + row(newTop) + AUTOWRAP_OFF + lines.join("\r\n") + AUTOWRAP_ON;
  }

  /** Rewrites only the lines that differ; both frames have the same height. */
  #diff(prev: readonly string[], next: readonly string[], rows: number): string {
    const top = rows - next.length;
    let out = "";
    for (let i = 0; i < next.length; i++) {
      if (prev[i] === next[i]) continue;
      out += row(top + i) + CLEAR_LINE + next[i];
    }
    return out === "" ? "" : AUTOWRAP_OFF + out + AUTOWRAP_ON;
  }

  /**
   * Erases the live region and any gap, leaving the cursor just below the last finished line,
   * where a shell prompt can follow.
   */
  erase(): string {
    const out = this.#size ? row(this.#gapTop) + CLEAR_DOWN : "\r" + CLEAR_DOWN;
    this.#lines = [];
    this.#widths = [];
    return out;
  }
}
