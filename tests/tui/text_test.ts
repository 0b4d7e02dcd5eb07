import { assertEquals } from "../support/assert.ts";
import {
  colorEnabled,
  controlPicture,
  displayWidth,
  makeStyle,
  sanitize,
  truncate,
  wrapPlain,
  wrapStyled,
} from "../../tui/text.ts";

Deno.test("wrapping counts CJK characters as two columns", () => {
  const rows = wrapPlain("日本語のテキスト", 6).map((r) => r.text);
  assertEquals(rows, ["日本語", "のテキ", "スト"]);
  for (const r of rows) assertEquals(displayWidth(r) <= 6, true);
});

Deno.test("wrapping never splits an emoji and counts it as two columns", () => {
  const rows = wrapPlain("ab👍cd👩‍💻ef", 4).map((r) => r.text);
  assertEquals(rows, ["ab👍", "cd👩‍💻", "ef"]);
});

Deno.test("wrapping breaks at spaces and records each row's source offset", () => {
  const rows = wrapPlain("the quick brown fox", 10);
  assertEquals(rows.map((r) => r.text), ["the quick", "brown fox"]);
  assertEquals(rows.map((r) => r.start), [0, 10]);
});

Deno.test("styled wrapping keeps ANSI codes out of the width", () => {
  const s = makeStyle(true);
  const rows = wrapStyled(s.bold("hello") + " world again", 11);
  assertEquals(rows.length, 2);
  for (const r of rows) assertEquals(displayWidth(r) <= 11, true);
});

Deno.test("truncate cuts by display width and adds an ellipsis", () => {
  assertEquals(truncate("日本語日本語", 5), "日本…");
  assertEquals(truncate("short", 10), "short");
});

Deno.test("sanitize removes escape and control characters that could corrupt the screen", () => {
  assertEquals(sanitize("a\x1b[2Jb\rc\x07\td\n"), "abc    d\n");
});

Deno.test("sanitize removes whole escape sequences, not only their ESC", () => {
  assertEquals(sanitize("a\x1b[2J\x1b[Hb"), "ab", "CSI");
  assertEquals(sanitize("a\x1b[38;5;196mb\x1b[0m"), "ab", "SGR with parameters");
  assertEquals(sanitize("a\x1b]0;title\x07b"), "ab", "OSC ended by BEL");
  assertEquals(sanitize("a\x1b]8;;http://x\x1b\\b"), "ab", "OSC ended by ST");
  assertEquals(sanitize("a\x1bPq#0\x1b\\b"), "ab", "DCS");
  assertEquals(sanitize("a\x1bcb\x1b(Bc"), "abc", "two-byte and charset escapes");
  assertEquals(sanitize("a\x9b2Jb\x9d0;t\x9cc"), "abc", "C1 CSI and OSC");
  assertEquals(sanitize("a\x1b]0;never ended"), "a0;never ended", "an unended OSC loses its ESC");
  assertEquals(sanitize("plain 日本 text\n"), "plain 日本 text\n");
});

Deno.test("controlPicture shows a control character as one visible column", () => {
  assertEquals(controlPicture("\x1b"), "\u241b");
  assertEquals(controlPicture("\x07"), "\u2407");
  assertEquals(controlPicture("\x9b"), "\ufffd");
  assertEquals(controlPicture("é"), "é");
});

Deno.test("colour is off under NO_COLOR, TERM=dumb and no TERM; on under FORCE_COLOR", () => {
  const env = (vars: Record<string, string>) => (k: string) => vars[k];
  assertEquals(colorEnabled(env({ TERM: "xterm-256color" })), true);
  assertEquals(colorEnabled(env({ TERM: "xterm-256color", NO_COLOR: "1" })), false);
  assertEquals(colorEnabled(env({ TERM: "dumb" })), false);
  assertEquals(colorEnabled(env({})), false);
  assertEquals(colorEnabled(env({ TERM: "dumb", FORCE_COLOR: "1" })), true);
  assertEquals(makeStyle(false).bold("x"), "x");
});
