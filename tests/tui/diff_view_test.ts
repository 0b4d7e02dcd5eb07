import { assert, assertEquals } from "../support/assert.ts";
import { renderDiff, renderUnifiedDiff } from "../../tui/diff_view.ts";
import { makeStyle } from "../../tui/text.ts";

Deno.test("diff view colours removed lines red and added lines green", () => {
  const lines = renderDiff("old\n", "new\n", { width: 40, style: makeStyle(true), maxLines: 10 });
  assert(lines.some((l) => l.includes("\x1b[31m-old")));
  assert(lines.some((l) => l.includes("\x1b[32m+new")));
});

Deno.test("diff view is bounded to max lines with a count of the rest", () => {
  const after = Array.from({ length: 100 }, (_, i) => `l${i}`).join("\n");
  const lines = renderDiff("", after, { width: 40, style: makeStyle(false), maxLines: 10 });
  assertEquals(lines.length, 10);
  assertEquals(lines.at(-1), "… 92 more diff lines");
});

Deno.test("diff view shows the tools' hunks: line numbers and context", () => {
  const before = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join("\n") + "\n";
  const after = before.replace("line 2\n", "line two\n");
  const lines = renderDiff(before, after, { width: 40, style: makeStyle(false), maxLines: 20 });
  assertEquals(lines, [
    "@@ -1,5 +1,5 @@",
    " line 1",
    "-line 2",
    "+line two",
    " line 3",
    " line 4",
    " line 5",
  ]);
});

Deno.test("a tool's diff text is shown from its first hunk, with its line numbers", () => {
  const output = 'Edited "a.txt": replaced 1 occurrence\n\n--- a/a.txt\n+++ b/a.txt\n' +
    "@@ -41,3 +41,3 @@\n x\n-y\n+Y\n\\ No newline at end of file\n" +
    "[... 120 bytes omitted ...]\n";
  const lines = renderUnifiedDiff(output, { width: 40, style: makeStyle(false), maxLines: 10 });
  assertEquals(lines, ["@@ -41,3 +41,3 @@", " x", "-y", "+Y", "[... 120 bytes omitted ...]"]);
});

Deno.test("a tool's output without a hunk renders no diff", () => {
  const lines = renderUnifiedDiff("Edited a.txt", {
    width: 40,
    style: makeStyle(false),
    maxLines: 10,
  });
  assertEquals(lines, []);
});
