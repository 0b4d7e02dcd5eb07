/**
 * A tiny terminal emulator for tests: enough of VT100/xterm to replay what the TUI writes
 * (printing with autowrap, CR, LF with scrolling into scrollback, cursor up/down/position,
 * erase line/screen, SGR and private modes ignored) and read back the screen as text.
 *
 * @module
 */
import stringWidth from "string-width";

const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });

/** A virtual terminal of fixed size. */
export class VirtualTerminal {
  rows: number;
  cols: number;
  screen: string[][];
  scrollback: string[] = [];
  row = 0;
  col = 0;
  /** Count of `CSI ? 2026 h` minus `l`; 0 when every frame was closed. */
  syncDepth = 0;
  /** Number of frames opened with `CSI ? 2026 h`. */
  frames = 0;
  #pendingWrap = false;
  /** DECAWM: when false, printing at the right margin overwrites the last column. */
  autowrap = true;
  /**
   * Like tmux's `scroll-on-clear` (on by default there): erasing the whole screen (`CSI 2 J`,
   * or `CSI J` from the top-left corner) first pushes its rows, up to the last non-blank one,
   * into scrollback.
   */
  scrollOnClear = false;
  /** Number of whole-screen clears seen. */
  screenClears = 0;
  #saved: [number, number] = [0, 0];

  constructor(cols: number, rows: number) {
    this.cols = cols;
    this.rows = rows;
    this.screen = Array.from({ length: rows }, () => this.#blank());
  }

  #blank(): string[] {
    return Array.from({ length: this.cols }, () => " ");
  }

  #lineFeed(): void {
    if (this.row === this.rows - 1) {
      this.scrollback.push(this.#rowText(this.screen.shift()!));
      this.screen.push(this.#blank());
    } else {
      this.row++;
    }
  }

  #rowText(cells: string[]): string {
    return cells.join("").replace(/\s+$/, "");
  }

