import { assertEquals } from "../support/assert.ts";
import * as ed from "../../tui/composer.ts";

/** Builds a buffer from text with `|` marking the cursor. */
function buf(marked: string): ed.Buffer {
  const cursor = marked.indexOf("|");
  return { text: marked.replace("|", ""), cursor };
}

/** Shows a buffer with `|` at the cursor. */
function show(b: ed.Buffer): string {
  return b.text.slice(0, b.cursor) + "|" + b.text.slice(b.cursor);
}

Deno.test("composer inserts text at the cursor and normalises CRLF", () => {
  assertEquals(show(ed.insert(buf("ab|cd"), "x\r\ny")), "abx\ny|cd");
});

Deno.test("composer backspace removes a whole emoji grapheme", () => {
  assertEquals(show(ed.backspace(buf("a👩‍💻|b"))), "a|b");
});

Deno.test("composer left and right step over a combining sequence as one", () => {
  const b = buf("e\u0301|x");
  assertEquals(ed.left(b).cursor, 0);
  assertEquals(ed.right({ text: b.text, cursor: 0 }).cursor, 2);
});

Deno.test("composer home and end move within the current line", () => {
  assertEquals(show(ed.home(buf("one\ntw|o"))), "one\n|two");
  assertEquals(show(ed.end(buf("o|ne\ntwo"))), "one|\ntwo");
});

Deno.test("composer up and down keep the column across lines", () => {
  assertEquals(show(ed.up(buf("abcd\nab|cd"))), "ab|cd\nabcd");
  assertEquals(show(ed.down(buf("a|bcd\nx"))), "abcd\nx|");
  assertEquals(ed.onFirstLine(buf("ab|\ncd")), true);
  assertEquals(ed.onLastLine(buf("ab|\ncd")), false);
});

Deno.test("composer word motions skip punctuation and stop at word edges", () => {
  assertEquals(show(ed.wordLeft(buf("foo bar.baz|"))), "foo bar.|baz");
  assertEquals(show(ed.wordLeft(buf("foo |bar"))), "|foo bar");
  assertEquals(show(ed.wordRight(buf("|foo bar"))), "foo| bar");
});

Deno.test("composer ctrl+w deletes the previous word and the blanks after it", () => {
  assertEquals(show(ed.deleteWordBack(buf("git commit  |"))), "git |");
});

Deno.test("composer ctrl+u and ctrl+k kill to the line start and end", () => {
  assertEquals(show(ed.killToLineStart(buf("a\nbc|de"))), "a\n|de");
  assertEquals(show(ed.killToLineEnd(buf("a\nbc|de\nf"))), "a\nbc|\nf");
  assertEquals(show(ed.killToLineEnd(buf("ab|\ncd"))), "ab|cd");
});

Deno.test("composer delete forward removes the grapheme under the cursor", () => {
  assertEquals(show(ed.deleteForward(buf("a|日b"))), "a|b");
  assertEquals(show(ed.deleteForward(buf("ab|"))), "ab|");
});

Deno.test("composer word motions step over combining marks and keycaps as whole graphemes", () => {
  assertEquals(show(ed.wordRight(buf("|cafe\u0301 bar"))), "cafe\u0301| bar");
  assertEquals(show(ed.wordLeft(buf("x cafe\u0301|"))), "x |cafe\u0301");
  assertEquals(show(ed.deleteWordBack(buf("x cafe\u0301|"))), "x |");
  assertEquals(show(ed.deleteWordForward(buf("|cafe\u0301 x"))), "| x");
  const keycap = "1\ufe0f\u20e3"; // 1️⃣
  assertEquals(show(ed.wordRight(buf(`|${keycap} x`))), `${keycap}| x`);
  assertEquals(show(ed.wordLeft(buf(`x ${keycap}|`))), `x |${keycap}`);
  assertEquals(show(ed.deleteWordBack(buf(`x ${keycap}|`))), "x |");
  assertEquals(show(ed.wordLeft(buf(`a.${keycap}.|`))), `a.|${keycap}.`);
});

Deno.test("composer insert drops escape sequences and control characters", () => {
  assertEquals(show(ed.insert(buf("x|y"), "a\x1b[2J\x1b[Hb\x07\tc")), "xab    c|y");
  assertEquals(show(ed.fromText("old\x1b]0;title\x07 entry")), "old entry|");
});
