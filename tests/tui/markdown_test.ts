import { assert, assertEquals } from "../support/assert.ts";
import { renderMarkdown } from "../../tui/markdown.ts";
import { displayWidth, makeStyle } from "../../tui/text.ts";

const plain = { width: 40, style: makeStyle(false) };
const color = { width: 40, style: makeStyle(true) };

Deno.test("markdown renders headings, emphasis and paragraphs as separate blocks", () => {
  assertEquals(renderMarkdown("# Title\n\nSome *em* and **bold**.\n\n## Sub", plain), [
    "# Title",
    "",
    "Some em and bold.",
    "",
    "## Sub",
  ]);
});

Deno.test("markdown styles headings bold and emphasis italic when colour is on", () => {
  const lines = renderMarkdown("# Title\n\n*em*", color);
  assert(lines[0]!.includes("\x1b[1m"), "heading is bold");
  assert(lines[2]!.includes("\x1b[3m"), "emphasis is italic");
});

Deno.test("markdown renders nested, ordered and task lists with hanging indents", () => {
  const md = "- one\n- two that is long enough to wrap around the width\n  - nested\n\n" +
    "1. first\n2. second\n\n- [x] done\n- [ ] todo";
  const lines = renderMarkdown(md, plain);
  assertEquals(lines.slice(0, 4), [
    "• one",
    "• two that is long enough to wrap around",
    "  the width",
    "  • nested",
  ]);
  assert(lines.includes("1. first") && lines.includes("2. second"));
  assert(lines.includes("[x] done") && lines.includes("[ ] todo"));
});

Deno.test("markdown renders block quotes with a bar", () => {
  assertEquals(renderMarkdown("> quoted text", plain), ["│ quoted text"]);
});

Deno.test("markdown shows a link's URL after its text", () => {
  assertEquals(renderMarkdown("[docs](https://example.com/d)", plain), [
    "docs (https://example.com/d)",
  ]);
  assertEquals(renderMarkdown("<https://example.com>", plain), ["https://example.com"]);
});

Deno.test("markdown renders tables with aligned columns inside the width", () => {
  const lines = renderMarkdown("| name | n |\n|:--|--:|\n| alpha | 1 |\n| b | 22 |", plain);
  assertEquals(lines, [
    "┌───────┬────┐",
    "│ name  │  n │",
    "├───────┼────┤",
    "│ alpha │  1 │",
    "│ b     │ 22 │",
    "└───────┴────┘",
  ]);
});

Deno.test("markdown shrinks a wide table to the width by wrapping cells", () => {
  const long = "word ".repeat(30).trim();
  const lines = renderMarkdown(`| a | b |\n|---|---|\n| ${long} | x |`, plain);
  for (const l of lines) assert(displayWidth(l) <= 40, `too wide: ${l}`);
});

Deno.test("markdown highlights fenced code by language when colour is on", () => {
  const lines = renderMarkdown('```ts\nconst x = "s";\n```', color);
  assert(lines.some((l) => l.includes("const") && l.includes("\x1b[")), lines.join("\n"));
});

Deno.test("markdown keeps fences and indentation of code when colour is off", () => {
  assertEquals(renderMarkdown("```py\nif x:\n    y()\n```", plain), [
    "```py",
    "  if x:",
    "      y()",
    "```",
  ]);
});

Deno.test("markdown wraps CJK paragraphs by display width", () => {
  const lines = renderMarkdown("日本語".repeat(20), { width: 20, style: makeStyle(false) });
  for (const l of lines) assert(displayWidth(l) <= 20, l);
  assertEquals(lines.join(""), "日本語".repeat(20));
});

Deno.test("markdown strips escape sequences from model text", () => {
  assertEquals(renderMarkdown("a\x1b[2Jb", plain), ["ab"]);
});
