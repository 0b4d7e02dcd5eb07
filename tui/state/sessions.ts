/**
 * Sessions from the TUI's side: starting a new one or resuming a recorded one (the picker),
 * the earlier transcript of a resumed session rendered from `session.history`, compaction on
 * request, and the model and approval policy changed with `session.configure`.
 *
 * @module
 */
import { showRecoveredNotice } from "./waiting.ts";
import type { ServerEventOf, SessionSummary } from "../../protocol/mod.ts";
import { formatTokens } from "./format.ts";
import {
  type ClientState,
  type Effect,
  requestId,
  type SessionInfo,
  type SessionPicker,
} from "./model.ts";
import { finishItem, notice } from "./transcript.ts";
import { splitAttachments } from "./mentions.ts";
import { applyPlan, forgetPlan } from "./plan.ts";
import { parsePlanText } from "../../protocol/mod.ts";

/** How many recorded sessions the picker asks for. */
export const PICKER_LIMIT = 100;

/** Refuses a session command while a turn runs or before a session exists; true if refused. */
/** Whether a session request cannot go now (a turn runs, no session), saying so in a notice. */
export function busy(state: ClientState, what: string, needsSession = true): boolean {
  if (state.turn) {
    notice(state, "error", `Cannot ${what} while a turn is running; press Esc to cancel it`);
    return true;
  }
  if (needsSession && !state.session) {
    notice(state, "error", "Not connected to a session yet");
    return true;
  }
  return false;
}

/** Sends `session.start` for a new session, or to resume `resume`. */
export function startSession(state: ClientState, resume?: string): Effect[] {
  const id = requestId(state);
  state.pending.start = resume === undefined ? { requestId: id } : { requestId: id, resume };
  state.hint = resume === undefined ? "Starting a new session…" : "Resuming the session…";
  return [{
    kind: "send",
    message: {
      type: "session.start",
      request_id: id,
      cwd: state.cwd,
      ...(resume === undefined ? {} : { resume }),
    },
  }];
}

/** `/new`: a new session in the same workspace; the old one stays recorded. */
export function newSession(state: ClientState): Effect[] {
  if (busy(state, "start a new session", false)) return [];
  return startSession(state);
}

/** Opens the session picker and asks for this workspace's recorded sessions. */
export function openPicker(state: ClientState, startup: boolean): Effect[] {
  if (!startup && busy(state, "resume a session", false)) return [];
  const id = requestId(state);
  state.picker = {
    requestId: id,
    sessions: undefined,
    truncated: false,
    filter: "",
    index: 0,
    startup,
    utcOffsetMinutes: state.utcOffsetMinutes,
  };
  return [{
    kind: "send",
    message: { type: "session.list", request_id: id, cwd: state.cwd, limit: PICKER_LIMIT },
  }];
}

/** When a recorded session was last used, shown `utcOffsetMinutes` from UTC: `2026-12-01 09:40`. */
export function sessionDate(s: SessionSummary, utcOffsetMinutes = 0): string {
  const at = Date.parse(s.updated_at);
  // The server records UTC; an unparsable time is shown as recorded.
  const local = utcOffsetMinutes === 0 || Number.isNaN(at)
    ? s.updated_at
    : new Date(at + utcOffsetMinutes * 60_000).toISOString();
  return local.slice(0, 16).replace("T", " ");
}

/** The sessions the picker shows for its filter. */
export function shownSessions(picker: SessionPicker): SessionSummary[] {
  const all = picker.sessions ?? [];
  const f = picker.filter.trim().toLowerCase();
  if (f === "") return all;
  return all.filter((s) =>
    `${sessionDate(s, picker.utcOffsetMinutes)} ${s.title} ${s.session_id}`.toLowerCase()
      .includes(f)
  );
}

/** Types into the picker's filter (or, with `remove`, deletes its last character). */
export function editPickerFilter(state: ClientState, text: string | { remove: true }): void {
  const p = state.picker!;
  p.filter = typeof text === "string" ? p.filter + text : [...p.filter].slice(0, -1).join("");
  p.index = 0;
}

/** Moves the picker's highlight by `delta` rows, staying within the shown sessions. */
export function movePicker(state: ClientState, delta: number): void {
  const p = state.picker!;
  const n = shownSessions(p).length;
  p.index = n === 0 ? 0 : Math.min(n - 1, Math.max(0, p.index + delta));
}

/** Resumes the highlighted session. */
export function choosePicked(state: ClientState): Effect[] {
  const p = state.picker!;
  const chosen = shownSessions(p)[p.index];
  if (!chosen) return [];
  state.picker = undefined;
  if (chosen.session_id === state.session?.id) {
    notice(state, "info", "That is the session already open");
    return [];
  }
  if (state.otherSessions.has(chosen.session_id)) return switchBack(state, chosen.session_id);
  return startSession(state, chosen.session_id);
}

/** Closes the picker; at startup a new session starts instead. */
export function closePicker(state: ClientState): Effect[] {
  const p = state.picker;
  state.picker = undefined;
  if (p?.startup && !state.session) return startSession(state);
  return [];
}

