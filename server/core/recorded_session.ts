/**
 * A session and its record, for every face: the recorder a new session gets (it writes nothing
 * until the first prompt), and a recorded session reopened from its file as its record left it.
 * The Peon connection (`session.start`, `resume`) and the ACP agent (`session/new`,
 * `session/load`) both open sessions here, so their records follow the same rules and limits.
 *
 * @module
 */
import { type Config, CONFIG_RULES } from "../config.ts";
import { type RecordedSessionView, Recorder } from "../sessions/recorder.ts";
import { recordedSummarizer } from "../sessions/recorder_inputs.ts";
import { answerInterruptedCalls, type ReplayedSession } from "../sessions/records.ts";
import type { SessionFile } from "../sessions/session_file.ts";
import type { SessionStore } from "../sessions/store.ts";
import type { ToolRegistry } from "../tools/registry.ts";
import { recoveredOf } from "./inbox.ts";
import { Session } from "./session.ts";

/**
 * How large a session file may grow before it is rewritten as a snapshot: four times the
 * history bound (the history is what a snapshot holds), within 1 MiB and 128 MiB, so it always
 * stays readable (`MAX_SESSION_FILE_BYTES`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { maxFileBytes } from "./recorded_session.ts";
 * import { DEFAULT_CONFIG } from "../config.ts";
 * assert.equal(maxFileBytes({ ...DEFAULT_CONFIG, max_history_bytes: 8 * 1024 * 1024 }), 32 * 1024 * 1024);
 * assert.equal(maxFileBytes({ ...DEFAULT_CONFIG, max_history_bytes: 1024 }), 1024 * 1024);
 * ```
 */
export function maxFileBytes(config: Config): number {
  return Math.min(128 * 1024 * 1024, Math.max(1024 * 1024, 4 * config.max_history_bytes));
}

/** The settings a session's turns run with, read when a record is written. */
export interface LiveSettings {
  /** The model of the next turn. */
  model(): string;
  /** The approval policy of the next turn. */
  approvalPolicy(): string;
  /** Whether both were chosen for this session (kept over the config's on resume). */
  configured?(): boolean;
}

/** The session as its recorder sees it, live: every record reads its current state. */
export function liveSessionView(session: Session, settings: LiveSettings): RecordedSessionView {
  return {
    id: session.id,
    cwd: session.cwd,
    get history() {
      return session.history;
    },
    get usage() {
      return session.usage;
    },
    get compactedMessages() {
      return session.compactedMessages;
    },
    get lastSeq() {
      return session.seq.last;
    },
    get model() {
      return settings.model();
    },
    get approvalPolicy() {
      return settings.approvalPolicy();
    },
    get configured() {
      return settings.configured?.() ?? false;
    },
  };
}

/** Where and how a face's sessions are recorded. */
export interface Recording {
  /** The sessions directory; undefined: sessions are kept in memory only. */
  store: SessionStore | undefined;
  /** Bounds the file (see {@link maxFileBytes}). */
  config: Config;
  /** The tools loaded at the time, for recorded approval summaries; undefined: none yet. */
  tools: () => ToolRegistry | undefined;
  /** Diagnostics; never receives secrets. */
  log: (line: string) => void;
}

/** The options every recorder of `recording` gets. */
function recorderOptions(recording: Recording) {
  return {
    store: recording.store,
    summarize: recordedSummarizer(recording.tools),
    maxFileBytes: maxFileBytes(recording.config),
    log: recording.log,
  };
}

/** The recorder of a new session (it writes nothing until the first prompt). */
export function newRecorder(view: RecordedSessionView, recording: Recording): Recorder {
  return new Recorder(view, recorderOptions(recording));
}

/** A recorded session reopened: the session, and how to give it its recorder. */
export interface ReopenedSession {
  /** The session as its record left it. */
  session: Session;
  /** What the record replayed to (tool metadata, damaged lines, title). */
  state: ReplayedSession;
  /**
   * The recorder that continues the file, given the face's live view of `session`. A tool call
   * a crash cut off before its result is answered then, and that answer recorded.
   */
  recorder: (view: RecordedSessionView) => Recorder;
  /** Closes the file, for a face that gives up on the session before making its recorder. */
  discard: () => void;
}

/** A session as its record left it: history, usage, compaction count, seq, configured values. */
export function restoredSession(state: ReplayedSession, cwd: string): Session {
  const session = new Session(cwd, { id: state.header.session_id, lastSeq: state.seq });
  session.history = state.history;
  session.usage = { ...state.usage };
  session.compactedMessages = state.compacted;
  // What session.configure chose stays chosen; otherwise this run's configuration applies.
  if (state.configured) {
    session.model = state.model;
    // A policy this build does not know (recorded by a newer one) falls back to the config's.
    if (CONFIG_RULES.approval_policy.valid(state.approvalPolicy)) {
      session.approvalPolicy = state.approvalPolicy;
    }
  }
  return session;
}

/**
 * Reopens the recorded session `id` (or `last`) of the canonical workspace `cwd`. Throws the
 * store's `SessionLookupError` for an unknown or foreign id, and its I/O errors.
 */
export async function reopenSession(
  id: string,
  cwd: string,
  recording: Recording & { store: SessionStore },
): Promise<ReopenedSession> {
  const { state, file } = await recording.store.load(id, cwd);
  const session = restoredSession(state, cwd);
  // What waited when the server stopped is reported to the client (Peon lists it in
  // session.started) and started by nobody; the session's next turn settles it.
  session.inbox.recovered = recoveredOf(state.waiting);
  return {
    session,
    state,
    recorder: (view) => {
      const recorder = resumedRecorder(view, recording, state, file);
      // Answered after the recorder mirrored the history, so the answer is a new record.
      if (answerInterruptedCalls(session.history).length > 0) recorder.sync();
      return recorder;
    },
    discard: () => file.close(),
  };
}

function resumedRecorder(
  view: RecordedSessionView,
  recording: Recording & { store: SessionStore },
  state: ReplayedSession,
  file: SessionFile,
): Recorder {
  return new Recorder(view, {
    ...recorderOptions(recording),
    file,
    resumed: {
      createdAt: state.header.created_at,
      turns: state.turns,
      title: state.title,
      toolMeta: state.toolMeta,
      waiting: state.waiting,
    },
  });
}
