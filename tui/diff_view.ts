/**
 * A unified diff rendered for the terminal, for `edit_file` and `write_file` tool calls. The
 * diff itself is the tools' own (`server/tools/diff.ts`), so the TUI shows the same hunks the
 * model is told about.
 *
 * @module
 */
import { unifiedDiff } from "../protocol/mod.ts";
import { sanitize, type Style, truncate } from "./text.ts";

/** Options of {@link renderDiff}. */
export interface DiffViewOptions {
  width: number;
  style: Style;
  /** At most this many lines are shown; the rest is summarised in one line. */
  maxLines: number;
}

/**
 * Renders a unified diff of two texts as coloured lines (removed red, added green, headers
 * cyan), each cut to the width, bounded to `maxLines`. The hunks' line numbers count from the
 * start of `before`; for a snippet of a file, prefer {@link renderUnifiedDiff} of the tool's
 * own diff, whose numbers are the file's.
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
  return renderUnifiedDiff(unifiedDiff("", sanitize(before), sanitize(after)), options);
}

/**
 * Renders the hunks of a unified diff given as text, such as the one `edit_file` returns in
 * its output after a line saying what it did: everything before the first `@@` line (that
 * line, the `---`/`+++` headers) is left out, and so are the `\ No newline at end of file`
 * markers. Lines that are not diff lines (a note that output was omitted) are shown grey.
 * Returns no lines when the text holds no hunk.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { renderUnifiedDiff } from "./diff_view.ts";
 * import { makeStyle } from "./text.ts";
 * const out = 'Edited "f": replaced 1 occurrence\n\n--- a/f\n+++ b/f\n@@ -2 +2 @@\n-b\n+B\n';
 * const lines = renderUnifiedDiff(out, { width: 40, style: makeStyle(false), maxLines: 10 });
 * assert(lines.join("|") === "@@ -2 +2 @@|-b|+B");
 * ```
 */
export function renderUnifiedDiff(diff: string, options: DiffViewOptions): string[] {
  const { style: s, width, maxLines } = options;
  const all = sanitize(diff).replace(/\n$/, "").split("\n");
  const start = all.findIndex((l) => l.startsWith("@@"));
  if (start === -1) return [];
  const hunks = all.slice(start).filter((l) => !l.startsWith("\\"));
  const shown = hunks.length > maxLines ? hunks.slice(0, Math.max(0, maxLines - 1)) : hunks;
  const lines = shown.map((l) => {
    const cut = truncate(l, width);
    if (l.startsWith("@@")) return s.cyan(cut);
    if (l.startsWith("+")) return s.green(cut);
    if (l.startsWith("-")) return s.red(cut);
    if (l.startsWith(" ")) return s.dim(cut);
    return s.gray(cut);
  });
  if (hunks.length > shown.length) {
    lines.push(s.gray(`… ${hunks.length - shown.length} more diff lines`));
  }
  return lines;
}