/** `session.list`: fills the picker that asked. */
export function applySessionList(
  state: ClientState,
  event: ServerEventOf<"session.list">,
): Effect[] {
  const p = state.picker;
  if (!p || p.requestId !== event.request_id) return [];
  p.sessions = event.sessions;
  p.truncated = event.truncated === true;
  p.index = 0;
  if (event.sessions.length > 0) return [];
  state.picker = undefined;
  if (p.startup && !state.session) {
    notice(state, "info", "No recorded sessions for this workspace; a new session starts");
    return startSession(state);
  }
  notice(state, "info", "No recorded sessions for this workspace");
  return [];
}

/**
 * A session started (the first, or another on /new, /resume): a switch starts a fresh
 * transcript on a cleared screen, and a resumed session asks for its earlier transcript.
 */
export function sessionSwitched(
  state: ClientState,
  event: ServerEventOf<"session.started">,
  previous: { info: SessionInfo; lastSeq: number } | undefined,
): Effect[] {
  const effects: Effect[] = [];
  const ours = state.pending.start?.requestId === event.request_id;
  if (ours) {
    state.pending.start = undefined;
    if (state.hint?.startsWith("Starting") || state.hint?.startsWith("Resuming")) {
      state.hint = undefined;
    }
  }
  if (previous !== undefined && previous.info.id !== event.session_id) {
    keepOpen(state, previous);
    effects.push(...freshScreen(state));
    if (!event.resumed) notice(state, "info", `New session ${event.session_id}`);
  }
  if (event.resumed) effects.push(askHistory(state, event.session_id));
  return effects;
}

/** Most sessions left open on this connection that the TUI remembers. */
export const MAX_OTHER_SESSIONS = 32;

/** Remembers a session left for another, still open on this connection. */
function keepOpen(state: ClientState, s: { info: SessionInfo; lastSeq: number }): void {
  state.otherSessions.delete(s.info.id);
  state.otherSessions.set(s.info.id, s);
  if (state.otherSessions.size > MAX_OTHER_SESSIONS) {
    state.otherSessions.delete(state.otherSessions.keys().next().value!);
  }
}

/** A new session's screen: an empty transcript (the old one stays in scrollback). */
function freshScreen(state: ClientState): Effect[] {
  forgetPlan(state);
  state.transcript = [];
  state.transcriptBytes = 0;
  state.contextTokens = undefined;
  state.queued = [];
  state.pending = {};
  return [{ kind: "clear-screen" }];
}

function askHistory(state: ClientState, sessionId: string): Effect {
  const id = requestId(state);
  state.pending.history = id;
  return {
    kind: "send",
    message: { type: "session.history", request_id: id, session_id: sessionId },
  };
}

/**
 * Goes back to a session this connection still holds open: no resume (the server would refuse
 * one), just the switch and its transcript from `session.history`.
 */
function switchBack(state: ClientState, id: string): Effect[] {
  const back = state.otherSessions.get(id)!;
  state.otherSessions.delete(id);
  if (state.session) keepOpen(state, { info: state.session, lastSeq: state.lastSeq });
  const effects = freshScreen(state);
  state.session = back.info;
  state.lastSeq = back.lastSeq;
  state.model = back.info.model;
  effects.push(askHistory(state, id));
  return effects;
}

/** `history.item`: one earlier message, shown as the live item it was. */
export function applyHistoryItem(state: ClientState, event: ServerEventOf<"history.item">): void {
  if (state.pending.history !== event.request_id) return;
  const cut = event.truncated ? "shortened in the record" : undefined;
  switch (event.role) {
    case "user":
      if (event.compaction) {
        notice(state, "info", `Earlier conversation, compacted:\n${event.content}`);
        break;
      }
      {
        // The prompt as typed; the files its mentions attached are named, as when it was sent.
        const { typed, paths } = splitAttachments(event.content, event.truncated === true);
        finishItem(state, { kind: "user", text: typed });
        if (paths.length > 0) {
          notice(state, "info", `Attached ${paths.map((p) => `@${p}`).join(", ")}`);
        }
      }
      break;
    case "assistant":
      finishItem(state, {
        kind: "assistant",
        text: event.content,
        ...(cut ? { note: cut } : {}),
      });
      break;
    case "tool": {
      // A recorded update_plan shows as the plan it set, as it did live.
      const plan = event.name === "update_plan" && event.success !== false
        ? parsePlanText(event.content)
        : undefined;
      if (plan) {
        applyPlan(state, plan);
        state.plan = undefined; // no turn runs: the transcript alone shows it
        break;
      }
      finishItem(state, {
        kind: "tool",
        callId: "",
        name: event.name ?? "tool",
        args: undefined,
        summary: event.summary ?? "",
        success: event.success ?? true,
        output: event.content,
        truncated: event.truncated === true,
      });
      break;
    }
  }
}

