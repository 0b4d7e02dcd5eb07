/**
 * Markdown block splitting of a streamed assistant message: complete blocks go to the
 * transcript (and so to scrollback) as soon as the next block begins, so the live region only
 * holds the block still being written.
 *
 * @module
 */
import { marked, type Token, type Tokens } from "marked";
import type { ClientState, TranscriptItem } from "./model.ts";
import { finishItem } from "./transcript.ts";

/** Writes what is left of the streamed message to the transcript and starts afresh. */
export function endStreaming(state: ClientState, note?: string): void {
  if (state.streamText.trim() !== "") {
    const item: TranscriptItem = { kind: "assistant", text: state.streamText };
    if (note !== undefined) item.note = note;
    if (state.streamCommitted !== "") item.continued = true;
    finishItem(state, item);
  }
  state.streamText = "";
  state.streamCommitted = "";
  state.streamLexedAt = 0;
  state.streamId++;
}

/** Below this size the pending stream text is re-lexed at every newline; above, as it doubles. */
const RELEX_EVERY_NEWLINE_BYTES = 16 * 1024;

/** A link or image written as a reference (`[text][label]`, `[text][]`, `[label]`). */
const REFERENCE_RAW = /^!?\[[\s\S]*\]$/;

/**
 * Plain text that becomes a reference link once its definition arrives: the explicit forms
 * `[text][label]` and `[text][]`, not preceded by a word character or a backslash. A shortcut
 * `[label]` is not held: `[1]`, `[WIP]` and `cmd [options]` are common in answers, and holding
 * them would keep the rest of a long answer out of scrollback; one may show literally instead.
 */
const MAYBE_REFERENCE = /(?:^|[^\w\\])\[(?:[^[\]\\\n]|\\.)+\]\[(?:[^[\]\\\n]|\\.)*\]/;

/** Streamed text past this size is committed even if a reference link is still unresolved. */
const MAX_HELD_BYTES = 64 * 1024;

/**
 * Whether a block holds a reference-style link, resolved or not. Such a block is rendered
 * with the message's link definitions, which usually come at its very end; written on its own
 * it would show `[text][label]` and never the URL.
 */
function usesReference(block: Token): boolean {
  let found = false;
  marked.walkTokens([block], (t) => {
    if (found) return;
    if (t.type === "link" || t.type === "image") {
      found = REFERENCE_RAW.test(t.raw);
    } else if (t.type === "text" && !(t as Tokens.Text).tokens) {
      found = MAYBE_REFERENCE.test(t.raw);
    }
  });
  return found;
}

/** Appends streamed text, committing the blocks it completes. */
export function appendStreamText(state: ClientState, content: string): void {
  state.streamText += content;
  if (content.includes("\n")) commitCompleteBlocks(state);
}

/**
 * Moves the complete Markdown blocks at the start of the streamed text to the transcript, so
 * the live region only holds the block still being written. A block is complete once a later
 * block has begun; the last one never is until the message completes. Nor is a block that
 * uses a reference-style link: it and what follows wait for the whole message, so the link is
 * rendered with its definition.
 */
function commitCompleteBlocks(state: ClientState): void {
  const text = state.streamText;
  if (
    text.length > RELEX_EVERY_NEWLINE_BYTES && text.length < state.streamLexedAt * 1.5
  ) return;
  state.streamLexedAt = text.length;
  let tokens: Token[];
  try {
    tokens = marked.lexer(text, { gfm: true });
  } catch {
    return;
  }
  let last = tokens.length - 1;
  while (last >= 0 && tokens[last]!.type === "space") last--;
  // Bounded: a definition that never comes must not keep a long answer in the live region.
  const held = text.length > MAX_HELD_BYTES
    ? -1
    : tokens.findIndex((t, i) => i < last && usesReference(t));
  if (held !== -1) last = held;
  if (last <= 0) return;
  const done = tokens.slice(0, last).map((t) => t.raw).join("");
  if (done.trim() === "" || !text.startsWith(done)) return;
  const item: TranscriptItem = { kind: "assistant", text: done.replace(/\s+$/, "") };
  if (state.streamCommitted !== "") item.continued = true;
  finishItem(state, item);
  state.streamCommitted += done;
  state.streamText = text.slice(done.length);
  state.streamLexedAt = state.streamText.length;
  state.streamId++;
}

/** Ends the streamed message with its canonical text, writing only what was not yet written. */
export function completeStreaming(state: ClientState, content: string): void {
  const committed = state.streamCommitted;
  if (committed === "") {
    state.streamText = content;
  } else if (content.startsWith(committed)) {
    state.streamText = content.slice(committed.length);
  } else {
    // The canonical message differs from what streamed: show it whole rather than guess.
    state.streamCommitted = "";
    state.streamText = content;
  }
  endStreaming(state);
}
