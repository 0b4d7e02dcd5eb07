/**
 * The composer's editing buffer as pure functions over an immutable `{ text, cursor }` value.
 * The cursor is a UTF-16 offset that always sits on a grapheme boundary, so a cursor move or a
 * deletion never splits an emoji or a combining sequence.
 *
 * @module
 */
import { controlPicture, displayWidth, sanitize } from "./text.ts";

/** The composer's text and cursor offset. */
export interface Buffer {
  readonly text: string;
  readonly cursor: number;
}

/** An empty buffer. */
export const EMPTY_BUFFER: Buffer = Object.freeze({ text: "", cursor: 0 });

const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });

/** The offset of the grapheme boundary before `at` (0 at the start). */
export function prevBoundary(text: string, at: number): number {
  if (at <= 0) return 0;
  // Look back a bounded window; graphemes longer than 64 code units are vanishingly rare.
  const start = Math.max(0, at - 64);
  let last = start;
  for (const seg of segmenter.segment(text.slice(start, at))) {
    if (start + seg.index < at) last = start + seg.index;
  }
  return last;
}

/** The offset of the grapheme boundary after `at` (the text length at the end). */
export function nextBoundary(text: string, at: number): number {
  if (at >= text.length) return text.length;
  const it = segmenter.segment(text.slice(at, at + 64))[Symbol.iterator]();
  const first = it.next();
  if (first.done) return text.length;
  return Math.min(text.length, at + first.value.segment.length);
}

/**
 * Inserts text at the cursor, normalising CR and CRLF line ends to LF, expanding tabs and
 * dropping escape sequences and other control characters (a paste may carry any bytes), so the
 * buffer only ever holds text that is safe to draw.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { EMPTY_BUFFER, insert } from "./composer.ts";
 * assert(insert(EMPTY_BUFFER, "hi").cursor === 2);
 * ```
 */
export function insert(b: Buffer, s: string): Buffer {
  const clean = sanitize(s.replace(/\r\n?/g, "\n"));
  return {
    text: b.text.slice(0, b.cursor) + clean + b.text.slice(b.cursor),
    cursor: b.cursor + clean.length,
  };
}

/** Deletes the grapheme before the cursor. */
export function backspace(b: Buffer): Buffer {
  if (b.cursor === 0) return b;
  const p = prevBoundary(b.text, b.cursor);
  return { text: b.text.slice(0, p) + b.text.slice(b.cursor), cursor: p };
}

/** Deletes the grapheme under the cursor. */
export function deleteForward(b: Buffer): Buffer {
  if (b.cursor >= b.text.length) return b;
  const n = nextBoundary(b.text, b.cursor);
  return { text: b.text.slice(0, b.cursor) + b.text.slice(n), cursor: b.cursor };
}

/** Moves one grapheme left. */
export function left(b: Buffer): Buffer {
  return { text: b.text, cursor: prevBoundary(b.text, b.cursor) };
}

/** Moves one grapheme right. */
export function right(b: Buffer): Buffer {
  return { text: b.text, cursor: nextBoundary(b.text, b.cursor) };
}

function lineStart(text: string, at: number): number {
  return text.lastIndexOf("\n", at - 1) + 1;
}

function lineEnd(text: string, at: number): number {
  const i = text.indexOf("\n", at);
  return i === -1 ? text.length : i;
}

/** Moves to the start of the current line. */
export function home(b: Buffer): Buffer {
  return { text: b.text, cursor: lineStart(b.text, b.cursor) };
}

/** Moves to the end of the current line. */
export function end(b: Buffer): Buffer {
  return { text: b.text, cursor: lineEnd(b.text, b.cursor) };
}

/**
 * One visual row of the composer: the source offsets it spans, and whether it is the last row
 * of its line (only there may the cursor sit at `end`; elsewhere `end` starts the next row).
 */
export interface VisualRow {
  start: number;
  end: number;
  lastOfLine: boolean;
}

/** The columns a grapheme takes in the composer (a control character is shown as a picture). */
function cellWidth(g: string): number {
  return Math.max(displayWidth(controlPicture(g)), 1);
}

/**
 * The buffer's visual rows when laid out `width` columns wide, as the renderer draws the
 * composer: each line hard-wrapped by display width before the grapheme that would reach the
 * last column (kept for the cursor at a line's end), a grapheme never split. Without a width,
 * each line is one row.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { visualRows } from "./composer.ts";
 * const rows = visualRows("abcdef\ngh", 4).map((r) => "abcdef\ngh".slice(r.start, r.end));
 * assert(rows.join("|") === "abc|def|gh");
 * ```
 */
export function visualRows(text: string, width = Infinity): VisualRow[] {
  const cap = Math.max(2, width) - 1;
  const rows: VisualRow[] = [];
  let offset = 0;
  for (const line of text.split("\n")) {
    let start = offset;
    let used = 0;
    if (cap !== Infinity) {
      for (const { segment, index } of segmenter.segment(line)) {
        const w = cellWidth(segment);
        if (used + w > cap && used > 0) {
          rows.push({ start, end: offset + index, lastOfLine: false });
          start = offset + index;
          used = 0;
        }
        used += w;
      }
    }
    rows.push({ start, end: offset + line.length, lastOfLine: true });
    offset += line.length + 1;
  }
  return rows;
}

/** The index of the row the cursor is drawn on. */
function cursorRow(rows: VisualRow[], cursor: number): number {
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i]!;
    if (cursor >= r.start && (cursor < r.end || (cursor === r.end && r.lastOfLine))) return i;
  }
  return rows.length - 1;
}

