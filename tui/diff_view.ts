/**
 * A small line diff and its rendering as a coloured unified diff, for `edit_file` and
 * `write_file` tool calls. The diff trims the common head and tail, then aligns the middle by
 * longest common subsequence when it is small enough, and otherwise shows it as replaced.
 *
 * @module
 */
import { sanitize, type Style, truncate } from "./text.ts";

/** One diff line: kept (` `), removed (`-`) or added (`+`). */
export interface DiffLine {
  op: " " | "-" | "+";
  text: string;
}

const MAX_LCS_CELLS = 1_000_000;

/**
 * Diffs two texts line by line.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { diffLines } from "./diff_view.ts";
 * const d = diffLines("a\nb\nc", "a\nB\nc");
 * assert(d.map((l) => l.op + l.text).join(",") === " a,-b,+B, c");
 * ```
 */
export function diffLines(before: string, after: string): DiffLine[] {
  const a = before === "" ? [] : before.split("\n");
  const b = after === "" ? [] : after.split("\n");
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (
    tail < a.length - head && tail < b.length - head &&
    a[a.length - 1 - tail] === b[b.length - 1 - tail]
  ) tail++;
  const out: DiffLine[] = a.slice(0, head).map((text) => ({ op: " ", text }));
  const midA = a.slice(head, a.length - tail);
  const midB = b.slice(head, b.length - tail);
  out.push(...diffMiddle(midA, midB));
  out.push(...a.slice(a.length - tail).map((text): DiffLine => ({ op: " ", text })));
  return out;
}

function diffMiddle(a: string[], b: string[]): DiffLine[] {
  const n = a.length;
  const m = b.length;
  if (n === 0 || m === 0 || n * m > MAX_LCS_CELLS) {
    return [
      ...a.map((text): DiffLine => ({ op: "-", text })),
      ...b.map((text): DiffLine => ({ op: "+", text })),
    ];
  }
  // lcs[i][j] = LCS length of a[i..] and b[j..], row-major in one array.
  const lcs = new Uint32Array((n + 1) * (m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i * (m + 1) + j] = a[i] === b[j]
        ? lcs[(i + 1) * (m + 1) + j + 1]! + 1
        : Math.max(lcs[(i + 1) * (m + 1) + j]!, lcs[i * (m + 1) + j + 1]!);
    }
  }
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      out.push({ op: " ", text: a[i]! });
      i++;
      j++;
    } else if (lcs[(i + 1) * (m + 1) + j]! >= lcs[i * (m + 1) + j + 1]!) {
      out.push({ op: "-", text: a[i++]! });
    } else {
      out.push({ op: "+", text: b[j++]! });
    }
  }
  while (i < n) out.push({ op: "-", text: a[i++]! });
  while (j < m) out.push({ op: "+", text: b[j++]! });
  return out;
}

/**
 * Keeps changed lines with `context` lines around them, grouped in hunks; each hunk starts
 * with a `@@ -a,n +b,m @@` header line relative to the diffed texts.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { diffLines, unifiedHunks } from "./diff_view.ts";
 * const h = unifiedHunks(diffLines("a\nb", "a\nc"), 1);
 * assert(h[0] === "@@ -1,2 +1,2 @@");
 * ```
 */
export function unifiedHunks(diff: DiffLine[], context = 3): string[] {
  const out: string[] = [];
  const changed = diff.map((d) => d.op !== " ");
  let k = 0;
  while (k < diff.length) {
    if (!changed[k]) {
      k++;
      continue;
    }
    // A hunk spans from context lines before k to context lines after the last nearby change.
    const start = Math.max(0, k - context);
    let stop = k;
    let last = k;
    while (stop < diff.length) {
      if (changed[stop]) last = stop;
      if (stop - last > 2 * context) break;
      stop++;
    }
    const hunkEnd = Math.min(diff.length, last + context + 1);
    let oldLine = 1;
    let newLine = 1;
    for (let x = 0; x < start; x++) {
      if (diff[x]!.op !== "+") oldLine++;
      if (diff[x]!.op !== "-") newLine++;
    }
    const body = diff.slice(start, hunkEnd);
    const oldCount = body.filter((d) => d.op !== "+").length;
    const newCount = body.filter((d) => d.op !== "-").length;
    out.push(`@@ -${oldLine},${oldCount} +${newLine},${newCount} @@`);
    for (const d of body) out.push(d.op + d.text);
    k = hunkEnd;
  }
  return out;
}

/** Options of {@link renderDiff}. */
export interface DiffViewOptions {
  width: number;
  style: Style;
  /** At most this many lines are shown; the rest is summarised in one line. */
  maxLines: number;
}

/**
 * Renders a unified diff of two texts as coloured lines (removed red, added green, headers
 * cyan), each cut to the width, bounded to `maxLines`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { renderDiff } from "./diff_view.ts";
 * import { makeStyle } from "./text.ts";
 * const lines = renderDiff("a\n", "b\n", { width: 40, style: makeStyle(false), maxLines: 10 });
 * assert(lines.includes("-a") && lines.includes("+b"));
 * ```
 */
export function renderDiff(before: string, after: string, options: DiffViewOptions): string[] {
  const { style: s, width, maxLines } = options;
  const hunks = unifiedHunks(diffLines(sanitize(before), sanitize(after)));
  const shown = hunks.length > maxLines ? hunks.slice(0, Math.max(0, maxLines - 1)) : hunks;
  const lines = shown.map((l) => {
    const cut = truncate(l, width);
    if (l.startsWith("@@")) return s.cyan(cut);
    if (l.startsWith("+")) return s.green(cut);
    if (l.startsWith("-")) return s.red(cut);
    return s.dim(cut);
  });
  if (hunks.length > shown.length) {
    lines.push(s.gray(`… ${hunks.length - shown.length} more diff lines`));
  }
  return lines;
}
