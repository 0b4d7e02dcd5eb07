/**
 * The scv 0.2 session requests of a Peon connection (docs/sessions.md): resuming a recorded
 * session on `session.start`, `session.list`, `session.history`, `session.compact` and
 * `session.configure`, and the recorder every session gets. The connection routes the parsed
 * messages here with a {@link SessionRequestContext}.
 *
 * @module
 */
import { encodeFrame, FrameTooLargeError } from "../../protocol/ndjson.ts";
import {
  DEFAULT_SESSION_LIST_LIMIT,
  type ErrorCode,
  RESUME_LAST,
} from "../../protocol/constants.ts";
import type { ClientMessageOf } from "../../protocol/schema.ts";
import { type Config, CONFIG_RULES } from "../config.ts";
import { quoteInput } from "../error_text.ts";
import { Session } from "../session.ts";
import type { ToolRegistry } from "../tools/registry.ts";
import { utf8Length } from "../utf8.ts";
import { planCompactNow } from "../sessions/compact_now.ts";
import { planHistory } from "../sessions/history_items.ts";
import { answerInterruptedCalls, type TurnEnd } from "../sessions/records.ts";
import { type RecordedSessionView, Recorder } from "../sessions/recorder.ts";
import { SessionLookupError, type SessionStore } from "../sessions/store.ts";
import type { TurnEnd as TurnEndEvent } from "../../protocol/turn_events.ts";

/** What the handlers need of the connection. */
export interface SessionRequestContext {
  config: Config;
  /** Undefined: sessions are not recorded (persist_sessions off or no state directory). */
  store: SessionStore | undefined;
  log: (line: string) => void;
  /** Sends a connection-level frame; with a session, the frame takes its next seq. */
  send(event: Record<string, unknown>, session?: Session): Promise<void>;
  error(requestId: string, code: ErrorCode, message: string): Promise<void>;
  /** The session a request names, or undefined after answering `session_not_found`. */
  sessionOf(msg: { request_id: string; session_id: string }): Promise<Session | undefined>;
  /** The tools, once loaded (for the approval summaries of recorded tool calls). */
  tools(): ToolRegistry | undefined;
}

/** The longest model name `session.configure` accepts, in UTF-8 bytes. */
export const MAX_MODEL_NAME_BYTES = 256;

/** The model a session's next turn uses. */
export function sessionModel(session: Session, config: Config): string {
  return session.model ?? config.model;
}

/** The configuration a session's next turn runs with (its `session.configure` values). */
export function sessionConfig(session: Session, config: Config): Config {
  if (session.model === undefined && session.approvalPolicy === undefined) return config;
  return {
    ...config,
    model: session.model ?? config.model,
    approval_policy: (session.approvalPolicy ?? config.approval_policy) as Config[
      "approval_policy"
    ],
  };
}

function viewOf(session: Session, config: Config): RecordedSessionView {
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
      return session.model ?? config.model;
    },
    get approvalPolicy() {
      return session.approvalPolicy ?? config.approval_policy;
    },
  };
}

/** The approval summary of a recorded call, from the loaded tools; undefined when unknown. */
function summarizer(ctx: SessionRequestContext) {
  return (name: string, raw: string): string | undefined => {
    const tool = ctx.tools()?.get(name);
    if (!tool) return undefined;
    try {
      const parsed = tool.schema.safeParse(raw.trim() === "" ? {} : JSON.parse(raw));
      return parsed.success ? tool.summary(parsed.data) : undefined;
    } catch {
      return undefined;
    }
  };
}

/** Gives a new session its recorder (which writes nothing until the first prompt). */
export function attachRecorder(session: Session, ctx: SessionRequestContext): void {
  session.recorder = new Recorder(viewOf(session, ctx.config), {
    store: ctx.store,
    summarize: summarizer(ctx),
    log: ctx.log,
  });
}

/** How a terminal event reads in the record. */
export function turnEndOf(end: TurnEndEvent): TurnEnd {
  return end.type === "turn.completed"
    ? "completed"
    : end.type === "turn.cancelled"
    ? "cancelled"
    : "failed";
}

/** A resumed session and what `session.started` adds for it. */
export interface Resumed {
  session: Session;
  notice: string | undefined;
}

/**
 * Opens a recorded session for `session.start`'s `resume` in the canonical `cwd`; answers the
 * error itself and returns undefined when it cannot.
 */
