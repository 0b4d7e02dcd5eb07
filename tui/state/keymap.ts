/**
 * The key reducer: a table of named actions and a keymap from key chords to action names.
 * A chord is written `ctrl+a`, `alt+left`, `shift+enter` or `enter`; a key with Ctrl is looked
 * up as `ctrl+NAME` only (other modifiers ignored, unbound means nothing happens), other keys
 * as `alt+NAME`, `shift+NAME`, then `NAME`. While an approval is pending, its own small table
 * is consulted first.
 *
 * @module
 */
import { pasteImage, removeLastImage, requestClipboardImage } from "./images.ts";
import { rememberedText } from "./rules_text.ts";
import * as ed from "../composer.ts";
import type { KeyEvent } from "../keys.ts";
import { type ClientState, type Effect, requestId } from "./model.ts";
import { acceptSearch, cancelSearch, editSearch, searchOlder } from "./history_search.ts";
import { completeCommand } from "./commands.ts";
import { completeMention } from "./mentions.ts";
import { showReasoning } from "./reasoning.ts";
import { choosePicked, closePicker, editPickerFilter, movePicker } from "./sessions.ts";
import { submit } from "./submit.ts";
import { notice } from "./transcript.ts";
import { cancelTurn } from "./turn.ts";
import { closeRewind, enterRewind, moveRewind, openRewind, rewindText } from "./rewind.ts";
import { takeBackLast } from "./waiting.ts";
import { configurePolicy, goOn, nextPolicy } from "./modes.ts";

/** Whether Tab would complete something here: a command being typed, or an @path mention. */
function completing(state: ClientState): boolean {
  const text = state.composer.text;
  if (text.trimStart().startsWith("/")) return true;
  const before = text.slice(0, state.composer.cursor);
  return /(?:^|\s)@\S*$/.test(before);
}

/** A key that is not text (Enter, arrows, Ctrl+letter…). */
type NamedKey = Extract<KeyEvent, { type: "key" }>;

/**
 * An action: it changes the state and returns effects, or `undefined` when it does not apply
 * here (the key is then looked up further, as if the binding were not there).
 */
export type Action = (state: ClientState, key: KeyContext) => Effect[] | undefined;

/** What an action knows of the key that runs it. */
export interface KeyContext {
  ev: KeyEvent;
  /** A first Ctrl+C on an empty idle composer had armed the exit before this key. */
  exitWasArmed: boolean;
  /** A first Esc on an empty idle composer had armed the rewind picker before this key. */
  escWasArmed?: boolean;
}

/** Replaces the composer's buffer with `edit` applied to it. */
function edit(f: (b: ed.Buffer) => ed.Buffer): Action {
  return (state) => {
    // An edit does not stop a history walk: the edited entry is kept by the history when
    // Up/Down leave it, and Down past the newest still gives the draft.
    state.composer = f(state.composer);
    return [];
  };
}

function historyStep(state: ClientState, dir: -1 | 1): Effect[] {
  const current = state.composer.text;
  const text = dir < 0 ? state.history.previous(current) : state.history.next(current);
  if (text !== undefined) state.composer = ed.fromText(text);
  return [];
}

function resolveApproval(state: ClientState, approved: boolean, always = false): Effect[] {
  const a = state.approval;
  if (!a || !state.session) return [];
  state.approval = undefined;
  const tool = state.tools.find((t) => t.callId === a.callId);
  if (tool) tool.status = approved ? "running" : "proposed";
  // The server keeps the rule (the same one for every client) and says so on later calls.
  if (always) {
    notice(state, "info", `Always allowing ${rememberedText(a.name, tool?.args)} in this session`);
  }
  return [{
    kind: "send",
    message: {
      type: "approval.resolve",
      request_id: requestId(state),
      session_id: state.session.id,
      approval_id: a.approvalId,
      approved,
      ...(always ? { remember: "session" as const } : {}),
    },
  }];
}

/** Rows one PgUp/PgDn moves an approval's diff preview by. */
export const PREVIEW_SCROLL_ROWS = 8;

