/**
 * A small unified line diff, for showing the model (and the user) what an edit changed. It
 * lives in protocol/ because it is a wire format: `edit_file`'s tool output carries such a
 * diff, which the server writes and clients (the TUI) render, and draw for other calls too.
 * Common leading and trailing lines are matched first; the changed region between them is
 * aligned by longest common subsequence when it is small enough, and shown as a plain
 * replacement when it is not, so time and memory stay bounded for any file.
 *
 * @module
 */

/** Lines of context around each change, as `diff -u` uses. */
export const CONTEXT_LINES = 3;
/** Largest changed region (old lines × new lines) aligned line by line. */
export const MAX_ALIGN_CELLS = 1_000_000;

interface Line {
  text: string;
  /** Whether a newline ends the line; only a file's last line can lack one. */
  eol: boolean;
}

type Kind = " " | "-" | "+";

interface Op {
  kind: Kind;
  line: Line;
}

function splitLines(s: string): Line[] {
  if (s === "") return [];
  const parts = s.split("\n");
  const last = parts.pop()!;
  const lines = parts.map((text) => ({ text, eol: true }));
  if (last !== "") lines.push({ text: last, eol: false });
  return lines;
}

/** Aligns `a` and `b` (ids of lines) by their longest common subsequence. */
function align(a: readonly Line[], b: readonly Line[], ids: Map<string, number>): Op[] {
  const id = (l: Line) => {
    const key = l.eol ? `${l.text}\n` : l.text;
    let v = ids.get(key);
    if (v === undefined) ids.set(key, v = ids.size);
    return v;
  };
  const n = a.length;
  const m = b.length;
  if (n * m > MAX_ALIGN_CELLS || n === 0 || m === 0) {
    return [
      ...a.map((line) => ({ kind: "-" as const, line })),
      ...b.map((line) => ({ kind: "+" as const, line })),
    ];
  }
  const ai = a.map(id);
  const bi = b.map(id);
  // lcs[i * (m + 1) + j]: length of the LCS of a[i..] and b[j..].
  const w = m + 1;
  const lcs = new Uint32Array((n + 1) * w);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i * w + j] = ai[i] === bi[j]
        ? lcs[(i + 1) * w + j + 1]! + 1
        : Math.max(lcs[(i + 1) * w + j]!, lcs[i * w + j + 1]!);
    }
  }
  const ops: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && ai[i] === bi[j]) {
      ops.push({ kind: " ", line: a[i++]! });
      j++;
    } else if (j >= m || (i < n && lcs[(i + 1) * w + j]! >= lcs[i * w + j + 1]!)) {
      ops.push({ kind: "-", line: a[i++]! });
    } else {
      ops.push({ kind: "+", line: b[j++]! });
    }
  }
  return ops;
}

function diffOps(a: Line[], b: Line[]): Op[] {
  const same = (x: Line, y: Line) => x.text === y.text && x.eol === y.eol;
  let pre = 0;
  while (pre < a.length && pre < b.length && same(a[pre]!, b[pre]!)) pre++;
  let suf = 0;
  while (
    suf < a.length - pre && suf < b.length - pre &&
    same(a[a.length - 1 - suf]!, b[b.length - 1 - suf]!)
  ) suf++;
  const middle = align(a.slice(pre, a.length - suf), b.slice(pre, b.length - suf), new Map());
  return [
    ...a.slice(0, pre).map((line) => ({ kind: " " as const, line })),
    ...middle,
    ...a.slice(a.length - suf).map((line) => ({ kind: " " as const, line })),
  ];
}

function range(start: number, count: number): string {
  return count === 1 ? `${start}` : `${start},${count}`;
}

/**
 * The unified diff (`--- a/PATH`, `+++ b/PATH`, `@@` hunks with three lines of context) that
 * turns `before` into `after`; empty when they are equal.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { unifiedDiff } from "./unified_diff.ts";
 * const d = unifiedDiff("f.txt", "a\nb\nc\n", "a\nB\nc\n");
 * assert(d === "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n");
 * ```
 */
export function unifiedDiff(path: string, before: string, after: string): string {
  if (before === after) return "";
  const ops = diffOps(splitLines(before), splitLines(after));
  // oldBefore[k] / newBefore[k]: lines of each side consumed by ops[0..k).
  const oldBefore = new Uint32Array(ops.length + 1);
  const newBefore = new Uint32Array(ops.length + 1);
  const changes: number[] = [];
  ops.forEach((op, k) => {
    oldBefore[k + 1] = oldBefore[k]! + (op.kind === "+" ? 0 : 1);
    newBefore[k + 1] = newBefore[k]! + (op.kind === "-" ? 0 : 1);
    if (op.kind !== " ") changes.push(k);
  });

  const out = [`--- a/${path}\n+++ b/${path}\n`];
  for (let h = 0; h < changes.length;) {
    const start = Math.max(0, changes[h]! - CONTEXT_LINES);
    let last = changes[h]!;
    let k = h;
    while (k + 1 < changes.length && changes[k + 1]! - last <= 2 * CONTEXT_LINES + 1) {
      last = changes[++k]!;
    }
    const stop = Math.min(ops.length, last + CONTEXT_LINES + 1);
    const oldCount = oldBefore[stop]! - oldBefore[start]!;
    const newCount = newBefore[stop]! - newBefore[start]!;
    const oldStart = oldBefore[start]! + (oldCount === 0 ? 0 : 1);
    const newStart = newBefore[start]! + (newCount === 0 ? 0 : 1);
    out.push(`@@ -${range(oldStart, oldCount)} +${range(newStart, newCount)} @@\n`);
    for (let x = start; x < stop; x++) {
      const op = ops[x]!;
      out.push(`${op.kind}${op.line.text}\n`);
      if (!op.line.eol) out.push("\\ No newline at end of file\n");
    }
    h = k + 1;
  }
  return out.join("");
}
