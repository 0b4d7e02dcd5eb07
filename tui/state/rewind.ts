/**
 * Undo and rewind from the TUI's side: `/undo` (the files of the last turn that changed any,
 * after showing which files it will change and asking), `/rewind` and Esc twice on an empty
 * composer (a picker of the turns, then files, conversation or both), and what the transcript
 * says was restored. The server does the work (`session.checkpoints`, `session.rewind`).
 *
 * @module
 */
import type { ServerEventOf } from "../../protocol/mod.ts";
import {
  type ClientState,
  type Effect,
  requestId,
  REWIND_MODES,
  type RewindFlow,
  type RewindMode,
} from "./model.ts";

export { REWIND_MODES, type RewindFlow, type RewindMode } from "./model.ts";
import { notice } from "./transcript.ts";

/** The most paths the transcript and the confirmation list; the rest are counted. */
export const MAX_LISTED_PATHS = 10;

/** Refuses while a turn runs or without a session; true if refused. */
function refused(state: ClientState, what: string): boolean {
  if (state.turn) {
    notice(state, "error", `Cannot ${what} while a turn is running; press Esc to cancel it`);
    return true;
  }
  if (!state.session) {
    notice(state, "error", "Not connected to a session yet");
    return true;
  }
  if (state.session.checkpoints === false) {
    notice(state, "error", `Cannot ${what}: checkpoints are off (${state.session.checkpointsWhy})`);
    return true;
  }
  return false;
}

function listCheckpoints(state: ClientState, kind: RewindFlow["kind"]): Effect[] {
  const id = requestId(state);
  state.rewind = { kind, stage: "listing", requestId: id, turns: [], index: 0, mode: "files" };
  return [{
    kind: "send",
    message: { type: "session.checkpoints", request_id: id, session_id: state.session!.id },
  }];
}

/** `/undo`: asks for the checkpoints, to undo the last turn that changed files. */
export function startUndo(state: ClientState): Effect[] {
  if (refused(state, "undo")) return [];
  return listCheckpoints(state, "undo");
}

/** `/rewind` and Esc Esc: asks for the checkpoints, to pick a turn. */
export function openRewind(state: ClientState): Effect[] {
  if (refused(state, "rewind")) return [];
  return listCheckpoints(state, "rewind");
}

function rewindRequest(
  state: ClientState,
  turnId: string,
  mode: RewindMode,
  dryRun = false,
): Effect[] {
  const id = requestId(state);
  state.rewind!.requestId = id;
  return [{
    kind: "send",
    message: {
      type: "session.rewind",
      request_id: id,
      session_id: state.session!.id,
      turn_id: turnId,
      files: mode !== "conversation",
      conversation: mode !== "files",
      ...(dryRun ? { dry_run: true } : {}),
    },
  }];
}

/** `session.checkpoints`: the undo picks its turn, the rewind shows its picker. */
export function applyCheckpoints(
  state: ClientState,
  event: ServerEventOf<"session.checkpoints">,
): Effect[] {
  const r = state.rewind;
  if (!r || r.requestId !== event.request_id || r.stage !== "listing") return [];
  r.turns = event.turns;
  if (r.kind === "rewind") {
    if (event.turns.length === 0) {
      state.rewind = undefined;
      notice(state, "info", "Nothing to rewind to: no turn has run in this session yet");
      return [];
    }
    r.stage = "pick";
    return [];
  }
  const last = event.turns.findIndex((t) => t.files_changed > 0);
  if (last === -1) {
    state.rewind = undefined;
    notice(state, "info", "Nothing to undo: no turn of this session changed files");
    return [];
  }
  r.index = last;
  r.stage = "preview";
  return rewindRequest(state, event.turns[last]!.turn_id, "files", true);
}