function scrollPreview(state: ClientState, by: number): Effect[] {
  const a = state.approval!;
  if (a.preview === undefined) return [];
  // The renderer keeps the window full; here the offset only stays within the text.
  const lines = a.preview.split("\n").length;
  a.previewScroll = Math.max(0, Math.min(lines - 1, a.previewScroll + by));
  return [];
}

/** Every action a key can be bound to, by name. */
export const ACTIONS = {
  // Enter on an empty prompt after a plan-mode turn takes its offer: auto, and go on.
  "composer.submit": (state) => {
    const offer = goOn(state);
    if (offer) return offer;
    if (state.composer.text.trim() !== "") state.planOffer = false;
    return submit(state);
  },
  /** Shift+Tab: the next approval policy (plan mode among them). */
  "policy.cycle": (state) => configurePolicy(state, nextPolicy(state.approvalPolicy)),
  "composer.newline": edit((b) => ed.insert(b, "\n")),
  /** Tab: completes an `@path` mention at the cursor, or indents. */
  // Tab completes a command name being typed, else an @path mention.
  // While a turn runs, Tab on a prompt queues it (or steers: see `steer_key`), unless it is
  // completing a command or an @path mention.
  "composer.complete": (state) => {
    if (state.turn && state.composer.text.trim() !== "" && !completing(state)) {
      return submit(state, "tab");
    }
    return completeCommand(state) ? [] : completeMention(state);
  },
  /** Alt+Up: takes the last prompt queued behind the running turn back for editing. */
  "waiting.take-back": (state) => takeBackLast(state),
  "cursor.left": edit(ed.left),
  "cursor.right": edit(ed.right),
  "cursor.word-left": edit(ed.wordLeft),
  "cursor.word-right": edit(ed.wordRight),
  "cursor.line-start": edit(ed.home),
  "cursor.line-end": edit(ed.end),
  // Up and Down move by visual row in a wrapped or multi-line prompt; only from its first or
  // last row do they walk the history.
  "cursor.up": (state) => {
    if (ed.onFirstRow(state.composer, state.composerWidth)) return historyStep(state, -1);
    state.composer = ed.up(state.composer, state.composerWidth);
    return [];
  },
  "cursor.down": (state) => {
    if (ed.onLastRow(state.composer, state.composerWidth)) return historyStep(state, 1);
    state.composer = ed.down(state.composer, state.composerWidth);
    return [];
  },
  "delete.back": (state) => {
    // At the start of the composer, Backspace takes back the last image chip first.
    if (!removeLastImage(state)) state.composer = ed.backspace(state.composer);
    return [];
  },
  "delete.forward": edit(ed.deleteForward),
  "delete.word-back": edit(ed.deleteWordBack),
  "delete.word-forward": edit(ed.deleteWordForward),
  "delete.to-line-start": edit(ed.killToLineStart),
  "delete.to-line-end": edit(ed.killToLineEnd),
  "history.previous": (state) => historyStep(state, -1),
  "history.next": (state) => historyStep(state, 1),
  "image.paste": (state) => requestClipboardImage(state),
  "reasoning.show": (state) => {
    showReasoning(state);
    return [];
  },
  "history.search": (state) => {
    searchOlder(state);
    return [];
  },
  "search.accept": (state) => {
    acceptSearch(state);
    return [];
  },
  "search.cancel": (state) => {
    cancelSearch(state);
    return [];
  },
  "search.delete": (state) => {
    editSearch(state, { remove: true });
    return [];
  },
  "picker.up": (state) => {
    movePicker(state, -1);
    return [];
  },
  "picker.down": (state) => {
    movePicker(state, 1);
    return [];
  },
  "picker.choose": (state) => choosePicked(state),
  "picker.close": (state) => closePicker(state),
  /**
   * Ctrl+C in the picker: clears its filter, else closes a /resume picker; on the startup
   * picker (no session yet) it arms and takes the exit as when idle.
   */
  "picker.interrupt": (state) => {
    const p = state.picker!;
    if (p.filter !== "") {
      p.filter = "";
      p.index = 0;
      return [];
    }
    return p.startup && !state.session ? undefined : closePicker(state);
  },
  "picker.delete": (state) => {
    editPickerFilter(state, { remove: true });
    return [];
  },
  /** Esc: cancels the turn; idle on an empty composer, twice opens the rewind picker. */
  "turn.cancel": (state, key) => {
    if (state.turn) return cancelTurn(state);
    if (state.composer.text !== "" || !state.session) return [];
    if (key.escWasArmed) {
      if (state.hint === ESC_AGAIN) state.hint = undefined;
      return openRewind(state);
    }
    state.escArmed = true;
    state.hint = ESC_AGAIN;
    return [];
  },
  "rewind.up": (state) => {
    moveRewind(state, -1);
    return [];
  },
  "rewind.down": (state) => {
    moveRewind(state, 1);
    return [];
  },
  "rewind.enter": (state) => enterRewind(state),
  "rewind.close": (state) => closeRewind(state),
  /** Ctrl+C: cancel the turn, else empty the composer, else arm (then take) the exit. */
  "app.interrupt": (state, key) => {
    // While a cancel awaits confirmation, Ctrl+C does as when idle, so twice still exits.
    if (state.turn && state.turn.phase !== "cancelling") return cancelTurn(state);
    if (state.composer.text !== "") {
      // The line is abandoned, as in a shell: a history walk starts afresh.
      state.history.reset();
      state.composer = ed.EMPTY_BUFFER;
      return [];
    }
    if (key.exitWasArmed) return [{ kind: "exit", status: 0 }];
    state.exitArmed = true;
    state.hintUnderExit = state.hint;
    state.hint = "Press Ctrl+C again to exit";
    return [];
  },
  /** Ctrl+D: exit on an empty composer, else delete forward. */
  "app.exit-or-delete": (state) => {
    if (state.composer.text === "") return [{ kind: "exit", status: 0 }];
    state.composer = ed.deleteForward(state.composer);
    return [];
  },
  /** Tab in the approval box: the next choice, unless there is a prompt to queue (scv 0.3). */
  "approval.next-or-queue": (state) => {
    if (state.composer.text.trim() !== "" && !completing(state)) return undefined;
    const a = state.approval!;
    a.choice = CHOICES[(CHOICES.indexOf(a.choice) + 1) % CHOICES.length]!;
    return [];
  },
  "approval.next": (state) => {
    const a = state.approval!;
    a.choice = CHOICES[(CHOICES.indexOf(a.choice) + 1) % CHOICES.length]!;
    return [];
  },
  "approval.previous": (state) => {
    const a = state.approval!;
    a.choice = CHOICES[(CHOICES.indexOf(a.choice) + CHOICES.length - 1) % CHOICES.length]!;
    return [];
  },
  /** Enter answers with the highlighted choice, when the composer is empty. */
  "approval.answer": (state, { ev }) => {
    if (ev.type !== "key" || ev.shift || ev.alt || ev.ctrl || state.composer.text !== "") {
      return undefined;
    }
    const choice = state.approval!.choice;
    return resolveApproval(state, choice !== "deny", choice === "always");
  },
  /** PgUp/PgDn: scroll the diff an edit's approval shows. */
  "approval.preview-up": (state) => scrollPreview(state, -PREVIEW_SCROLL_ROWS),
  "approval.preview-down": (state) => scrollPreview(state, PREVIEW_SCROLL_ROWS),
  "approval.approve": (state) => resolveApproval(state, true),
  "approval.always": (state) => resolveApproval(state, true, true),
  "approval.deny": (state) => resolveApproval(state, false),
} satisfies Record<string, Action>;

