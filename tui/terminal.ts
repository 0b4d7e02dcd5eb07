/**
 * The differential writer of the live region. Given the lines drawn last time and the lines to
 * draw now, it produces the escape sequences that rewrite only the changed lines, inside
 * synchronized-output brackets (`CSI ? 2026 h` … `l`), and it writes finished items above the
 * region, once, into the terminal's own scrollback. It never uses the alternate screen.
 *
 * Invariant between updates: the cursor is hidden and parked at column 0 of the region's last
 * line. Lines are never wider than the terminal, so each occupies exactly one row; after a
 * resize the terminal may have reflowed them, which {@link LiveRegion.update} accounts for.
 *
 * @module
 */
import ansiEscapes from "ansi-escapes";
import { displayWidth } from "./text.ts";

/** Begin synchronized output (the terminal holds the frame until the end marker). */
export const SYNC_START = "\x1b[?2026h";
/** End synchronized output. */
export const SYNC_END = "\x1b[?2026l";
/** Enable bracketed paste. */
export const PASTE_ON = "\x1b[?2004h";
/** Disable bracketed paste. */
export const PASTE_OFF = "\x1b[?2004l";

const CLEAR_LINE = ansiEscapes.eraseLine; // CSI 2 K
const CLEAR_DOWN = ansiEscapes.eraseDown; // CSI J

function up(n: number): string {
  return n > 0 ? ansiEscapes.cursorUp(n) : "";
}

function down(n: number): string {
  return n > 0 ? ansiEscapes.cursorDown(n) : "";
}

/** Options of one {@link LiveRegion.update}. */
export interface UpdateOptions {
  /** Lines to write above the live region, into scrollback, before redrawing it. */
  above?: readonly string[];
  /**
   * The terminal was resized to this many columns since the last update: the old region may
   * have been reflowed, so it is erased whole and redrawn.
   */
  resizedTo?: number;
  /** The screen was cleared and the cursor homed; draw from the top. */
  cleared?: boolean;
}

/**
 * Tracks what the live region shows and turns each new frame into a minimal update string.
 *
 * @example
 * ```ts
 * import { LiveRegion } from "./terminal.ts";
 * const r = new LiveRegion();
 * r.update(["a", "b", "c"]);
 * const out = r.update(["a", "B", "c"]);
 * console.assert(out.includes("B") && !out.includes("a") && !out.includes("c"));
 * console.assert(r.update(["a", "B", "c"]) === ""); // nothing changed, nothing written
 * ```
 */
export class LiveRegion {
  #lines: string[] = [];
  #widths: number[] = [];

  /** The lines currently drawn. */
  get lines(): readonly string[] {
    return this.#lines;
  }

  /**
   * Returns the escape string that brings the screen from the previous frame to `next`, with
   * `above` written into scrollback first. Returns "" when nothing changed.
   */
  update(next: readonly string[], options: UpdateOptions = {}): string {
    const above = options.above ?? [];
    const prev = this.#lines;
    let out: string;
    if (options.cleared) {
      out = "\r" + CLEAR_DOWN + this.#full(above, next);
    } else if (above.length > 0 || options.resizedTo !== undefined) {
      const rowsUp = options.resizedTo !== undefined
        ? this.#reflowedRowsAboveCursor(options.resizedTo)
        : Math.max(0, prev.length - 1);
      out = up(rowsUp) + "\r" + CLEAR_DOWN + this.#full(above, next);
    } else {
      out = this.#diff(prev, next);
      if (out === "") return "";
    }
    this.#lines = [...next];
    this.#widths = next.map((l) => displayWidth(l));
    return SYNC_START + out + SYNC_END;
  }

  /** Writes `above` and all of `next` from the current row, which is clear. */
  #full(above: readonly string[], next: readonly string[]): string {
    let out = "";
    for (const line of above) out += line + "\r\n";
    out += next.join("\r\n");
    return out + "\r";
  }

  /** Rows between the region's top and the cursor after the terminal reflowed to `cols`. */
  #reflowedRowsAboveCursor(cols: number): number {
    const c = Math.max(1, cols);
    let rows = 0;
    for (let i = 0; i < this.#lines.length - 1; i++) {
      rows += Math.max(1, Math.ceil(this.#widths[i]! / c));
    }
    return rows;
  }

  #diff(prev: readonly string[], next: readonly string[]): string {
    let first = 0;
    const common = Math.min(prev.length, next.length);
    while (first < common && prev[first] === next[first]) first++;
    if (first === common && prev.length === next.length) return "";
    let out = "";
    let row = Math.max(0, prev.length - 1); // the cursor's row within the region
    const drawn = Math.max(prev.length, 1); // rows that exist on screen (row 0 always does)
    const moveTo = (target: number) => {
      if (target < row) out += up(row - target);
      else if (target > row) {
        const existing = Math.min(target, drawn - 1);
        if (existing > row) out += down(existing - row);
        // Rows past the drawn region are created with newlines, which scroll when needed.
        for (let r = Math.max(row, drawn - 1); r < target; r++) out += "\r\n";
      }
      row = target;
    };
    for (let i = first; i < next.length; i++) {
      if (i < prev.length && prev[i] === next[i]) continue;
      moveTo(i);
      out += "\r" + CLEAR_LINE + next[i];
    }
    if (next.length < prev.length) {
      // Erase the rows the region no longer uses.
      moveTo(next.length);
      out += "\r" + CLEAR_DOWN;
      if (next.length === 0) return out;
    }
    moveTo(Math.max(0, next.length - 1));
    return out + "\r";
  }

  /** Erases the live region and leaves the cursor where it started; the region is empty. */
  erase(): string {
    const out = up(Math.max(0, this.#lines.length - 1)) + "\r" + CLEAR_DOWN;
    this.#lines = [];
    this.#widths = [];
    return out;
  }

  /** Forgets what is drawn (after the screen was cleared by other means). */
  reset(): void {
    this.#lines = [];
    this.#widths = [];
  }
}

/** The sequence that clears the visible screen (not the scrollback) and homes the cursor. */
export const CLEAR_SCREEN = ansiEscapes.eraseScreen + ansiEscapes.cursorTo(0, 0);
/** Hide the cursor. */
export const CURSOR_HIDE = ansiEscapes.cursorHide;
/** Show the cursor. */
export const CURSOR_SHOW = ansiEscapes.cursorShow;
