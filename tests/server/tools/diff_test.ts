import assert from "node:assert/strict";
import fc from "fast-check";
import { unifiedDiff } from "../../../server/tools/diff.ts";

interface Line {
  text: string;
  eol: boolean;
}

function toLines(s: string): Line[] {
  if (s === "") return [];
  const parts = s.split("\n");
  const last = parts.pop()!;
  const lines = parts.map((text) => ({ text, eol: true }));
  if (last !== "") lines.push({ text: last, eol: false });
  return lines;
}

/** Applies a unified diff made by `unifiedDiff` to `before`, checking every context line. */
function applyDiff(before: string, diff: string): string {
  if (diff === "") return before;
  const rows = diff.split("\n");
  assert.equal(rows.pop(), "", "the diff must end with a newline");
  assert.ok(rows[0]!.startsWith("--- a/") && rows[1]!.startsWith("+++ b/"));
  const src = toLines(before);
  const out: Line[] = [];
  let at = 0;
  let i = 2;
  while (i < rows.length) {
    const m = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@$/.exec(rows[i]!);
    assert.ok(m, `bad hunk header ${rows[i]}`);
    const oldStart = Number(m[1]);
    const oldCount = m[2] === undefined ? 1 : Number(m[2]);
    const first = oldCount === 0 ? oldStart : oldStart - 1;
    assert.ok(first >= at, "hunks out of order");
    while (at < first) out.push(src[at++]!);
    const newCount = m[4] === undefined ? 1 : Number(m[4]);
    let olds = 0;
    let news = 0;
    i++;
    while (i < rows.length && !rows[i]!.startsWith("@@")) {
      const kind = rows[i]![0];
      const line = { text: rows[i]!.slice(1), eol: rows[i + 1] !== "\\ No newline at end of file" };
      i += line.eol ? 1 : 2;
      if (kind === " " || kind === "-") {
        assert.deepEqual(src[at], line, `context mismatch at line ${at + 1}`);
        at++;
      }
      if (kind === " " || kind === "+") out.push(line);
      if (kind !== "+") olds++;
      if (kind !== "-") news++;
    }
    assert.deepEqual([olds, news], [oldCount, newCount], "hunk header counts");
  }
  while (at < src.length) out.push(src[at++]!);
  return out.map((l) => l.text + (l.eol ? "\n" : "")).join("");
}

Deno.test("unifiedDiff is empty for equal texts", () => {
  assert.equal(unifiedDiff("a", "x\n", "x\n"), "");
});

Deno.test("unifiedDiff shows one change with three lines of context", () => {
  const before = "1\n2\n3\n4\n5\n6\n7\n8\n9\n";
  const after = "1\n2\n3\n4\nFIVE\n6\n7\n8\n9\n";
  assert.equal(
    unifiedDiff("f.txt", before, after),
    "--- a/f.txt\n+++ b/f.txt\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+FIVE\n 6\n 7\n 8\n",
  );
});

Deno.test("unifiedDiff splits distant changes into separate hunks", () => {
  const before = Array.from({ length: 20 }, (_, i) => `${i + 1}`).join("\n") + "\n";
  const after = before.replace("2\n", "two\n").replace("19\n", "nineteen\n");
  assert.equal(
    unifiedDiff("f", before, after),
    "--- a/f\n+++ b/f\n" +
      "@@ -1,5 +1,5 @@\n 1\n-2\n+two\n 3\n 4\n 5\n" +
      "@@ -16,5 +16,5 @@\n 16\n 17\n 18\n-19\n+nineteen\n 20\n",
  );
});

Deno.test("unifiedDiff merges changes whose context overlaps", () => {
  const before = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n";
  const after = "1\nB\n3\n4\n5\n6\n7\nH\n9\n10\n";
  assert.equal(
    unifiedDiff("f", before, after),
    "--- a/f\n+++ b/f\n@@ -1,10 +1,10 @@\n 1\n-2\n+B\n 3\n 4\n 5\n 6\n 7\n-8\n+H\n 9\n 10\n",
  );
});

Deno.test("unifiedDiff writes pure insertions with a zero-length old range", () => {
  assert.equal(
    unifiedDiff("f", "", "new\n"),
    "--- a/f\n+++ b/f\n@@ -0,0 +1 @@\n+new\n",
  );
});

Deno.test("unifiedDiff marks a missing newline at the end of the file", () => {
  assert.equal(
    unifiedDiff("f", "a\nb", "a\nb\n"),
    "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n",
  );
});

Deno.test("unifiedDiff falls back to a replacement for a huge changed region", () => {
  const before = Array.from({ length: 3000 }, (_, i) => `a${i}`).join("\n") + "\n";
  const after = Array.from({ length: 3000 }, (_, i) => (i % 2 ? `a${i}` : `b${i}`)).join("\n") +
    "\n";
  const t0 = performance.now();
  const d = unifiedDiff("f", before, after);
  assert.ok(performance.now() - t0 < 2000);
  assert.equal(applyDiff(before, d), after);
});

Deno.test("applying unifiedDiff to the old text gives the new text", () => {
  const line = fc.constantFrom("a", "b", "c", "", "  x", "d");
  const text = fc.array(line, { maxLength: 30 }).chain((ls) =>
    fc.boolean().map((eol) => ls.join("\n") + (eol && ls.length > 0 ? "\n" : ""))
  );
  fc.assert(
    fc.property(text, text, (before, after) => {
      assert.equal(applyDiff(before, unifiedDiff("p", before, after)), after);
    }),
    { numRuns: 500 },
  );
});