/** The hint after a first Esc on an empty idle composer. */
export const ESC_AGAIN = "Press Esc again to rewind to before a turn";

/** The approval box's choices, in the order ←/→ walk them. */
const CHOICES = ["approve", "deny", "always"] as const;

/** The name of an action in {@link ACTIONS}. */
export type ActionName = keyof typeof ACTIONS;

/** Key chords to action names. */
export const KEYMAP: Readonly<Record<string, ActionName>> = {
  "enter": "composer.submit",
  "shift+enter": "composer.newline",
  "alt+enter": "composer.newline",
  "ctrl+enter": "composer.newline",
  "ctrl+j": "composer.newline",
  "tab": "composer.complete",
  "shift+tab": "policy.cycle",
  "alt+up": "waiting.take-back",
  "left": "cursor.left",
  "ctrl+b": "cursor.left",
  "right": "cursor.right",
  "ctrl+f": "cursor.right",
  "alt+left": "cursor.word-left",
  "ctrl+left": "cursor.word-left",
  "alt+b": "cursor.word-left",
  "alt+right": "cursor.word-right",
  "ctrl+right": "cursor.word-right",
  "alt+f": "cursor.word-right",
  "home": "cursor.line-start",
  "ctrl+a": "cursor.line-start",
  "end": "cursor.line-end",
  "ctrl+e": "cursor.line-end",
  "up": "cursor.up",
  "down": "cursor.down",
  "backspace": "delete.back",
  "ctrl+h": "delete.back",
  "delete": "delete.forward",
  "alt+backspace": "delete.word-back",
  "ctrl+backspace": "delete.word-back",
  "ctrl+w": "delete.word-back",
  "alt+d": "delete.word-forward",
  "ctrl+u": "delete.to-line-start",
  "ctrl+k": "delete.to-line-end",
  "ctrl+p": "history.previous",
  "ctrl+n": "history.next",
  "ctrl+r": "history.search",
  "ctrl+o": "reasoning.show",
  "ctrl+v": "image.paste",
  "escape": "turn.cancel",
  "ctrl+c": "app.interrupt",
  "ctrl+d": "app.exit-or-delete",
};