  /** Feeds output bytes (as a string). */
  write(data: string): void {
    let i = 0;
    while (i < data.length) {
      const ch = data[i]!;
      if (ch === "\x1b") {
        // deno-lint-ignore no-control-regex -- parsing escape sequences is the point
        const m = /^\x1b\[([?]?)([0-9;]*)([ -\/]*)([@-~])/.exec(data.slice(i, i + 64));
        if (!m) {
          if (data[i + 1] === "7") this.#saved = [this.row, this.col];
          if (data[i + 1] === "8") {
            [this.row, this.col] = [
              Math.min(this.rows - 1, this.#saved[0]),
              Math.min(this.cols - 1, this.#saved[1]),
            ];
            this.#pendingWrap = false;
          }
          i += 2; // ESC + one char: save and restore the cursor, others ignored
          continue;
        }
        this.#csi(m[1]!, m[2]!, m[4]!);
        i += m[0].length;
        continue;
      }
      if (ch === "\r") {
        this.col = 0;
        this.#pendingWrap = false;
        i++;
        continue;
      }
      if (ch === "\n") {
        this.#lineFeed();
        this.#pendingWrap = false;
        i++;
        continue;
      }
      const seg = segmenter.segment(data.slice(i, i + 16))[Symbol.iterator]().next();
      const g = seg.done ? ch : seg.value.segment;
      i += g.length;
      if (g.charCodeAt(0) < 0x20) continue;
      const w = Math.max(1, stringWidth(g));
      if (this.#pendingWrap || this.col + w > this.cols) {
        if (!this.autowrap) {
          this.#pendingWrap = false;
          this.col = this.cols - w;
        } else {
          this.col = 0;
          this.#lineFeed();
          this.#pendingWrap = false;
        }
      }
      this.screen[this.row]![this.col] = g;
      if (w === 2 && this.col + 1 < this.cols) this.screen[this.row]![this.col + 1] = "";
      this.col += w;
      if (this.col >= this.cols) {
        this.col = this.cols - 1;
        this.#pendingWrap = true;
      }
    }
  }

  #csi(priv: string, params: string, final: string): void {
    const nums = params.split(";").map((p) => (p === "" ? undefined : Number(p)));
    const n = nums[0] ?? 1;
    if (priv === "?") {
      if (params === "7") this.autowrap = final === "h";
      if (params === "2026" && final === "h") {
        this.syncDepth++;
        this.frames++;
      }
      if (params === "2026" && final === "l") this.syncDepth--;
      return;
    }
    this.#pendingWrap = false;
    switch (final) {
      case "A":
        this.row = Math.max(0, this.row - n);
        break;
      case "B":
        this.row = Math.min(this.rows - 1, this.row + n);
        break;
      case "C":
        this.col = Math.min(this.cols - 1, this.col + n);
        break;
      case "D":
        this.col = Math.max(0, this.col - n);
        break;
      case "G":
        this.col = Math.min(this.cols - 1, n - 1);
        break;
      case "H":
        this.row = Math.min(this.rows - 1, (nums[0] ?? 1) - 1);
        this.col = Math.min(this.cols - 1, (nums[1] ?? 1) - 1);
        break;
      case "J": {
        const mode = nums[0] ?? 0;
        if (mode === 2 || (mode === 0 && this.row === 0 && this.col === 0)) {
          this.screenClears++;
          if (this.scrollOnClear) {
            const text = this.lines();
            while (text.length > 0 && text[text.length - 1] === "") text.pop();
            this.scrollback.push(...text);
          }
        }
        if (mode === 2 || mode === 3) {
          this.screen = Array.from({ length: this.rows }, () => this.#blank());
        } else if (mode === 0) {
          for (let c = this.col; c < this.cols; c++) this.screen[this.row]![c] = " ";
          for (let r = this.row + 1; r < this.rows; r++) this.screen[r] = this.#blank();
        }
        break;
      }
      case "K": {
        const mode = nums[0] ?? 0;
        const from = mode === 0 ? this.col : 0;
        const to = mode === 1 ? this.col + 1 : this.cols;
        for (let c = from; c < to; c++) this.screen[this.row]![c] = " ";
        break;
      }
      default:
        break; // SGR and the rest do not move anything
    }
  }

  /** Changes the width without reflowing (like xterm): rows are cut or padded. */
  resize(cols: number): void {
    this.screen = this.screen.map((r) =>
      r.length >= cols ? r.slice(0, cols) : [...r, ...Array(cols - r.length).fill(" ")]
    );
    this.cols = cols;
    this.col = Math.min(this.col, cols - 1);
  }

  /**
   * Changes the height as tmux does: a shorter screen first drops the rows below the cursor,
   * from the bottom, then pushes rows from the top into scrollback; a taller one takes rows
   * back from scrollback above the cursor, then adds blank rows at the bottom.
   */
  resizeRows(rows: number): void {
    if (rows < this.rows) {
      let needed = this.rows - rows;
      const below = Math.min(needed, this.rows - 1 - this.row);
      this.screen.splice(this.rows - below, below);
      needed -= below;
      for (const cells of this.screen.splice(0, needed)) {
        this.scrollback.push(this.#rowText(cells));
      }
      this.row -= needed;
    } else {
      const back = Math.min(rows - this.rows, this.scrollback.length);
      const lines = this.scrollback.splice(this.scrollback.length - back, back);
      this.screen.unshift(...lines.map((l) => {
        const cells = this.#blank();
        let c = 0;
        for (const { segment } of segmenter.segment(l)) cells[c++] = segment;
        return cells;
      }));
      this.row += back;
      while (this.screen.length < rows) this.screen.push(this.#blank());
    }
    this.rows = rows;
  }

  /** The screen as lines, trailing blanks trimmed. */
  lines(): string[] {
    return this.screen.map((r) => this.#rowText(r));
  }

  /** The scrollback followed by the screen, trailing empty lines removed. */
  all(): string[] {
    const out = [...this.scrollback, ...this.lines()];
    while (out.length > 0 && out[out.length - 1] === "") out.pop();
    return out;
  }
}
