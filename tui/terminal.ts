/**
 * The differential writer of the live region. Given the lines drawn last time and the lines to
 * draw now, it produces the escape sequences that rewrite only the changed lines, inside
 * synchronized-output brackets (`CSI ? 2026 h` … `l`), and it writes finished items above the
 * region, once, into the terminal's own scrollback. It never uses the alternate screen.
 *
 * Layout: the region is anchored to the bottom rows of the screen; finished lines are written
 * above it and scroll up into the terminal's scrollback. Between the last finished line and
 * the region there may be a gap of blank rows (at start-up, or after the region shrank), which
 * the next finished lines fill first. The cursor is hidden and parked at column 0 of the first
 * row below the last finished line (the top of the gap, or of the region when there is none):
 * everything from the cursor down is the region's, nothing above it is.
 *
 * Why park the cursor there: terminals keep the cursor on its line of text through a resize.
 * When the screen gets shorter, tmux and xterm first drop the rows below the cursor and only
 * then push rows from the top into scrollback, so the region is cut from its bottom, never
 * pushed into scrollback; when it gets taller, rows come back from scrollback above the
 * cursor; when the width changes, the text re-wraps around it. However the old region was
 * moved, cut or re-wrapped, it lies from the cursor down, and the next frame erases it from
 * there. Moves to the region's rows are absolute (it is at the bottom); the cursor's own row
 * is never assumed, only saved and restored (`ESC 7` / `ESC 8`). One case is out of reach:
 * when a narrower width re-wraps the region into more rows than the screen has, tmux keeps
 * the last rows on screen and moves the first ones, with the cursor's line, into scrollback
 * before the program learns of the resize; those rows of the old region stay there.
 *
 * No sequence written clears the whole screen: from the top-left corner, `CSI J` is taken by
 * tmux (`scroll-on-clear`, on by default) and other terminals as "clear screen", and the whole
 * screen, live region included, is pushed into scrollback. Erasing starts with the cursor's
 * own row (`CSI 2 K`) and goes on from the row below. The region is drawn with autowrap off,
 * so a frame that reaches the terminal just after it shrank (before the resize is seen) cuts
 * its long lines instead of wrapping them.
 *
 * @module
 */
import ansiEscapes from "ansi-escapes";

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
/** Turns focus reporting on: the terminal sends `CSI I` and `CSI O` (scv 0.3 notifications). */
export const FOCUS_ON = "\x1b[?1004h";
/** Turns focus reporting off. */
export const FOCUS_OFF = "\x1b[?1004l";
/** Hide the cursor. */
export const CURSOR_HIDE = ansiEscapes.cursorHide;
/** Show the cursor. */
export const CURSOR_SHOW = ansiEscapes.cursorShow;

const CLEAR_LINE = ansiEscapes.eraseLine; // CSI 2 K
const CLEAR_DOWN = ansiEscapes.eraseDown; // CSI J
const SAVE = "\x1b7"; // DECSC
const RESTORE = "\x1b8"; // DECRC

/** Moves to column 0 of a 0-based row. */
function row(r: number): string {
  return `\x1b[${r + 1};1H`;
}

/**
 * Erases from the cursor's row to the end of the screen and leaves the cursor at column 0 of
 * that row. The row is erased on its own and the rest from the row below, so that even at the
 * top-left corner this is never taken for a whole-screen clear.
 */
const ERASE_FROM_CURSOR = "\r" + CLEAR_LINE + SAVE + "\x1b[B" + CLEAR_DOWN + RESTORE;

/** The terminal size a frame is drawn for. */
export interface TerminalSize {
  rows: number;
  cols: number;
}

/** Options of one {@link LiveRegion.update}. */
export interface UpdateOptions {
  /** Lines to write above the live region, into scrollback, before redrawing it. */
  above?: readonly string[];
  /**
   * Start afresh on a clear screen: the region is erased, the finished lines on the screen are
   * scrolled into scrollback (kept there, once), and `above` is written from the top row.
   */
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
  #size: TerminalSize | undefined;

  /** The lines currently drawn. */
  get lines(): readonly string[] {
    return this.#lines;
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
    if (
      !options.cleared && above.length === 0 && old !== undefined && old.rows === rows &&
      old.cols === size.cols && lines.length === prev.length
    ) {
      out = this.#diff(prev, lines, rows);
      if (out === "") return "";
    } else {
      out = this.#redraw(above, lines, rows, options.cleared === true);
    }
    this.#lines = lines;
    this.#size = { rows, cols: size.cols };
    return SYNC_START + out + SYNC_END;
  }

  /**
   * Erases the region from the cursor down (wherever a resize moved it), writes `above` there,
   * makes room for the region below the cursor and draws it at the bottom.
   */
  #redraw(above: readonly string[], lines: string[], rows: number, cleared: boolean): string {
    let out = ERASE_FROM_CURSOR;
    // Scroll the finished lines on the screen into scrollback: from the cursor, rows - 1 line
    // feeds reach the last row and then scroll by exactly the rows above the cursor.
    if (cleared) out += "\n".repeat(rows - 1) + row(0);
    for (const line of above) out += line + "\r\n";
    if (lines.length === 0) return out;
    // Room for the region: line feeds scroll the screen only when fewer rows than the region
    // are left below the cursor; coming back up leaves the cursor on the region's first row or
    // above it.
    const k = lines.length - 1;
    if (k > 0) out += "\n".repeat(k) + `\x1b[${k}A`;
    return out + SAVE + this.#draw(lines, rows, (i) => lines[i] !== undefined) + RESTORE;
  }

  /** Rewrites only the lines that differ; both frames have the same height. */
  #diff(prev: readonly string[], next: string[], rows: number): string {
    const changed = (i: number) => prev[i] !== next[i];
    if (!next.some((_, i) => changed(i))) return "";
    return SAVE + this.#draw(next, rows, changed) + RESTORE;
  }

  /** Draws the lines `which` selects at their rows at the bottom of the screen. */
  #draw(lines: string[], rows: number, which: (i: number) => boolean): string {
    const top = rows - lines.length;
    let out = AUTOWRAP_OFF;
    lines.forEach((line, i) => {
      if (which(i)) out += row(top + i) + CLEAR_LINE + line;
    });
    return out + AUTOWRAP_ON;
  }

  /**
   * Erases the live region and any gap, leaving the cursor just below the last finished line,
   * where a shell prompt can follow.
   */
  erase(): string {
    this.#lines = [];
    return ERASE_FROM_CURSOR;
  }
}