/**
 * Chords that apply while an approval is pending, before {@link KEYMAP}. The letters apply only
 * when the composer is empty (otherwise they are typed); Enter only without modifiers.
 */
export const APPROVAL_KEYMAP: Readonly<Record<string, ActionName>> = {
  "left": "approval.previous",
  "right": "approval.next",
  "tab": "approval.next-or-queue",
  "enter": "approval.answer",
  "y": "approval.approve",
  "n": "approval.deny",
  "a": "approval.always",
  "pageup": "approval.preview-up",
  "pagedown": "approval.preview-down",
};

/** Chords of the session picker, before the others; typed text filters it. */
export const PICKER_KEYMAP: Readonly<Record<string, ActionName>> = {
  "up": "picker.up",
  "ctrl+p": "picker.up",
  "down": "picker.down",
  "ctrl+n": "picker.down",
  "enter": "picker.choose",
  "escape": "picker.close",
  "ctrl+c": "picker.interrupt",
  "backspace": "picker.delete",
};

/** Chords of the rewind picker and the undo's question, before the others. */
export const REWIND_KEYMAP: Readonly<Record<string, ActionName>> = {
  "up": "rewind.up",
  "ctrl+p": "rewind.up",
  "left": "rewind.up",
  "down": "rewind.down",
  "ctrl+n": "rewind.down",
  "right": "rewind.down",
  "tab": "rewind.down",
  "enter": "rewind.enter",
  "escape": "rewind.close",
  "ctrl+c": "rewind.close",
};

/**
 * Chords of a Ctrl+R search; typed text extends the query. Any other key keeps the match and
 * then does what it does, as in readline.
 */
export const SEARCH_KEYMAP: Readonly<Record<string, ActionName>> = {
  "ctrl+r": "history.search",
  "enter": "search.accept",
  "escape": "search.cancel",
  "ctrl+g": "search.cancel",
  "ctrl+c": "search.cancel",
  "backspace": "search.delete",
};

/** The chords a key is looked up by, most specific first. */
function chords(ev: NamedKey): string[] {
  if (ev.ctrl) return [`ctrl+${ev.name}`];
  const out: string[] = [];
  if (ev.alt) out.push(`alt+${ev.name}`);
  if (ev.shift) out.push(`shift+${ev.name}`);
  out.push(ev.name);
  return out;
}

/** The tables a key is looked up in now, most specific first. */
function tables(state: ClientState): Readonly<Record<string, ActionName>>[] {
  const out = [];
  if (state.picker) out.push(PICKER_KEYMAP);
  if (state.rewind) out.push(REWIND_KEYMAP);
  if (state.search) out.push(SEARCH_KEYMAP);
  if (state.approval) out.push(APPROVAL_KEYMAP);
  out.push(KEYMAP);
  return out;
}

