/**
 * Text helpers for the renderer: display width, word wrapping by display width (CJK and emoji
 * take two columns), truncation, and a {@link Style} that emits SGR codes or nothing at all when
 * colour is off.
 *
 * @module
 */
import stringWidth from "string-width";
import wrapAnsi from "wrap-ansi";

const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });

/** The display width of a string, ignoring ANSI escape codes. */
export function displayWidth(s: string): number {
  // Fast path: printable ASCII without escapes is one column per character.
  if (/^[\x20-\x7e]*$/.test(s)) return s.length;
  return stringWidth(s);
}

/** The display width of one grapheme. */
function graphemeWidth(g: string): number {
  if (g.length === 1) {
    const c = g.charCodeAt(0);
    if (c >= 0x20 && c < 0x7f) return 1;
  }
  return stringWidth(g);
}

/** One wrapped row of plain text and the offset in the source where it starts. */
export interface Row {
  text: string;
  start: number;
}

/**
 * Word-wraps one line of plain text (no newlines, no escape codes) to `width` columns. Breaks
 * at spaces where it can and inside a word where it must; a grapheme is never split. Each row
 * records its source offset, so a caller can re-wrap only the tail of a growing text.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { wrapPlain } from "./text.ts";
 * assert(wrapPlain("hello world", 5).map((r) => r.text).join("|") === "hello|world");
 * ```
 */
export function wrapPlain(line: string, width: number, offset = 0): Row[] {
  const w = Math.max(1, width);
  const rows: Row[] = [];
  if (line === "") return [{ text: "", start: offset }];
  let rowStart = 0; // index in `line`
  let rowWidth = 0;
  let breakAt = -1; // index just after the last space in this row
  let widthAtBreak = 0;
  for (const { segment: g, index } of segmenter.segment(line)) {
    const gw = graphemeWidth(g);
    if (rowWidth + gw > w && index > rowStart) {
      if (g === " ") {
        // The space itself ends the row.
        rows.push({ text: line.slice(rowStart, index), start: offset + rowStart });
        rowStart = index + 1;
        rowWidth = 0;
        breakAt = -1;
        continue;
      }
      if (breakAt > rowStart) {
        rows.push({ text: line.slice(rowStart, breakAt).trimEnd(), start: offset + rowStart });
        rowStart = breakAt;
        rowWidth -= widthAtBreak;
        if (rowWidth + gw > w) {
          rows.push({ text: line.slice(rowStart, index), start: offset + rowStart });
          rowStart = index;
          rowWidth = 0;
        }
      } else {
        rows.push({ text: line.slice(rowStart, index), start: offset + rowStart });
        rowStart = index;
        rowWidth = 0;
      }
      breakAt = -1;
    }
    if (index < rowStart) continue; // a space consumed as a break
    rowWidth += gw;
    if (g === " ") {
      breakAt = index + 1;
      widthAtBreak = rowWidth;
    }
  }
  if (rowStart < line.length || rows.length === 0) {
    rows.push({ text: line.slice(rowStart), start: offset + rowStart });
  }
  return rows;
}

/**
 * Wraps text that may hold ANSI codes and newlines to `width` columns, returning rows. With
 * `words` (the default) it breaks at spaces and trims them; without, it cuts at the width and
 * keeps every space, for code.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { wrapStyled } from "./text.ts";
 * assert(wrapStyled("a b\nc", 10).length === 2);
 * ```
 */
export function wrapStyled(text: string, width: number, words = true): string[] {
  if (text === "") return [""];
  return wrapAnsi(text, Math.max(1, width), { hard: true, trim: words, wordWrap: words })
    .split("\n");
}

/**
 * Cuts a string (which may hold ANSI codes) to at most `width` columns, adding `…` when cut.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { truncate } from "./text.ts";
 * assert(truncate("abcdef", 4) === "abc…");
 * ```
 */
