/**
 * The rewind picker and the undo's question, as rows for a width: the turns (time, files
 * changed, title) around the highlighted one, then files / conversation / both for the chosen
 * turn, or the files `/undo` will change and y/n. Empty while no undo or rewind is shown.
 *
 * @module
 */
import type { ClientState } from "./state/model.ts";
import { pathLines, REWIND_MODES, type RewindFlow } from "./state/rewind.ts";
import { sanitize, type Style, truncate } from "./text.ts";

/** Most turn rows shown at once; the list scrolls with the highlight. */
const ROWS = 8;

/** A recorded time as `HH:MM` in the terminal's zone (`utcOffsetMinutes` from UTC). */
function clock(iso: string, utcOffsetMinutes: number): string {
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return iso.slice(11, 16);
  return new Date(at + utcOffsetMinutes * 60_000).toISOString().slice(11, 16);
}

const MODE_LABELS = { files: "files", conversation: "conversation", both: "both" } as const;

/**
 * The rows for `room` rows at most.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createState } from "./state/mod.ts";
 * import { rewindRows } from "./rewind_view.ts";
 * import { makeStyle } from "./text.ts";
 * const s = createState({ model: "m", cwd: "/w", historyLimits: { maxItems: 1, maxBytes: 9 } });
 * s.rewind = { kind: "rewind", stage: "pick", requestId: "1", index: 0, mode: "files", turns: [
 *   { turn_id: "t", title: "Fix it", created_at: "2026-12-01T09:40:00.000Z", files_changed: 2 },
 * ] };
 * const rows = rewindRows(s, 60, makeStyle(false), 10);
 * assert(rows.some((r) => r.includes("09:40") && r.includes("2 files") && r.includes("Fix it")));
 * ```
 */
export function rewindRows(state: ClientState, w: number, s: Style, room: number): string[] {
  const r = state.rewind;
  if (!r || room <= 0) return [];
  const cw = Math.max(1, w - 2);
  const bar = (l: string) => s.cyan("│ ") + truncate(l, cw);
  const head = (text: string, keys: string) =>
    s.cyan("╭ ") + truncate(`${s.bold(text)} ${s.gray(`· ${keys}`)}`, cw);
  const foot = (text: string) => s.cyan("╰ ") + s.gray(truncate(text, cw));
  const rows = body(state, r, s, bar);
  const title = r.kind === "undo" ? "Undo the last turn that changed files" : "Rewind";
  const keys = r.stage === "confirm"
    ? "y restore · n keep"
    : r.stage === "mode"
    ? "f files · c conversation · b both · ←/→ Enter · Esc back"
    : "↑/↓ Enter · Esc cancel";
  const fixed = room >= 3 ? 2 : 0;
  const shown = rows.slice(0, Math.max(0, room - fixed));
  return fixed ? [head(title, keys), ...shown, foot(status(r))] : shown;
}

function status(r: RewindFlow): string {
  switch (r.stage) {
    case "listing":
      return "listing the checkpoints…";
    case "preview":
      return "looking at what the undo would change…";
    case "running":
      return "rewinding…";
    default:
      return `${r.turns.length} turn${r.turns.length === 1 ? "" : "s"}, newest first`;
  }
}

function body(
  state: ClientState,
  r: RewindFlow,
  s: Style,
  bar: (l: string) => string,
): string[] {
  if (r.stage === "confirm" && r.preview) {
    const t = r.turns[r.index];
    const { restored, removed, more } = r.preview;
    return [
      bar(`"${sanitize(t?.title ?? "")}" changed these files; put them back as they were?`),
      ...pathLines(restored, removed, more).map((l) => bar(sanitize(l))),
    ];
  }
  if (r.stage === "listing" || r.stage === "preview") return [];
  const n = Math.min(ROWS, r.turns.length);
  const first = Math.min(Math.max(0, r.index - n + 1), Math.max(0, r.turns.length - n));
  const rows = r.turns.slice(first, first + n).map((t, i) => {
    const on = first + i === r.index;
    const files = t.files_changed === 0
      ? "no files"
      : `${t.files_changed} file${t.files_changed === 1 ? "" : "s"}`;
    const line = `${on ? "›" : " "} ${clock(t.created_at, state.utcOffsetMinutes)} ${
      files.padStart(9)
    }  ${sanitize(t.title || "(no prompt)").replace(/\n/g, " ")}`;
    return bar(on ? s.inverse(line) : line);
  });
  if (r.stage === "mode" || r.stage === "running") {
    const choices = REWIND_MODES.map((m) => {
      const label = `[${m[0]}] ${MODE_LABELS[m]}`;
      return m === r.mode ? s.inverse(label) : label;
    }).join("  ");
    rows.push(bar(`Rewind to before it: ${choices}`));
  }
  return rows;
}
