/**
 * `session.start`: opens a session on a canonical workspace directory, or with `resume` reopens
 * a recorded one (`../recording.ts`), and answers `session.started` (its fields are gathered in
 * `../session_started.ts`).
 *
 * @module
 */
import { encodeFrame, FrameTooLargeError } from "../../../protocol/ndjson.ts";
import type { EventOf } from "../../../protocol/turn_events.ts";
import type { ClientMessageOf } from "../../../protocol/schema.ts";
import { quoteInput } from "../../error_text.ts";
import { Session } from "../../core/session.ts";
import { type ConnectionContext, MAX_SESSIONS } from "../context.ts";
import { type SessionStartedBody, sessionStartedBody } from "../session_started.ts";
import { attachRecorder, resumeSession } from "../recording.ts";
import { workspaceDir } from "../../workspace_dir.ts";
import { checkpointSettings, openSessionCheckpoints } from "../../checkpoints/open.ts";
import { readEnv } from "../../config.ts";
import { loadRules } from "../../core/rules/load.ts";
import { RuleFileError } from "../../core/rules/rule.ts";
import { startSessionHooks } from "../../core/hook_points.ts";
import { workspaceHooksNotice } from "../../hooks/workspace_hooks.ts";
import { after } from "../../timer.ts";

/** Why this connection opens no session for `cwd`, checked before the workspace is looked at. */
function refusal(cwd: string, cx: ConnectionContext): string | undefined {
  if (!cwd.startsWith("/")) return `cwd must be an absolute path, got ${quoteInput(cwd)}`;
  if (cx.sessions.size >= MAX_SESSIONS) {
    return `this connection already has ${MAX_SESSIONS} sessions, the most it may open`;
  }
  return undefined;
}

/**
 * `session.started` with as many of its `queued` entries (scv 0.3) as fit the frame limit:
 * the newest that do not are left out, and `notice` says how many.
 */
function fitQueued(
  event: EventOf<"session.started">,
  maxFrameBytes: number,
): EventOf<"session.started"> {
  const queued = event.queued;
  if (!queued) return event;
  for (let keep = queued.length; keep > 0; keep--) {
    const left = queued.length - keep;
    const note = left === 0 ? undefined : `${left} of the ${queued.length} prompts that waited ` +
      `did not fit max_server_frame_bytes and are not listed`;
    const fitted = {
      ...event,
      queued: queued.slice(0, keep),
      ...(note ? { notice: event.notice ? `${event.notice}; ${note}` : note } : {}),
    };
    if (fitsFrame(fitted, maxFrameBytes)) return fitted;
  }
  const { queued: _, ...rest } = event;
  const note = `the ${queued.length} prompts that waited did not fit max_server_frame_bytes`;
  return { ...rest, notice: event.notice ? `${event.notice}; ${note}` : note };
}

function fitsFrame(event: unknown, maxFrameBytes: number): boolean {
  try {
    encodeFrame(event, maxFrameBytes);
    return true;
  } catch {
    return false;
  }
}

/** Opens a session; it exists only once the client was told about it. */
export async function sessionStart(
  msg: ClientMessageOf<"session.start">,
  cx: ConnectionContext,
): Promise<void> {
  const refused = refusal(msg.cwd, cx);
  if (refused !== undefined) return await cx.error(msg.request_id, "invalid_request", refused);
  const workspace = await workspaceDir(msg.cwd);
  if (!workspace.ok) return await cx.error(msg.request_id, "invalid_request", workspace.message);
  let rules;
  try {
    rules = await loadRules(workspace.path, { env: readEnv });
  } catch (e) {
    if (!(e instanceof RuleFileError)) throw e;
    return await cx.error(msg.request_id, "invalid_request", e.message);
  }
  let session: Session;
  let resumed: Partial<SessionStartedBody> = {};
  if (msg.resume !== undefined) {
    const r = await resumeSession({ ...msg, resume: msg.resume }, workspace.path, cx);
    if (!r) return;
    session = r.session;
    resumed = {
      resumed: true,
      last_seq: session.seq.last,
      ...(r.notice !== undefined ? { notice: r.notice } : {}),
    };
  } else {
    session = new Session(workspace.path);
    attachRecorder(session, cx);
  }
  session.rules = rules;
  const sandbox = cx.sandbox ? (await cx.sandbox())(session.cwd) : undefined;
  const checkpoints = await cx.checkpoints();
  if (checkpoints.enabled) {
    session.checkpoints = await openSessionCheckpoints(
      checkpoints,
      session.cwd,
      session.id,
      checkpointSettings(cx.config),
    );
  }
  const skipped = await workspaceHooksNotice(session.cwd);
  if (skipped !== undefined) {
    resumed.notice = resumed.notice === undefined ? skipped : `${resumed.notice}\n${skipped}`;
  }
  try {
    const started: EventOf<"session.started"> = {
      type: "session.started",
      request_id: msg.request_id,
      ...sessionStartedBody(session, cx.config, {
        sandbox,
        checkpoints: checkpoints.enabled
          ? { enabled: true }
          : { enabled: false, reason: checkpoints.reason },
        ...(cx.mcp ? { mcp_servers: cx.mcp.statuses() } : {}),
      }),
      ...resumed,
    };
    await cx.send<"session.started">(fitQueued(started, cx.config.max_server_frame_bytes));
  } catch (e) {
    session.recorder?.close();
    if (!(e instanceof FrameTooLargeError)) throw e;
    return await cx.error(
      msg.request_id,
      "invalid_request",
      `the session.started reply for this cwd takes ${e.bytes} bytes, more than ` +
        `max_server_frame_bytes (${e.limit})`,
    );
  }
  // Only a session the client was told about exists; the input loop waits for this handler.
  cx.sessions.set(session.id, session);
  startSessionHooks(session, cx.config, msg.resume !== undefined ? "resume" : "startup");
  // After the reply, so that loading the MCP client never delays it.
  cx.mcp?.start(session.cwd);
  // Warm up while the client composes its first prompt; a failure shows in the first turn.
  after(0, () => void cx.deps().catch(() => {}));
}
