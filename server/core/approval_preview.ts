/**
 * The diff an approval shows for a file change (`approval.requested.preview`), bounded so that
 * the frame carrying it fits `max_server_frame_bytes`: when the whole diff does not fit, its head
 * and tail are kept around one line saying how much was left out.
 *
 * @module
 */
import { unifiedDiff } from "../tools/diff.ts";
import type { FileChangePreview } from "../tools/tool.ts";

const encoder = new TextEncoder();

/** The UTF-8 bytes a string takes inside a JSON frame, quotes included. */
export function jsonBytes(value: unknown): number {
  return encoder.encode(JSON.stringify(value)).length;
}

/** Longest line kept whole in a cut preview, in characters; longer ones end in `…`. */
export const MAX_PREVIEW_LINE_CHARS = 1000;
/** Smallest budget a preview is made for; below it there is none. */
export const MIN_PREVIEW_BYTES = 256;
/** Bytes kept for the marker line of a cut preview. */
const MARKER_BYTES = 120;

/**
 * `diff` as it fits in `maxBytes` of JSON string (quotes and escapes counted): whole when it
 * fits, else its first and last lines around `… N lines (B bytes) of the diff left out …`.
 * Undefined when `maxBytes` is below {@link MIN_PREVIEW_BYTES}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { boundPreview, jsonBytes } from "./approval_preview.ts";
 * const diff = Array.from({ length: 1000 }, (_, i) => `+line ${i}`).join("\n") + "\n";
 * assert.equal(boundPreview(diff, 1 << 20), diff);
 * const cut = boundPreview(diff, 2000)!;
 * assert(jsonBytes(cut) <= 2000 && cut.startsWith("+line 0\n") && cut.endsWith("+line 999\n"));
 * assert.match(cut, /… \d+ lines \(\d+ bytes\) of the diff left out …/);
 * ```
 */
export function boundPreview(diff: string, maxBytes: number): string | undefined {
  if (maxBytes < MIN_PREVIEW_BYTES) return undefined;
  if (jsonBytes(diff) <= maxBytes) return diff;
  const ends = diff.endsWith("\n");
  const lines = (ends ? diff.slice(0, -1) : diff).split("\n").map((l) =>
    l.length > MAX_PREVIEW_LINE_CHARS ? `${l.slice(0, MAX_PREVIEW_LINE_CHARS)}…` : l
  );
  // Each line costs its escaped bytes plus the two of its escaped newline.
  const cost = (l: string) => jsonBytes(l) - 2 + 2;
  const half = Math.floor((maxBytes - 2 - MARKER_BYTES) / 2);
  let head = 0;
  for (let used = 0; head < lines.length && used + cost(lines[head]!) <= half; head++) {
    used += cost(lines[head]!);
  }
  let tail = lines.length;
  for (let used = 0; tail > head && used + cost(lines[tail - 1]!) <= half; tail--) {
    used += cost(lines[tail - 1]!);
  }
  const left = lines.slice(head, tail);
  const leftBytes = left.reduce((n, l) => n + encoder.encode(l).length + 1, 0);
  const marker = `… ${left.length} lines (${leftBytes} bytes) of the diff left out …`;
  const kept = [...lines.slice(0, head), marker, ...lines.slice(tail)];
  return kept.join("\n") + (ends ? "\n" : "");
}

/** The bounded unified diff of a change (a new file: every line added). */
export function changePreview(change: FileChangePreview, maxBytes: number): string | undefined {
  return boundPreview(unifiedDiff(change.path, change.before ?? "", change.after), maxBytes);
}