/** `session.rewound`: a dry run becomes the question; a rewind is told in the transcript. */
export function applyRewound(
  state: ClientState,
  event: ServerEventOf<"session.rewound">,
): Effect[] {
  const r = state.rewind;
  if (!r || r.requestId !== event.request_id) return [];
  const more = event.truncated
    ? (event.restored_count ?? 0) + (event.removed_count ?? 0) - event.restored.length -
      event.removed.length
    : 0;
  if (event.dry_run) {
    if (event.restored.length + event.removed.length === 0) {
      state.rewind = undefined;
      notice(state, "info", "Nothing to undo: the files are already as they were");
      return [];
    }
    r.preview = { restored: event.restored, removed: event.removed, more };
    r.stage = "confirm";
    return [];
  }
  state.rewind = undefined;
  const lines: string[] = [];
  const title = r.turns[r.index]?.title ?? event.turn_id;
  const restoredN = event.restored_count ?? event.restored.length;
  const removedN = event.removed_count ?? event.removed.length;
  const files = restoredN + removedN;
  lines.push(
    files === 0 && event.conversation_turns_removed > 0
      ? `Rewound the conversation to before "${title}"`
      : `${r.kind === "undo" ? "Undid" : "Rewound to before"} "${title}": ${
        plural(restoredN, "file")
      } restored, ${plural(removedN, "file")} removed`,
  );
  lines.push(...pathLines(event.restored, event.removed, more));
  if (event.conversation_turns_removed > 0) {
    lines.push(
      `${plural(event.conversation_turns_removed, "turn")} dropped from the conversation ` +
        "(still shown above, no longer sent to the model)",
    );
  }
  if (files > 0) lines.push("/undo or /rewind undoes this rewind");
  notice(state, "info", lines.join("\n"));
  return [];
}

function plural(n: number, one: string): string {
  return `${n} ${one}${n === 1 ? "" : "s"}`;
}

/** Paths as transcript lines: `restored a.txt`, `removed b.txt`, and a count of the rest. */
export function pathLines(restored: string[], removed: string[], more = 0): string[] {
  const all = [
    ...restored.map((p) => `  restored ${p}`),
    ...removed.map((p) => `  removed  ${p}`),
  ];
  const shown = all.slice(0, MAX_LISTED_PATHS);
  const rest = all.length - shown.length + more;
  if (rest > 0) shown.push(`  … ${rest} more`);
  return shown;
}

/** A refusal of the flow's request ends the flow (the error itself is already shown). */
export function rewindRefused(state: ClientState, answers: (id: string) => boolean): void {
  if (state.rewind && answers(state.rewind.requestId)) state.rewind = undefined;
}

/** Moves the highlight (picker) or the choice (modes). */
export function moveRewind(state: ClientState, delta: number): void {
  const r = state.rewind!;
  if (r.stage === "pick") {
    r.index = Math.min(r.turns.length - 1, Math.max(0, r.index + delta));
  } else if (r.stage === "mode") {
    const i = REWIND_MODES.indexOf(r.mode);
    r.mode = REWIND_MODES[(i + delta + REWIND_MODES.length) % REWIND_MODES.length]!;
  }
}

/** Enter: the picked turn goes on to the choice, the choice is sent, a confirmation taken. */
export function enterRewind(state: ClientState): Effect[] {
  const r = state.rewind!;
  if (r.stage === "pick") {
    r.stage = "mode";
    return [];
  }
  if (r.stage === "mode") {
    r.stage = "running";
    return rewindRequest(state, r.turns[r.index]!.turn_id, r.mode);
  }
  if (r.stage === "confirm") return confirmUndo(state, true);
  return [];
}

/** The answer to the undo's question. */
export function confirmUndo(state: ClientState, yes: boolean): Effect[] {
  const r = state.rewind!;
  if (r.stage !== "confirm") return [];
  if (!yes) {
    state.rewind = undefined;
    notice(state, "info", "Undo cancelled; nothing was changed");
    return [];
  }
  r.stage = "running";
  return rewindRequest(state, r.turns[r.index]!.turn_id, "files");
}

/** Esc: back from the choice to the picker, else closed. */
export function closeRewind(state: ClientState): Effect[] {
  const r = state.rewind!;
  if (r.stage === "mode") {
    r.stage = "pick";
    return [];
  }
  if (r.stage === "confirm") return confirmUndo(state, false);
  state.rewind = undefined;
  return [];
}

/** A letter typed while the flow shows: y/n answer the undo, f/c/b pick the mode. */
export function rewindText(state: ClientState, text: string): Effect[] {
  const r = state.rewind!;
  const t = text.toLowerCase();
  if (r.stage === "confirm" && (t === "y" || t === "n")) return confirmUndo(state, t === "y");
  if (r.stage === "mode") {
    const mode = ({ f: "files", c: "conversation", b: "both" } as const)[t as "f" | "c" | "b"];
    if (mode) {
      r.mode = mode;
      return enterRewind(state);
    }
  }
  return [];
}
