/**
 * A unified diff rendered for the terminal, for `edit_file` and `write_file` tool calls. The
 * diff itself is the tools' own (`server/tools/diff.ts`), so the TUI shows the same hunks the
 * model is told about.
 *
 * @module
 */
import { unifiedDiff } from "../server/tools/diff.ts";
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
  // Drop the "--- a/" and "+++ b/" header lines, the final newline's empty line, and the
  // "\ No newline at end of file" markers: the texts shown are snippets, not whole files.
  const hunks = unifiedDiff("", sanitize(before), sanitize(after)).split("\n").slice(2, -1)
    .filter((l) => !l.startsWith("\\"));
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
