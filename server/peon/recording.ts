/**
 * Sessions and their recorders on a Peon connection: every session gets a recorder (writing
 * nothing until its first prompt), a resumed one is reopened from its file (both by the core's
 * `recorded_session.ts`), and a session's `session.configure` values shape the configuration
 * its turns run with.
 *
 * @module
 */
import { RESUME_LAST } from "../../protocol/constants.ts";
import type { ClientMessageOf } from "../../protocol/schema.ts";
import type { Config } from "../config.ts";
import { errorText, quoteInput } from "../error_text.ts";
import {
  liveSessionView,
  newRecorder,
  type Recording,
  reopenSession,
} from "../core/recorded_session.ts";
import type { Session } from "../core/session.ts";
import type { RecordedSessionView } from "../sessions/recorder.ts";
import type { ReplayedSession } from "../sessions/records.ts";
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

/** Gives a new session its recorder (which writes nothing until the first prompt). */
export function attachRecorder(session: Session, cx: ConnectionContext): void {
  session.recorder = newRecorder(viewOf(session, cx.config), recording(cx, cx.store));
}

/** How this connection's sessions are recorded in `store`. */
function recording<S extends SessionStore | undefined>(
  cx: ConnectionContext,
  store: S,
): Recording & { store: S } {
  return { store, config: cx.config, tools: () => cx.tools, log: cx.log };
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
  let reopened;
  try {
    reopened = await reopenSession(msg.resume, cwd, recording(cx, store));
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
  const { session, state } = reopened;
  session.recorder = reopened.recorder(viewOf(session, cx.config));
  return { session, notice: damageNotice(state) };
}

/** The notice `session.started` carries when damaged records were dropped; else undefined. */
function damageNotice(state: ReplayedSession): string | undefined {
  const n = state.badLines;
  if (n === 0) return undefined;
  return `${n} damaged record${n === 1 ? " was" : "s were"} dropped from this session's file${
    state.tornTail ? " (the last one torn by an interrupted write)" : ""
  }; everything before ${n === 1 ? "it" : "them"} is kept`;
}
