/**
 * Ctrl+R: an incremental search of the prompt history, newest first, as in readline. The
 * composer shows the match while the search runs; Enter keeps it, Esc gives back what was
 * there before, Ctrl+R again finds an older match.
 *
 * @module
 */
import * as ed from "../composer.ts";
import type { ClientState } from "./model.ts";

/** The newest entry before `before` that contains `query` (any case), if there is one. */
function find(entries: readonly string[], query: string, before: number): number | undefined {
  const q = query.toLowerCase();
  for (let i = Math.min(before, entries.length) - 1; i >= 0; i--) {
    if (entries[i]!.toLowerCase().includes(q)) return i;
  }
  return undefined;
}

function show(state: ClientState, exhausted = false): void {
  const s = state.search!;
  const entries = state.history.entries;
  if (s.match !== undefined) state.composer = ed.fromText(entries[s.match]!);
  const found = s.query === "" || s.match !== undefined;
  const label = !found ? "no match" : exhausted ? "no older match" : "search";
  state.hint = `${label}: ${s.query}_ · Ctrl+R older · Enter keep · Esc cancel`;
}

/**
 * Starts a search, or (while one runs) finds the next older match: one that reads differently
 * from the match shown (a prompt sent twice is found once), staying at the oldest.
 */
export function searchOlder(state: ClientState): void {
  const s = state.search;
  if (!s) {
    state.search = { query: "", draft: state.composer, match: undefined };
    show(state);
    return;
  }
  // As in readline, Ctrl+R Ctrl+R with nothing typed walks back through every entry.
  const entries = state.history.entries;
  const shown = s.match === undefined ? undefined : entries[s.match];
  let older = find(entries, s.query, s.match ?? entries.length);
  while (older !== undefined && entries[older] === shown) older = find(entries, s.query, older);
  if (older !== undefined) s.match = older;
  show(state, older === undefined);
}

/** Types into the query (or removes its last character): the match is searched afresh. */
export function editSearch(state: ClientState, text: string | { remove: true }): void {
  const s = state.search!;
  s.query = typeof text === "string" ? s.query + text : [...s.query].slice(0, -1).join("");
  s.match = s.query === ""
    ? undefined
    : find(state.history.entries, s.query, state.history.entries.length);
  if (s.match === undefined) state.composer = s.draft;
  show(state);
}

/** Ends the search keeping the match in the composer, cursor at its end. */
export function acceptSearch(state: ClientState): void {
  state.search = undefined;
  state.hint = undefined;
  state.history.reset();
  state.composer = ed.end(state.composer);
}

/** Ends the search giving back what the composer held before it. */
export function cancelSearch(state: ClientState): void {
  const s = state.search!;
  state.search = undefined;
  state.hint = undefined;
  state.composer = s.draft;
}