/** The display width of `text` from `from` to `to`. */
function columnsBetween(text: string, from: number, to: number): number {
  let w = 0;
  for (const { segment } of segmenter.segment(text.slice(from, to))) w += cellWidth(segment);
  return w;
}

/** The offset in `row` nearest to display column `col` without passing it. */
function offsetAtColumn(text: string, row: VisualRow, col: number): number {
  let at = row.start;
  let used = 0;
  for (const { segment } of segmenter.segment(text.slice(row.start, row.end))) {
    const w = cellWidth(segment);
    const next = at + segment.length;
    // The end of a wrapped row is the start of the next one: the cursor stops before it.
    if (used + w > col || (next === row.end && !row.lastOfLine)) break;
    used += w;
    at = next;
  }
  return at;
}

/** Whether the cursor is on the first visual row (for `width` columns; without it, line). */
export function onFirstRow(b: Buffer, width = Infinity): boolean {
  return cursorRow(visualRows(b.text, width), b.cursor) === 0;
}

/** Whether the cursor is on the last visual row (for `width` columns; without it, line). */
export function onLastRow(b: Buffer, width = Infinity): boolean {
  const rows = visualRows(b.text, width);
  return cursorRow(rows, b.cursor) === rows.length - 1;
}

/**
 * Moves to the same display column on the visual row above, laid out `width` columns wide
 * (without a width, on the line above); stays put on the first row.
 */
export function up(b: Buffer, width = Infinity): Buffer {
  return moveRows(b, width, -1);
}

/** Moves to the same display column on the visual row below; stays put on the last row. */
export function down(b: Buffer, width = Infinity): Buffer {
  return moveRows(b, width, 1);
}

function moveRows(b: Buffer, width: number, dir: -1 | 1): Buffer {
  const rows = visualRows(b.text, width);
  const r = cursorRow(rows, b.cursor);
  const target = rows[r + dir];
  if (!target) return b;
  const col = columnsBetween(b.text, rows[r]!.start, b.cursor);
  return { text: b.text, cursor: offsetAtColumn(b.text, target, col) };
}

/** Whether a grapheme belongs to a word: its base character is a letter, digit or `_`. */
const isWordChar = (g: string) => /^[\p{L}\p{N}_]/u.test(g);
const isBlank = (g: string) => /^\s/u.test(g);

/** The grapheme before `at`, with its start; word motions step by these, never inside one. */
function graphemeBefore(text: string, at: number): { g: string; start: number } {
  const start = prevBoundary(text, at);
  return { g: text.slice(start, at), start };
}

/** The grapheme after `at`, with its end. */
function graphemeAfter(text: string, at: number): { g: string; end: number } {
  const end = nextBoundary(text, at);
  return { g: text.slice(at, end), end };
}

/** Moves back over graphemes while `test` holds for the one before the offset. */
function backWhile(text: string, at: number, test: (g: string) => boolean): number {
  let i = at;
  while (i > 0) {
    const { g, start } = graphemeBefore(text, i);
    if (!test(g)) break;
    i = start;
  }
  return i;
}

/** Moves forward over graphemes while `test` holds for the one after the offset. */
function forwardWhile(text: string, at: number, test: (g: string) => boolean): number {
  let i = at;
  while (i < text.length) {
    const { g, end } = graphemeAfter(text, i);
    if (!test(g)) break;
    i = end;
  }
  return i;
}

/** Moves to the start of the previous word. */
export function wordLeft(b: Buffer): Buffer {
  const i = backWhile(b.text, b.cursor, (g) => !isWordChar(g));
  return { text: b.text, cursor: backWhile(b.text, i, isWordChar) };
}

/** Moves to the end of the next word. */
export function wordRight(b: Buffer): Buffer {
  const i = forwardWhile(b.text, b.cursor, (g) => !isWordChar(g));
  return { text: b.text, cursor: forwardWhile(b.text, i, isWordChar) };
}

/** Deletes the word before the cursor (Ctrl+W, Alt+Backspace), with the blanks after it. */
export function deleteWordBack(b: Buffer): Buffer {
  let i = backWhile(b.text, b.cursor, isBlank);
  if (i > 0 && !isWordChar(graphemeBefore(b.text, i).g)) {
    i = backWhile(b.text, i, (g) => !isWordChar(g) && !isBlank(g));
  } else {
    i = backWhile(b.text, i, isWordChar);
  }
  return { text: b.text.slice(0, i) + b.text.slice(b.cursor), cursor: i };
}

/** Deletes the word after the cursor (Alt+D). */
export function deleteWordForward(b: Buffer): Buffer {
  const to = wordRight(b).cursor;
  return { text: b.text.slice(0, b.cursor) + b.text.slice(to), cursor: b.cursor };
}

/**
 * Deletes from the start of the line to the cursor (Ctrl+U); at a line start, joins with the
 * previous line.
 */
export function killToLineStart(b: Buffer): Buffer {
  let start = lineStart(b.text, b.cursor);
  if (start === b.cursor && start > 0) start--;
  return { text: b.text.slice(0, start) + b.text.slice(b.cursor), cursor: start };
}

/** Deletes from the cursor to the end of the line (Ctrl+K); at a line end, joins the next. */
export function killToLineEnd(b: Buffer): Buffer {
  let stop = lineEnd(b.text, b.cursor);
  if (stop === b.cursor && stop < b.text.length) stop++;
  return { text: b.text.slice(0, b.cursor) + b.text.slice(stop), cursor: b.cursor };
}

/** A buffer holding `text` (cleaned as by {@link insert}) with the cursor at its end. */
export function fromText(text: string): Buffer {
  return insert(EMPTY_BUFFER, text);
}
