/**
 * Reasoning ("thinking") text from `assistant.reasoning.delta`: while it streams the live
 * region shows only its last line, dimmed; when the provider call moves on it collapses to one
 * line in the transcript, and Ctrl+O writes the whole of the last reasoning there. Bounded: at
 * most {@link MAX_REASONING_BYTES} of it is kept, its tail always.
 *
 * @module
 */
import type { ClientState } from "./model.ts";
import { finishItem, notice } from "./transcript.ts";

/** The most reasoning text kept per provider call; past it the head is kept, and it says so. */
export const MAX_REASONING_BYTES = 256 * 1024;
/** How much of the end is kept to show the last line. */
const TAIL_CHARS = 2048;

const encoder = new TextEncoder();

/** Appends a reasoning delta. */
export function appendReasoning(state: ClientState, content: string): void {
  const r = state.reasoning;
  r.tail = (r.tail + content).slice(-TAIL_CHARS);
  if (r.cut) return;
  const bytes = encoder.encode(content).length;
  if (r.bytes + bytes > MAX_REASONING_BYTES) {
    r.cut = true;
    return;
  }
  r.text += content;
  r.bytes += bytes;
}

/** The last non-empty line of the streaming reasoning, for the live region ("" when none). */
export function reasoningLine(state: ClientState): string {
  const lines = state.reasoning.tail.split("\n").map((l) => l.trim()).filter((l) => l !== "");
  return lines.at(-1) ?? "";
}

/** The provider call's reasoning is over: one collapsed line goes to the transcript. */
export function endReasoning(state: ClientState): void {
  const r = state.reasoning;
  if (r.text.trim() === "" && !r.cut) return;
  r.last = { text: r.text, cut: r.cut };
  finishItem(state, { kind: "reasoning", text: reasoningLine(state), full: false });
  r.text = "";
  r.bytes = 0;
  r.cut = false;
  r.tail = "";
}

/** Ctrl+O: the whole of the last reasoning, into the transcript. */
export function showReasoning(state: ClientState): void {
  const r = state.reasoning;
  const current = r.text.trim() !== "" ? { text: r.text, cut: r.cut } : r.last;
  if (!current) {
    notice(state, "info", "No reasoning to show yet (the model may not send any)");
    return;
  }
  finishItem(state, { kind: "reasoning", text: current.text.trim(), full: true });
  if (current !== r.last) {
    notice(state, "info", "That is the reasoning so far; it goes on, and Ctrl+O later shows more");
  }
  if (current.cut) {
    notice(
      state,
      "warn",
      `The reasoning was longer; only its first ${MAX_REASONING_BYTES / 1024} KiB are kept`,
    );
  }
}