export async function resumeSession(
  msg: ClientMessageOf<"session.start"> & { resume: string },
  cwd: string,
  open: ReadonlySet<string>,
  ctx: SessionRequestContext,
): Promise<Resumed | undefined> {
  const store = ctx.store;
  if (!store) {
    await ctx.error(
      msg.request_id,
      "invalid_request",
      ctx.config.persist_sessions
        ? "cannot resume: sessions are not recorded here (no state directory; see the server log)"
        : "cannot resume: sessions are not recorded (persist_sessions is false)",
    );
    return undefined;
  }
  if (msg.resume !== RESUME_LAST && open.has(msg.resume)) {
    await ctx.error(
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
      await ctx.error(msg.request_id, e.code, e.message);
      return undefined;
    }
    await ctx.error(
      msg.request_id,
      "invalid_request",
      `cannot resume: sessions are not recorded here: ${e instanceof Error ? e.message : e}`,
    );
    return undefined;
  }
  const { state, file } = loaded;
  if (open.has(state.header.session_id)) {
    file.close();
    await ctx.error(
      msg.request_id,
      "invalid_request",
      `session "${state.header.session_id}" is already open on this connection`,
    );
    return undefined;
  }
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
  session.recorder = new Recorder(viewOf(session, ctx.config), {
    store,
    file,
    resumed: {
      createdAt: state.header.created_at,
      turns: state.turns,
      title: state.title,
      toolMeta: state.toolMeta,
    },
    summarize: summarizer(ctx),
    log: ctx.log,
  });
  // A crash may have cut a tool call off before its result: answer it so the next request is
  // valid, and record the answer.
  if (answerInterruptedCalls(session.history).length > 0) session.recorder.sync();
  const notice = state.badLines > 0
    ? `${state.badLines} damaged record${state.badLines === 1 ? " was" : "s were"} dropped ` +
      `from this session's file${
        state.tornTail ? " (the last one torn by an interrupted write)" : ""
      }; everything before ${state.badLines === 1 ? "it" : "them"} is kept`
    : undefined;
  return { session, notice };
}

/** `session.list`. */
export async function sessionList(
  msg: ClientMessageOf<"session.list">,
  ctx: SessionRequestContext,
): Promise<void> {
  const store = ctx.store;
  if (!store) {
    return await ctx.error(
      msg.request_id,
      "invalid_request",
      ctx.config.persist_sessions
        ? "sessions are not recorded here (no state directory; see the server log)"
        : "sessions are not recorded (persist_sessions is false)",
    );
  }
  let cwd = msg.cwd;
  if (cwd !== undefined) {
    if (!cwd.startsWith("/")) {
      return await ctx.error(
        msg.request_id,
        "invalid_request",
        `cwd must be an absolute path, got ${quoteInput(cwd)}`,
      );
    }
    // Sessions of a directory that is gone can still be listed by the path they recorded.
    cwd = await Deno.realPath(cwd).catch(() => cwd!);
  }
  let list;
  try {
    list = await store.list({ cwd, limit: msg.limit ?? DEFAULT_SESSION_LIST_LIMIT });
  } catch (e) {
    return await ctx.error(
      msg.request_id,
      "invalid_request",
      `cannot list sessions: ${e instanceof Error ? e.message : e}`,
    );
  }
  let sessions = list.sessions;
  const frame = (n: number) => ({
    type: "session.list",
    request_id: msg.request_id,
    sessions: sessions.slice(0, n),
    truncated: list.matched > n,
  });
  // The most sessions that fit one frame (the newest are kept).
  const limit = ctx.config.max_server_frame_bytes;
  const fits = (n: number) => {
    try {
      encodeFrame(frame(n), limit);
      return true;
    } catch (e) {
      if (e instanceof FrameTooLargeError) return false;
      throw e;
    }
  };
  let n = sessions.length;
  if (!fits(n)) {
    let lo = 0;
    let hi = n;
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      if (fits(mid)) lo = mid;
      else hi = mid - 1;
    }
    n = lo;
    sessions = sessions.slice(0, n);
  }
  await ctx.send(frame(n));
}

/** The JSON bytes the `history.item` envelope adds to an item's own object. */
function historyEnvelopeBytes(requestId: string, sessionId: string): number {
  return utf8Length(
    JSON.stringify({ type: "history.item", request_id: requestId, session_id: sessionId }),
  ) - 1;
}