function run(state: ClientState, key: KeyContext, candidates: string[]): Effect[] {
  if (state.search && !candidates.some((c) => SEARCH_KEYMAP[c] !== undefined)) {
    acceptSearch(state);
  }
  for (const table of tables(state)) {
    for (const chord of candidates) {
      const name = table[chord];
      if (name === undefined) continue;
      const fx = (ACTIONS[name] as Action)(state, key);
      if (fx !== undefined) return fx;
    }
  }
  return [];
}

function applyText(
  state: ClientState,
  ev: Extract<KeyEvent, { type: "text" }>,
  key: KeyContext,
): Effect[] {
  // An Alt+character with no binding is typed as the character (see below).
  const typed = !ev.alt || KEYMAP[`alt+${ev.text}`] === undefined;
  if (state.picker && typed) {
    editPickerFilter(state, ev.text);
    return [];
  }
  // Letters answer the rewind's question or choose its mode; nothing else is typed meanwhile.
  if (state.rewind && typed) return rewindText(state, ev.text);
  if (state.search && typed) {
    editSearch(state, ev.text);
    return [];
  }
  if (state.search) acceptSearch(state);
  // Only a single typed letter answers: a longer text event (fast typing) is typed.
  if (state.approval && !ev.alt && state.composer.text === "" && ev.text.length === 1) {
    const name = APPROVAL_KEYMAP[ev.text.toLowerCase()];
    if (name !== undefined) return (ACTIONS[name] as Action)(state, key) ?? [];
  }
  if (ev.alt) {
    const name = KEYMAP[`alt+${ev.text}`];
    if (name !== undefined) return (ACTIONS[name] as Action)(state, key) ?? [];
    // Unbound: typed as the character. Esc pressed just before a key arrives as ESC and the
    // key in one read, which reads as Alt+key; dropping it would lose what was typed.
  }
  state.composer = ed.insert(state.composer, ev.text);
  return [];
}

/**
 * Applies one key event: editing, history, approval answers, cancel and exit.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createState } from "./model.ts";
 * import { applyKey } from "./keymap.ts";
 * const s = createState({ model: "m", cwd: "/w", historyLimits: { maxItems: 10, maxBytes: 100 } });
 * applyKey(s, { type: "text", text: "hi" });
 * assert(s.composer.text === "hi");
 * const fx = applyKey(s, { type: "key", name: "d", ctrl: true, alt: false, shift: false });
 * assert(fx.length === 0); // Ctrl+D on a non-empty composer deletes forward
 * ```
 */
export function applyKey(state: ClientState, ev: KeyEvent): Effect[] {
  // A focus report changes nothing on screen: only whether to notify.
  if (ev.type === "focus") {
    state.focused = ev.focused;
    return [];
  }
  state.version++;
  const wasArmed = state.exitArmed;
  state.exitArmed = false;
  const escWasArmed = state.escArmed;
  state.escArmed = false;
  if (escWasArmed && state.hint === ESC_AGAIN) state.hint = undefined;
  if (wasArmed && state.hint?.startsWith("Press Ctrl+C")) {
    // Only a cancel still awaiting confirmation has a hint worth showing again.
    state.hint = state.turn?.phase === "cancelling" ? state.hintUnderExit : undefined;
  }
  const tab = ev.type === "key" && ev.name === "tab" && !ev.ctrl && !ev.alt && !ev.shift;
  if (!tab && state.completionHint !== undefined) {
    // A completion's candidates are stale once the user types on.
    if (state.hint === state.completionHint) state.hint = undefined;
    state.completionHint = undefined;
  }
  const key: KeyContext = { ev, exitWasArmed: wasArmed, escWasArmed };
  if (ev.type === "paste") {
    // A paste into the picker or a search is their text, on one line.
    const line = ev.text.replace(/\s+/g, " ");
    if (state.picker) editPickerFilter(state, line);
    else if (state.rewind) return [];
    else if (state.search) editSearch(state, line);
    else if (!pasteImage(state, ev.text)) state.composer = ed.insert(state.composer, ev.text);
    return [];
  }
  if (ev.type === "text") return applyText(state, ev, key);
  return run(state, key, chords(ev));
}
