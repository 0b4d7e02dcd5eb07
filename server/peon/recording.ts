/**
 * Sessions and their recorders on a Peon connection: every session gets a {@link Recorder}
 * (writing nothing until its first prompt), a resumed one is rebuilt from its file, and a
 * session's `session.configure` values shape the configuration its turns run with.
 *
 * @module
 */
import { RESUME_LAST } from "../../protocol/constants.ts";
import type { ClientMessageOf } from "../../protocol/schema.ts";
import type { TurnEnd as TurnEndEvent } from "../../protocol/turn_events.ts";
import { type Config, CONFIG_RULES } from "../config.ts";
import { errorText, quoteInput } from "../error_text.ts";
import { Session } from "../core/session.ts";
import { recoveredOf } from "../core/inbox.ts";
import { answerInterruptedCalls, type TurnEnd } from "../sessions/records.ts";
import { type RecordedSessionView, Recorder } from "../sessions/recorder.ts";
import { liveSessionView, recordedSummarizer } from "../sessions/recorder_inputs.ts";
import { SessionLookupError, type SessionStore } from "../sessions/store.ts";
import type { ConnectionContext } from "./context.ts";

/** The model a session's next turn uses. */
export function sessionModel(session: Session, config: Config): string {
  return session.model ?? config.model;
}

/** The approval policy a session's next turn uses. */
export function sessionPolicy(session: Session, config: Config): string {
  return session.approvalPolicy ?? config.approval_policy;
}

/** The configuration a session's next turn runs with (its `session.configure` values). */
export function sessionConfig(session: Session, config: Config): Config {
  if (session.model === undefined && session.approvalPolicy === undefined) return config;
  return {
    ...config,
    model: sessionModel(session, config),
    approval_policy: sessionPolicy(session, config) as Config["approval_policy"],
  };
}

function viewOf(session: Session, config: Config): RecordedSessionView {
  return liveSessionView(session, {
    model: () => sessionModel(session, config),
    approvalPolicy: () => sessionPolicy(session, config),
    configured: () => session.model !== undefined || session.approvalPolicy !== undefined,
  });
}

/** The approval summary of a recorded call, from the loaded tools; undefined when unknown. */
function summarizer(cx: ConnectionContext) {
  return recordedSummarizer(() => cx.tools);
}

/**
 * How large a session file may grow before it is rewritten as a snapshot: four times the
 * history bound (the history is what a snapshot holds), within 1 MiB and 128 MiB, so it always
 * stays readable (`MAX_SESSION_FILE_BYTES`).
 */
export function maxFileBytes(config: Config): number {
  return Math.min(128 * 1024 * 1024, Math.max(1024 * 1024, 4 * config.max_history_bytes));
}

/** Gives a new session its recorder (which writes nothing until the first prompt). */
export function attachRecorder(session: Session, cx: ConnectionContext): void {
  session.recorder = new Recorder(viewOf(session, cx.config), {
    store: cx.store,
    summarize: summarizer(cx),
    maxFileBytes: maxFileBytes(cx.config),
    log: cx.log,
  });
  session.inbox.observer = session.recorder;
}

/** How a terminal event reads in the record. */
export function turnEndOf(end: TurnEndEvent): TurnEnd {
  return end.type === "turn.completed"
    ? "completed"
    : end.type === "turn.cancelled"
    ? "cancelled"
    : "failed";
}

/** A resumed session and what its `session.started` says about its record. */
export interface Resumed {
  session: Session;
  notice: string | undefined;
}

/** Why nothing can be resumed or listed here, for an `invalid_request`. */
export function notRecordedReason(config: Config): string {
  return config.persist_sessions
    ? "sessions are not recorded here (no usable state directory; see the server log)"
    : "sessions are not recorded (persist_sessions is false)";
}

/**
 * Opens a recorded session for `session.start`'s `resume` in the canonical `cwd`; answers the
 * error itself and returns undefined when it cannot.
 */
export async function resumeSession(
  msg: ClientMessageOf<"session.start"> & { resume: string },
  cwd: string,
  cx: ConnectionContext,
): Promise<Resumed | undefined> {
  const store = cx.store;
  if (!store) {
    await cx.error(
      msg.request_id,
      "invalid_request",
      `cannot resume: ${notRecordedReason(cx.config)}`,
    );
    return undefined;
  }
  if (msg.resume !== RESUME_LAST && cx.sessions.has(msg.resume)) {
    await cx.error(
      msg.request_id,
      "invalid_request",
      `session ${quoteInput(msg.resume)} is already open on this connection`,
    );
    return undefined;
  }
  let loaded;
  try {
    loaded = await store.load(msg.resume, cwd);
  } catch (e) {
    if (e instanceof SessionLookupError) {
      await cx.error(msg.request_id, e.code, e.message);
    } else {
      await cx.error(
        msg.request_id,
        "invalid_request",
        `cannot resume: ${notRecordedReason(cx.config)}: ${errorText(e)}`,
      );
    }
    return undefined;
  }
  const { state, file } = loaded;
  const session = restoredSession(state, cwd);
  session.recorder = new Recorder(viewOf(session, cx.config), {
    store,
    file,
    resumed: {
      createdAt: state.header.created_at,
      turns: state.turns,
      title: state.title,
      toolMeta: state.toolMeta,
      waiting: state.waiting,
    },
    summarize: summarizer(cx),
    maxFileBytes: maxFileBytes(cx.config),
    log: cx.log,
  });
  // A crash may have cut a tool call off before its result: answer it so the next request is
  // valid, and record the answer.
  if (answerInterruptedCalls(session.history).length > 0) session.recorder.sync();
  // What waited when the server stopped is listed in session.started, and started by nobody.
  session.inbox.observer = session.recorder;
  session.inbox.recovered = recoveredOf(state.waiting);
  return { session, notice: damageNotice(state) };
}

/** What a recording replays to, as loaded by the store. */
type ReplayedState = Awaited<ReturnType<SessionStore["load"]>>["state"];

/** A session as its record left it: history, usage, compaction count, seq, configured values. */
function restoredSession(state: ReplayedState, cwd: string): Session {
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

/** The notice `session.started` carries when damaged records were dropped; else undefined. */
function damageNotice(state: ReplayedState): string | undefined {
  const n = state.badLines;
  if (n === 0) return undefined;
  return `${n} damaged record${n === 1 ? " was" : "s were"} dropped from this session's file${
    state.tornTail ? " (the last one torn by an interrupted write)" : ""
  }; everything before ${n === 1 ? "it" : "them"} is kept`;
}