/** `history.end`: the earlier transcript is complete. */
export function applyHistoryEnd(state: ClientState, event: ServerEventOf<"history.end">): void {
  if (state.pending.history !== event.request_id) return;
  state.pending.history = undefined;
  const omitted = event.omitted > 0
    ? ` (${event.omitted} older message${event.omitted === 1 ? "" : "s"} not shown)`
    : "";
  notice(
    state,
    "info",
    `Resumed session ${event.session_id}: ${event.items} earlier item${
      event.items === 1 ? "" : "s"
    }${omitted}. The conversation goes on from here.`,
  );
  showRecoveredNotice(state);
}

/** `/compact [instructions]`: compacts the idle session's history now. */
export function compactNow(state: ClientState, instructions: string): Effect[] {
  if (busy(state, "compact")) return [];
  const id = requestId(state);
  state.pending.compact = id;
  state.hint = "Compacting the conversation…";
  return [{
    kind: "send",
    message: {
      type: "session.compact",
      request_id: id,
      session_id: state.session!.id,
      ...(instructions === "" ? {} : { instructions }),
    },
  }];
}

/** The reply to `session.compact`: a `context.compacted` without a turn. */
export function applyCompactReply(
  state: ClientState,
  event: ServerEventOf<"context.compacted">,
): void {
  if (state.pending.compact === event.request_id) {
    state.pending.compact = undefined;
    if (state.hint?.startsWith("Compacting")) state.hint = undefined;
  }
  state.contextTokens = event.after_tokens;
  notice(
    state,
    "info",
    event.removed_messages === 0
      ? "Nothing to compact: the conversation is already as short as it gets"
      : `Context compacted: ${event.removed_messages} messages removed, ${
        formatTokens(event.before_tokens)
      } → ${formatTokens(event.after_tokens)} tokens`,
  );
}

/** `/model NAME`: the model of the next turns. */
export function configureModel(state: ClientState, model: string): Effect[] {
  if (busy(state, "change the model")) return [];
  const id = requestId(state);
  state.pending.configure = id;
  return [{
    kind: "send",
    message: { type: "session.configure", request_id: id, session_id: state.session!.id, model },
  }];
}

/** `session.configured`: the values now in force. */
export function applyConfigured(
  state: ClientState,
  event: ServerEventOf<"session.configured">,
): void {
  const ours = state.pending.configure === event.request_id;
  if (ours) state.pending.configure = undefined;
  const changed = event.model !== state.model;
  const policyChanged = event.approval_policy !== state.approvalPolicy;
  state.model = event.model;
  if (state.session) state.session.model = event.model;
  state.approvalPolicy = event.approval_policy;
  // A change of policy alone is told by modes.ts.
  if (!changed && (!ours || policyChanged)) return;
  const set = `Model: ${event.model} for the next turns (approval policy ${event.approval_policy})`;
  const listed = state.providerModels;
  if (ours && listed && listed.length > 0 && !listed.includes(event.model)) {
    // The server takes any name; a typo would only show as a failed turn later.
    notice(
      state,
      "warn",
      `${set}. The provider does not list ${event.model}; /model shows the ones it does`,
    );
  } else notice(state, "info", set);
}

/** The hint while `/model` waits for the provider's list. */
export const LISTING_MODELS = "Listing the provider's models…";

/** Most models listed by `/model`; the rest are counted. */
export const MAX_LISTED_MODELS = 50;

/** The answer of `GET {base_url}/models`, as the shell fetched it. */
export type ModelList = { models: string[] } | { error: string };

/**
 * Shows the provider's models (the current one marked), or why they could not be listed.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createState } from "./model.ts";
 * import { applyModelList } from "./sessions.ts";
 * const s = createState({ model: "b", cwd: "/w", historyLimits: { maxItems: 1, maxBytes: 9 } });
 * applyModelList(s, { models: ["a", "b"] });
 * assert(s.outbox.some((i) => i.kind === "notice" && i.text.includes("* b")));
 * ```
 */
export function applyModelList(state: ClientState, list: ModelList): void {
  state.version++;
  if (state.hint === LISTING_MODELS) state.hint = undefined;
  if ("error" in list) {
    notice(
      state,
      "warn",
      `Could not list the provider's models: ${list.error}. /model NAME still sets one`,
    );
    return;
  }
  state.providerModels = list.models;
  if (list.models.length === 0) {
    notice(state, "info", `The provider lists no models; the model is ${state.model}`);
    return;
  }
  const listed = list.models.slice(0, MAX_LISTED_MODELS);
  const shown = listed.map((m) => `${m === state.model ? "*" : " "} ${m}`);
  const more = list.models.length - shown.length;
  const current = listed.includes(state.model)
    ? "current marked *"
    : list.models.includes(state.model)
    ? `the current one, ${state.model}, is further down`
    : `the current one, ${state.model}, is not in this list`;
  notice(
    state,
    "info",
    [
      `Models (${current}; /model NAME sets one):`,
      ...shown,
      ...(more > 0 ? [`  … ${more} more`] : []),
    ].join("\n"),
  );
}
