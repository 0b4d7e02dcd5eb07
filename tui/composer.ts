/**
 * The composer's editing buffer as pure functions over an immutable `{ text, cursor }` value.
 * The cursor is a UTF-16 offset that always sits on a grapheme boundary, so a cursor move or a
 * deletion never splits an emoji or a combining sequence.
 *
 * @module
 */
import { sanitize } from "./text.ts";

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

/** Whether the cursor is on the first line of the buffer. */
export function onFirstLine(b: Buffer): boolean {
  return b.text.lastIndexOf("\n", b.cursor - 1) === -1;
}

/** Whether the cursor is on the last line of the buffer. */
export function onLastLine(b: Buffer): boolean {
  return b.text.indexOf("\n", b.cursor) === -1;
}

/** Moves to the same column (in graphemes) on the previous line; stays put on the first line. */
export function up(b: Buffer): Buffer {
  if (onFirstLine(b)) return b;
  const start = lineStart(b.text, b.cursor);
  const col = graphemeCount(b.text.slice(start, b.cursor));
  const prevStart = lineStart(b.text, start - 1);
  return { text: b.text, cursor: advance(b.text, prevStart, col, start - 1) };
}

/** Moves to the same column (in graphemes) on the next line; stays put on the last line. */
export function down(b: Buffer): Buffer {
  if (onLastLine(b)) return b;
  const start = lineStart(b.text, b.cursor);
  const col = graphemeCount(b.text.slice(start, b.cursor));
  const nextStart = lineEnd(b.text, b.cursor) + 1;
  return { text: b.text, cursor: advance(b.text, nextStart, col, lineEnd(b.text, nextStart)) };
}

function graphemeCount(s: string): number {
  let n = 0;
  for (const _ of segmenter.segment(s)) n++;
  return n;
}

function advance(text: string, from: number, graphemes: number, limit: number): number {
  let at = from;
  for (let i = 0; i < graphemes && at < limit; i++) at = nextBoundary(text, at);
  return Math.min(at, limit);
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