export function truncate(s: string, width: number): string {
  if (displayWidth(s) <= width) return s;
  if (width <= 0) return "";
  let out = "";
  let used = 0;
  let i = 0;
  let hadEscape = false;
  while (i < s.length) {
    if (s[i] === "\x1b") {
      // deno-lint-ignore no-control-regex -- matching escape sequences is the point
      const m = /^\x1b\[[0-9;?]*[ -\/]*[@-~]/.exec(s.slice(i));
      if (m) {
        out += m[0];
        hadEscape = true;
        i += m[0].length;
        continue;
      }
    }
    const seg = segmenter.segment(s.slice(i, i + 16))[Symbol.iterator]().next();
    if (seg.done) break;
    const g = seg.value.segment;
    const gw = graphemeWidth(g);
    if (used + gw > width - 1) break;
    out += g;
    used += gw;
    i += g.length;
  }
  return out + "…" + (hadEscape ? "\x1b[0m" : "");
}

/** Pads a styled string with spaces to exactly `width` columns (cutting when longer). */
export function padTo(s: string, width: number): string {
  const w = displayWidth(s);
  if (w > width) return truncate(s, width);
  return s + " ".repeat(width - w);
}

// deno-lint-ignore no-control-regex -- finding control characters is the point
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;
/**
 * Terminal escape sequences, removed whole so that no parameter text is left behind: CSI
 * (`ESC [` or C1 `0x9b`, parameters, intermediates, final byte), the string sequences OSC, DCS,
 * SOS, PM and APC up to their terminator (BEL, `ESC \` or C1 ST; bodies past 4096 characters
 * are left as text rather than scanned further), and two-byte escapes such as `ESC c`.
 */
const ESCAPE_SEQUENCE =
  // deno-lint-ignore no-control-regex -- matching escape sequences is the point
  /\x1b\[[0-?]*[ -\/]*[@-~]|\x9b[0-?]*[ -\/]*[@-~]|(?:\x1b[\]PX^_]|[\x90\x98\x9d-\x9f])[^\x07\x1b\x9c]{0,4096}(?:\x07|\x1b\\|\x9c)|\x1b[ -\/]*[0-~]/g;
// deno-lint-ignore no-control-regex -- removing control characters is the point
const CONTROLS = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;

/**
 * Makes text from outside (the server, the model, a tool, a paste) safe to show: escape
 * sequences are removed whole, every other C0 and C1 control character (CR included) is
 * dropped, `\n` is kept and `\t` becomes four spaces. Nothing in the result can move the
 * cursor, change a terminal mode or set a title.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sanitize } from "./text.ts";
 * assert(sanitize("a\x1b[2Jb\x07\tc\n") === "ab    c\n");
 * ```
 */
export function sanitize(s: string): string {
  const t = s.includes("\t") ? s.replace(/\t/g, "    ") : s;
  if (!CONTROL.test(t)) return t;
  return t.replace(ESCAPE_SEQUENCE, "").replace(CONTROLS, "");
}

/**
 * A visible stand-in for a control character, one column wide: the Unicode control picture
 * for C0 and DEL (`␛` for ESC), `�` for C1. Other text is returned unchanged. For places that
 * must keep offsets into the text, where removing a character would move them.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { controlPicture } from "./text.ts";
 * assert(controlPicture("\x1b") === "␛" && controlPicture("a") === "a");
 * ```
 */
export function controlPicture(g: string): string {
  if (!CONTROL.test(g)) return g;
  return g.replace(CONTROLS, (c) => {
    const code = c.charCodeAt(0);
    if (code < 0x20) return String.fromCharCode(0x2400 + code);
    return code === 0x7f ? "\u2421" : "\ufffd";
  });
}

/** SGR styling functions; each returns its input unchanged when colour is off. */
export interface Style {
  readonly enabled: boolean;
  bold(s: string): string;
  dim(s: string): string;
  italic(s: string): string;
  underline(s: string): string;
  strike(s: string): string;
  inverse(s: string): string;
  red(s: string): string;
  green(s: string): string;
  yellow(s: string): string;
  blue(s: string): string;
  magenta(s: string): string;
  cyan(s: string): string;
  gray(s: string): string;
}

function sgr(open: number, close: number): (s: string) => string {
  const o = `\x1b[${open}m`;
  const c = `\x1b[${close}m`;
  // Re-open after any nested close of the same kind, so nesting keeps the outer style.
  return (s) => o + s.split(c).join(c + o) + c;
}

const identity = (s: string) => s;

/**
 * Builds a {@link Style}: with colour off every function is the identity, except `inverse`,
 * which is kept because the composer's cursor is drawn with it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { makeStyle } from "./text.ts";
 * assert(makeStyle(false).red("x") === "x");
 * assert(makeStyle(true).red("x") === "\x1b[31mx\x1b[39m");
 * ```
 */
export function makeStyle(enabled: boolean): Style {
  if (!enabled) {
    return {
      enabled,
      bold: identity,
      dim: identity,
      italic: identity,
      underline: identity,
      strike: identity,
      inverse: sgr(7, 27),
      red: identity,
      green: identity,
      yellow: identity,
      blue: identity,
      magenta: identity,
      cyan: identity,
      gray: identity,
    };
  }
  return {
    enabled,
    bold: sgr(1, 22),
    dim: sgr(2, 22),
    italic: sgr(3, 23),
    underline: sgr(4, 24),
    strike: sgr(9, 29),
    inverse: sgr(7, 27),
    red: sgr(31, 39),
    green: sgr(32, 39),
    yellow: sgr(33, 39),
    blue: sgr(34, 39),
    magenta: sgr(35, 39),
    cyan: sgr(36, 39),
    gray: sgr(90, 39),
  };
}

/**
 * Whether to use colour: off under `NO_COLOR` (any non-empty value), `TERM=dumb` or an unset
 * `TERM`; `FORCE_COLOR` (non-empty, not `0`) turns it on.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { colorEnabled } from "./text.ts";
 * const env: Record<string, string> = { NO_COLOR: "1", TERM: "xterm" };
 * assert(!colorEnabled((k) => env[k]));
 * ```
 */
export function colorEnabled(env: (name: string) => string | undefined): boolean {
  const force = env("FORCE_COLOR");
  if (force !== undefined && force !== "" && force !== "0") return true;
  const no = env("NO_COLOR");
  if (no !== undefined && no !== "") return false;
  const term = env("TERM");
  return term !== undefined && term !== "" && term !== "dumb";
}

/**
 * The message of an `Error`, or the value itself as text, for the TUI's own messages.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { errorText } from "./text.ts";
 * assert.equal(errorText(new Error("boom")), "boom");
 * assert.equal(errorText(42), "42");
 * ```
 */
export function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