/** `session.history`. */
export async function sessionHistory(
  msg: ClientMessageOf<"session.history">,
  ctx: SessionRequestContext,
): Promise<void> {
  const session = await ctx.sessionOf(msg);
  if (!session) return;
  if (session.turn) {
    return await ctx.error(
      msg.request_id,
      "turn_active",
      `cannot replay the history while turn "${session.turn.id}" is running`,
    );
  }
  const c = ctx.config;
  const plan = planHistory(session.history, session.recorder?.toolMeta ?? new Map(), {
    maxItems: c.max_transcript_items,
    maxBytes: c.max_transcript_bytes,
    maxFrameBytes: c.max_server_frame_bytes,
    envelopeBytes: historyEnvelopeBytes(msg.request_id, session.id),
  });
  const envelope = { request_id: msg.request_id, session_id: session.id };
  for (const item of plan.items) await ctx.send({ type: "history.item", ...envelope, ...item });
  await ctx.send({
    type: "history.end",
    ...envelope,
    items: plan.items.length,
    omitted: plan.omitted,
  });
}

let counters: Map<string, Promise<import("../context/tokens.ts").TokenCounter>> | undefined;

/** The tokens of a history, counted like the context manager counts them. */
async function historyTokens(model: string, history: readonly unknown[]): Promise<number> {
  counters ??= new Map();
  let counter = counters.get(model);
  if (!counter) {
    const { TokenCounter } = await import("../context/tokens.ts");
    counter = TokenCounter.create(model);
    counters.set(model, counter);
  }
  const c = await counter;
  let total = 0;
  for (const m of history) total += c.countMessage(m as Parameters<typeof c.countMessage>[0]);
  return total;
}

/** `session.compact`. */
export async function sessionCompact(
  msg: ClientMessageOf<"session.compact">,
  ctx: SessionRequestContext,
): Promise<void> {
  const session = await ctx.sessionOf(msg);
  if (!session) return;
  if (session.turn) {
    return await ctx.error(
      msg.request_id,
      "turn_active",
      `cannot compact while turn "${session.turn.id}" is running`,
    );
  }
  const instructions = msg.instructions;
  if (instructions !== undefined && utf8Length(instructions) > ctx.config.max_prompt_bytes) {
    return await ctx.error(
      msg.request_id,
      "invalid_request",
      `instructions of ${utf8Length(instructions)} bytes exceed max_prompt_bytes ` +
        `(${ctx.config.max_prompt_bytes})`,
    );
  }
  const model = sessionModel(session, ctx.config);
  const before = await historyTokens(model, session.history);
  const plan = planCompactNow(session.history, instructions);
  let after = before;
  if (plan) {
    after = await historyTokens(model, plan.history);
    session.applyCut({ ...plan, newTurnStart: 0 });
  }
  await ctx.send({
    type: "context.compacted",
    request_id: msg.request_id,
    session_id: session.id,
    seq: 0,
    before_tokens: before,
    after_tokens: after,
    removed_messages: plan?.removedMessages ?? 0,
  }, session);
  if (plan) await session.recorder?.checkpoint();
}

/** `session.configure`. */
export async function sessionConfigure(
  msg: ClientMessageOf<"session.configure">,
  ctx: SessionRequestContext,
): Promise<void> {
  const session = await ctx.sessionOf(msg);
  if (!session) return;
  if (session.turn) {
    return await ctx.error(
      msg.request_id,
      "turn_active",
      `cannot configure while turn "${session.turn.id}" is running`,
    );
  }
  if (msg.model !== undefined && utf8Length(msg.model) > MAX_MODEL_NAME_BYTES) {
    return await ctx.error(
      msg.request_id,
      "invalid_request",
      `model name of ${utf8Length(msg.model)} bytes is longer than the ` +
        `${MAX_MODEL_NAME_BYTES} bytes scv accepts`,
    );
  }
  const policy = msg.approval_policy;
  if (policy !== undefined && !CONFIG_RULES.approval_policy.valid(policy)) {
    return await ctx.error(
      msg.request_id,
      "invalid_request",
      `approval_policy "${policy}" is not available in this build; ` +
        `approval_policy ${CONFIG_RULES.approval_policy.expected}`,
    );
  }
  if (msg.model !== undefined) session.model = msg.model;
  if (policy !== undefined) session.approvalPolicy = policy;
  const model = sessionModel(session, ctx.config);
  const approvalPolicy = session.approvalPolicy ?? ctx.config.approval_policy;
  await ctx.send({
    type: "session.configured",
    request_id: msg.request_id,
    session_id: session.id,
    seq: 0,
    model,
    approval_policy: approvalPolicy,
  }, session);
  await session.recorder?.checkpoint([{ t: "config", model, approval_policy: approvalPolicy }]);
}
