import { assertEquals } from "../support/assert.ts";
import * as ed from "../../tui/composer.ts";
import { layoutComposer } from "../../tui/render.ts";
import { makeStyle } from "../../tui/text.ts";

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
  assertEquals(ed.onFirstRow(buf("ab|\ncd")), true);
  assertEquals(ed.onLastRow(buf("ab|\ncd")), false);
});

Deno.test("composer up and down move by visual row inside a wrapped line", () => {
  // 8 columns: 7 per row, the last one kept for the cursor at the end of a line.
  const b = buf("aaaaaaabbbbbbbcc|c");
  assertEquals(ed.onFirstRow(b, 8), false);
  assertEquals(ed.onLastRow(b, 8), true);
  assertEquals(show(ed.up(b, 8)), "aaaaaaabb|bbbbbccc");
  assertEquals(show(ed.up(ed.up(b, 8), 8)), "aa|aaaaabbbbbbbccc");
  assertEquals(ed.onFirstRow(ed.up(ed.up(b, 8), 8), 8), true);
  assertEquals(show(ed.down(buf("aaaaaaabb|bbbbbccc"), 8)), "aaaaaaabbbbbbbcc|c");
  // A short last row: the cursor goes to its end, which is the end of the line.
  assertEquals(show(ed.down(buf("aaaaa|aab"), 8)), "aaaaaaab|");
  // A wrapped row ends where the next begins: the cursor stops before its last grapheme.
  assertEquals(show(ed.up(buf("aaaaaaabbbbbbb|"), 8)), "aaaaaa|abbbbbbb");
  // Rows of the line above are visual rows too.
  assertEquals(show(ed.up(buf("abcdefghij\nxx|"), 8)), "abcdefghi|j\nxx");
});

Deno.test("composer rows are measured by display width, as the renderer wraps them", () => {
  // Wide characters take two columns: 3 per row of 8 (6 columns, a 7th would split one).
  const rows = ed.visualRows("日本語漢字仮名", 8).map((r) =>
    "日本語漢字仮名".slice(r.start, r.end)
  );
  assertEquals(rows, ["日本語", "漢字仮", "名"]);
  assertEquals(show(ed.up(buf("日本語漢字|仮名"), 8)), "日本|語漢字仮名");
  assertEquals(show(ed.down(buf("a|日本語漢字仮名"), 8)), "a日本語|漢字仮名");
});

Deno.test("composer visual rows match the rows the renderer lays out", () => {
  const style = makeStyle(false);
  const texts = [
    "x".repeat(70),
    "word ".repeat(20),
    "日本語のテキストとemoji 👩‍💻 mixed in, then more text",
    "short\n" + "y".repeat(40) + "\n\nlast",
  ];
  for (const text of texts) {
    for (const width of [10, 20, 27, 33]) {
      // The cursor cell is drawn inverse, even without colour: its codes go.
      const laid = layoutComposer({ text, cursor: 0 }, width, style).rows.map((r) =>
        r.replaceAll("\x1b[7m", "").replaceAll("\x1b[27m", "")
      );
      const rows = ed.visualRows(text, width).map((r) => text.slice(r.start, r.end));
      assertEquals(rows, laid, `${JSON.stringify(text)} at ${width}`);
    }
  }
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
