/**
 * The transcript's bounds: finished items go to the bounded in-memory transcript and to the
 * outbox on their way to scrollback; the limits bound memory, never what is shown.
 *
 * @module
 */
import type { ClientState, TranscriptItem } from "./model.ts";

const encoder = new TextEncoder();

/** The in-memory size of an item, counted as the UTF-8 bytes of its text fields. */
export function itemBytes(item: TranscriptItem): number {
  switch (item.kind) {
    case "tool":
      return encoder.encode(item.summary).length + encoder.encode(item.output).length +
        encoder.encode(item.name).length;
    case "plan":
      return item.steps.reduce((n, s) => n + encoder.encode(s.text).length + 4, 0);
    default:
      return encoder.encode(item.text).length;
  }
}

/**
 * Appends a finished item to the transcript and the outbox, dropping the oldest items from the
 * transcript (they are in the terminal's scrollback, or in the outbox on their way there) to
 * stay within its limits. The limits bound the memory of the transcript, never what is shown.
 */
export function finishItem(state: ClientState, item: TranscriptItem): void {
  const bytes = itemBytes(item);
  state.outbox.push(item);
  state.outboxBytes += bytes;
  state.transcript.push(item);
  state.transcriptBytes += bytes;
  const { maxItems, maxBytes } = state.transcriptLimits;
  let drop = 0;
  while (
    drop < state.transcript.length - 1 &&
    (state.transcript.length - drop > maxItems || state.transcriptBytes > maxBytes)
  ) {
    state.transcriptBytes -= itemBytes(state.transcript[drop]!);
    drop++;
  }
  // A single item larger than the byte limit is still kept: it is the newest.
  if (drop > 0) state.transcript.splice(0, drop);
}

/** Adds a notice item (without bumping the version: for reducers, which bump it once). */
export function notice(state: ClientState, level: "info" | "warn" | "error", text: string): void {
  finishItem(state, { kind: "notice", level, text });
}

/** Adds a notice to the transcript (for the shell's own messages, e.g. a malformed frame). */
export function addNotice(
  state: ClientState,
  level: "info" | "warn" | "error",
  text: string,
): void {
  state.version++;
  notice(state, level, text);
}

/** Takes the finished items not yet written to scrollback. */
export function drainOutbox(state: ClientState): TranscriptItem[] {
  if (state.outbox.length === 0) return [];
  const items = state.outbox;
  state.outbox = [];
  state.outboxBytes = 0;
  return items;
}

/**
 * The startup banner (model, workspace, how to begin), then the warnings held since startup,
 * once: so the first line on screen says what is running.
 */
export function welcome(state: ClientState): void {
  addNotice(
    state,
    "info",
    `scv · ${state.model} · ${state.cwd}\nType a prompt and press Enter; /help lists commands.`,
  );
  for (const w of state.startupWarnings.splice(0)) notice(state, "warn", w);
}
