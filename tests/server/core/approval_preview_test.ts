/**
 * The bound on approval previews (server/core/approval_preview.ts): whole when it fits, head and
 * tail with a marker when it does not, escapes counted, never over the budget.
 */
import { assert, assertEquals, assertMatch } from "../../support/assert.ts";
import {
  boundPreview,
  changePreview,
  jsonBytes,
  MIN_PREVIEW_BYTES,
} from "../../../server/core/approval_preview.ts";

const diff = Array.from({ length: 400 }, (_, i) => `+line ${i}`).join("\n") + "\n";

Deno.test("a preview that fits exactly is kept whole, one byte less cuts it", () => {
  const exact = jsonBytes(diff);
  assertEquals(boundPreview(diff, exact), diff);
  const cut = boundPreview(diff, exact - 1)!;
  assert(cut !== diff && jsonBytes(cut) <= exact - 1);
  assertMatch(cut, /… \d+ lines \(\d+ bytes\) of the diff left out …/);
});

Deno.test("a cut preview keeps the first and the last lines and counts what it left out", () => {
  const cut = boundPreview(diff, 1200)!;
  const lines = cut.split("\n");
  assertEquals(lines[0], "+line 0");
  assertEquals(lines.at(-2), "+line 399");
  const marker = lines.find((l) => l.startsWith("…"))!;
  const left = Number(/… (\d+) lines/.exec(marker)![1]);
  assertEquals(lines.length - 2 + left, 400);
});

Deno.test("escaped characters count at their escaped size", () => {
  const quoted = Array.from({ length: 300 }, () => '+"\\\u0001"').join("\n") + "\n";
  for (const budget of [300, 1000, 3000]) {
    assert(jsonBytes(boundPreview(quoted, budget)!) <= budget, `${budget}`);
  }
});

Deno.test("a very long line is cut short rather than filling the preview", () => {
  const long = `+${"y".repeat(100_000)}\n+short\n`;
  const cut = boundPreview(long, 4000)!;
  assert(jsonBytes(cut) <= 4000);
  assert(cut.includes("…"));
});

Deno.test("below the smallest budget there is no preview", () => {
  assertEquals(boundPreview(diff, MIN_PREVIEW_BYTES - 1), undefined);
  assert(boundPreview(diff, MIN_PREVIEW_BYTES) !== undefined);
});

Deno.test("a new file's preview adds every line", () => {
  const p = changePreview(
    { path: "n.txt", absolute: "/w/n.txt", before: null, after: "a\nb\n" },
    1e6,
  );
  assertEquals(p, "--- a/n.txt\n+++ b/n.txt\n@@ -0,0 +1,2 @@\n+a\n+b\n");
});
