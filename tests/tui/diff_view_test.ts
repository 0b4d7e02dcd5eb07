import { assert, assertEquals } from "../support/assert.ts";
import { diffLines, renderDiff, unifiedHunks } from "../../tui/diff_view.ts";
import { makeStyle } from "../../tui/text.ts";

Deno.test("diff aligns unchanged lines and marks removed and added ones", () => {
  const d = diffLines("a\nb\nc\nd", "a\nc\nx\nd");
  assertEquals(d.map((l) => l.op + l.text), [" a", "-b", " c", "+x", " d"]);
});

Deno.test("unified diff groups changes in hunks with context and line numbers", () => {
  const before = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join("\n");
  const after = before.replace("line 2\n", "line two\n").replace("line 18\n", "line eighteen\n");
  const hunks = unifiedHunks(diffLines(before, after), 1);
  assertEquals(hunks, [
    "@@ -1,3 +1,3 @@",
    " line 1",
    "-line 2",
    "+line two",
    " line 3",
    "@@ -17,3 +17,3 @@",
    " line 17",
    "-line 18",
    "+line eighteen",
    " line 19",
  ]);
});

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

Deno.test("diff falls back to remove-all add-all for very large inputs", () => {
  const a = Array.from({ length: 1500 }, (_, i) => `a${i}`).join("\n");
  const b = Array.from({ length: 1500 }, (_, i) => `b${i}`).join("\n");
  const d = diffLines(a, b);
  assertEquals(d.length, 3000);
  assertEquals(d[0]!.op, "-");
  assertEquals(d[1500]!.op, "+");
});
