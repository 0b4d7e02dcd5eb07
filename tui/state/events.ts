/**
 * The event reducer: one handler per server event type, in one typed table. A handler's
 * `scope` says what an event must match before it applies: `connection` events always apply;
 * `session` events must carry the open session's id and pass the `seq` check; `turn` events
 * must also belong to the running turn (the first one names its `turn_id`).
 *
 * @module
 */
import type { ServerEvent, ServerEventOf, ServerEventType } from "../../protocol/mod.ts";
import { cleanEvent } from "./clean_event.ts";
import { formatTokens } from "./format.ts";
import {
  type ClientState,
  type Effect,
  OUTBOX_FLUSH_BYTES,
  OUTBOX_FLUSH_ITEMS,
  type TurnState,
} from "./model.ts";
import { appendStreamText, completeStreaming, endStreaming } from "./stream_blocks.ts";
import { finishItem, notice } from "./transcript.ts";
import { notifyEffects } from "./notify.ts";
import { mcpLine, toolSummary } from "./format.ts";
import { rememberedText, rulesListText } from "./rules_text.ts";
import { appendReasoning, endReasoning } from "./reasoning.ts";
import { cancelEffect, endTurn, refuseStart } from "./turn.ts";
import {
  applyDequeued,
  applySteered,
  followQueued,
  markAccepted,
  offerRecovered,
  returnSteers,
  waitingRefused,
} from "./waiting.ts";
import { applyCheckpoints, applyRewound, rewindRefused } from "./rewind.ts";
import { applyPlan, forgetPlan } from "./plan.ts";
import { afterPolicyChange, offerGoOn } from "./modes.ts";

/** The reason the server gives when the config turned checkpoints off. */
const CHECKPOINTS_OFF_BY_CONFIG = "checkpoints is false in the config";
import {
  applyCompactReply,
  applyConfigured,
  applyHistoryEnd,
  applyHistoryItem,
  applySessionList,
  sessionSwitched,
  startSession,
} from "./sessions.ts";

/** What an event must match before its handler runs (see the module doc). */
export type EventScope = "connection" | "session" | "turn";

/** The handler of one event type. `turn` is the running turn for `turn`-scoped handlers. */
export type EventHandler<T extends ServerEventType> =
  | {
    scope: "connection" | "session";
    apply: (state: ClientState, event: ServerEventOf<T>) => Effect[];
  }
  | {
    scope: "turn";
    apply: (state: ClientState, event: ServerEventOf<T>, turn: TurnState) => Effect[];
  };

/** The table's type: at most one handler per event type; a type without one is ignored. */
export type EventTable = { [T in ServerEventType]?: EventHandler<T> };

const NONE: Effect[] = [];

/** Sets the phase unless the turn is being cancelled (a cancel's phase wins until it ends). */
function phase(turn: TurnState, next: TurnState["phase"]): void {
  if (turn.phase !== "cancelling") turn.phase = next;
}

/**
 * The context in use after a turn, estimated from `turn.completed`. `usage` is the sum over the
 * turn's provider calls (`steps`), so input + output would count the conversation once per
 * step, and a tool-using turn could show several times the window. What is in the context
 * afterwards is about the last call's prompt plus its answer; with only the sums to go on, the
 * estimate is their per-step average, (input + output) / steps. That is exact for a one-step
 * turn and low for a turn whose prompt grew step by step; the server knows better when it
 * compacts, and `context.compacted` wins over this.
 */
function contextEstimate(event: ServerEventOf<"turn.completed">): number | undefined {
  const usage = event.usage;
  if (!usage || (usage.input_tokens === undefined && usage.output_tokens === undefined)) {
    return undefined;
  }
  const steps = Math.max(1, event.steps);
  return Math.round(((usage.input_tokens ?? 0) + (usage.output_tokens ?? 0)) / steps);
}

/** Keeps the session's cost as a turn's end reports it. */
function noteCost(state: ClientState, event: { session_cost_usd?: number | undefined }): void {
  if (state.session && event.session_cost_usd !== undefined) {
    state.session.costUsd = event.session_cost_usd;
  }
}

function applyError(state: ClientState, event: ServerEventOf<"error">): Effect[] {
  if (event.fatal) {
    notice(state, "error", `Server error (${event.code}): ${event.message}`);
    return [{
      kind: "exit",
      status: 1,
      message: `scv: the server reported a fatal error (${event.code}): ${event.message}`,
    }];
  }
  // An error without a request id answers a frame the server could not read as a request, such
  // as one over max_client_frame_bytes; this client only sends valid frames, so it is the
  // answer to the request still waiting for one.
  const answers = (id: string) => event.request_id === id || event.request_id === undefined;
  notice(state, "error", `Error (${event.code}): ${event.message}`);
  // A steer or queued prompt the server did not take (scv 0.3).
  const refused = waitingRefused(state, answers);
  if (refused) return refused;
  const turn = state.turn;
  if (turn && !turn.turnId && answers(turn.requestId)) {
    // turn.start was refused: the turn never began. A prompt queued behind it starts on the
    // idle session at once, so the client follows it.
    refuseStart(state, turn);
    followQueued(state);
  }
  if (state.clearing !== undefined && answers(state.clearing)) {
    state.clearing = undefined;
  }
  return applySessionRequestError(state, answers);
}

/** A session request (not a turn's) was refused: stop waiting, and never stay sessionless. */
function applySessionRequestError(state: ClientState, answers: (id: string) => boolean): Effect[] {
  const p = state.pending;
  if (p.compact !== undefined && answers(p.compact)) p.compact = undefined;
  if (p.configure !== undefined && answers(p.configure)) p.configure = undefined;
  if (p.history !== undefined && answers(p.history)) p.history = undefined;
  if (state.hint?.startsWith("Compacting") && p.compact === undefined) state.hint = undefined;
  rewindRefused(state, answers);
  const picker = state.picker;
  if (picker && answers(picker.requestId)) {
    state.picker = undefined;
    if (picker.startup && !state.session) {
      notice(state, "info", "Recorded sessions cannot be listed; a new session starts");
      return startSession(state);
    }
  }
  if (p.start !== undefined && answers(p.start.requestId)) {
    const resumed = p.start.resume !== undefined;
    p.start = undefined;
    if (state.hint?.startsWith("Starting") || state.hint?.startsWith("Resuming")) {
      state.hint = undefined;
    }
    // A resume that failed before any session was open: the user still gets one.
    if (resumed && !state.session) {
      notice(state, "info", "A new session starts instead");
      return startSession(state);
    }
  }
  return NONE;
}

/** One handler per server event type. */
export const EVENT_HANDLERS: EventTable = {
  "initialized": { scope: "connection", apply: () => NONE },
  "session.started": {
    scope: "connection",
    apply(state, event) {
      const previous = state.session && { info: state.session, lastSeq: state.lastSeq };
      state.session = {
        id: event.session_id,
        cwd: event.cwd,
        model: event.model,
        contextMaxTokens: event.context_max_tokens,
        maxTranscriptBytes: event.max_transcript_bytes,
        maxTranscriptItems: event.max_transcript_items,
        maxPromptHistoryBytes: event.max_prompt_history_bytes,
        maxPromptHistoryItems: event.max_prompt_history_items,
        resumed: event.resumed === true,
        sandbox: event.sandbox,
        mcpServers: event.mcp_servers ?? [],
        checkpoints: event.checkpoints?.enabled,
        checkpointsWhy: event.checkpoints?.reason,
        costUsd: event.session_cost_usd,
        hooks: event.hooks ?? [],
      };
      state.model = event.model;
      state.cwd = event.cwd;
      state.transcriptLimits = {
        maxItems: event.max_transcript_items,
        maxBytes: event.max_transcript_bytes,
      };
      state.connection = "ready";
      // A resumed session's seq goes on from what it recorded.
      state.lastSeq = event.last_seq ?? 0;
      state.history.setLimits({
        maxItems: event.max_prompt_history_items,
        maxBytes: event.max_prompt_history_bytes,
      });
      const effects = sessionSwitched(state, event, previous);
      if (event.notice !== undefined) notice(state, "warn", event.notice);
      // What waited when scv stopped (a resume after a crash) is offered, not sent.
      offerRecovered(state, event.queued);
      if (event.mcp_servers && event.mcp_servers.length > 0) {
        notice(state, "info", mcpLine(event.mcp_servers));
      }
      const cp = event.checkpoints;
      // Said once per session; a config that turned them off needs no reminder.
      if (cp && !cp.enabled && cp.reason !== CHECKPOINTS_OFF_BY_CONFIG) {
        notice(state, "warn", `Checkpoints are off (${cp.reason}): /undo and /rewind cannot work`);
      }
      return effects;
    },
  },
  "session.list": { scope: "connection", apply: applySessionList },
  "session.checkpoints": { scope: "session", apply: applyCheckpoints },
  "session.rewound": { scope: "session", apply: applyRewound },
  "rules.list": {
    scope: "session",
    apply(state, event) {
      notice(state, "info", rulesListText(event));
      return NONE;
    },
  },
  "history.item": {
    scope: "session",
    apply(state, event) {
      applyHistoryItem(state, event);
      return NONE;
    },
  },
  "history.end": {
    scope: "session",
    apply(state, event) {
      applyHistoryEnd(state, event);
      return NONE;
    },
  },
  "session.configured": {
    scope: "session",
    apply(state, event) {
      const previous = state.approvalPolicy;
      applyConfigured(state, event);
      return afterPolicyChange(state, previous, event);
    },
  },
  "error": { scope: "connection", apply: applyError },
  "session.cleared": {
    scope: "session",
    apply(state) {
      state.clearing = undefined;
      forgetPlan(state);
      state.transcript = [];
      state.transcriptBytes = 0;
      // The outbox stays: what is waiting was never shown, and the cleared frame writes it.
      state.contextTokens = undefined;
      // The server dropped the usage totals, its cost among them.
      if (state.session) state.session.costUsd = undefined;
      notice(state, "info", "Session cleared: the conversation starts afresh");
      return [{ kind: "clear-screen" }];
    },
  },
  "turn.steer.accepted": {
    scope: "session",
    apply(state, event) {
      markAccepted(state, event.request_id);
      return NONE;
    },
  },
  "turn.queued": {
    scope: "session",
    apply(state, event) {
      markAccepted(state, event.request_id);
      return NONE;
    },
  },
  "turn.dequeued": {
    scope: "session",
    apply(state, event) {
      applyDequeued(state, event);
      return NONE;
    },
  },
  "user.steered": {
    scope: "turn",
    apply(state, event, turn) {
      endReasoning(state);
      endStreaming(state);
      applySteered(state, event);
      phase(turn, "thinking");
      return NONE;
    },
  },
  "session.trimmed": {
    scope: "session",
    apply(state, event) {
      notice(
        state,
        "info",
        `History trimmed: ${event.removed_messages} old messages dropped to fit the server's limit`,
      );
      return NONE;
    },
  },
  "turn.started": {
    scope: "turn",
    apply(state, _event, turn) {
      if (turn.phase === "starting") turn.phase = "thinking";
      return turn.cancelRequested ? [cancelEffect(state, turn)] : NONE;
    },
  },
  "assistant.reasoning.delta": {
    scope: "turn",
    apply(state, event, turn) {
      appendReasoning(state, event.content);
      phase(turn, "thinking");
      return NONE;
    },
  },
  "turn.notice": {
    scope: "turn",
    apply(state, event) {
      notice(state, "warn", event.message);
      return NONE;
    },
  },
  "assistant.delta": {
    scope: "turn",
    apply(state, event, turn) {
      // The answer begins: the reasoning before it collapses to its line above the answer.
      endReasoning(state);
      appendStreamText(state, event.content);
      phase(turn, "streaming");
      return NONE;
    },
  },
  "assistant.completed": {
    scope: "turn",
    apply(state, event, turn) {
      endReasoning(state);
      completeStreaming(state, event.content);
      phase(turn, "thinking");
      return NONE;
    },
  },
  "tool.proposed": {
    scope: "turn",
    apply(state, event, turn) {
      endReasoning(state);
      endStreaming(state);
      state.tools.push({
        callId: event.call_id,
        name: event.name,
        args: event.arguments,
        summary: toolSummary(event.name, event.arguments),
        status: "proposed",
      });
      phase(turn, "tool");
      return NONE;
    },
  },
  "approval.requested": {
    scope: "turn",
    apply(state, event, turn) {
      const tool = state.tools.find((t) => t.callId === event.call_id);
      if (tool) {
        tool.status = "awaiting";
        tool.summary = event.summary;
      }
      state.approval = {
        approvalId: event.approval_id,
        callId: event.call_id,
        name: event.name,
        risk: event.risk,
        cwd: event.cwd,
        summary: event.summary,
        ...(event.sandboxed === undefined ? {} : { sandboxed: event.sandboxed }),
        ...(event.rule === undefined ? {} : { rule: event.rule }),
        ...(event.preview === undefined ? {} : { preview: event.preview }),
        previewScroll: 0,
        choice: "approve",
      };
      phase(turn, "approval");
      return notifyEffects(state, `scv: approval needed: ${event.summary}`);
    },
  },
  "tool.started": {
    scope: "turn",
    apply(state, event, turn) {
      const tool = state.tools.find((t) => t.callId === event.call_id);
      if (tool) tool.status = "running";
      if (state.approval?.callId === event.call_id) state.approval = undefined;
      if (event.auto_approved !== undefined) {
        const call = rememberedText(event.name, tool?.args);
        const by = event.auto_approved === "session rule" ? "always allow" : "an allow rule:";
        notice(state, "info", `Allowed without asking (${by} ${call})`);
      }
      phase(turn, "tool");
      return NONE;
    },
  },
  "tool.completed": {
    scope: "turn",
    apply(state, event, turn) {
      const i = state.tools.findIndex((t) => t.callId === event.call_id);
      const tool = i === -1 ? undefined : state.tools.splice(i, 1)[0];
      if (state.approval?.callId === event.call_id) state.approval = undefined;
      phase(turn, "thinking");
      // The plan it set is in the transcript already (plan.updated came first).
      if (event.name === "update_plan" && event.success) return NONE;
      finishItem(state, {
        kind: "tool",
        callId: event.call_id,
        name: event.name,
        args: tool?.args,
        summary: tool?.summary ?? "",
        success: event.success,
        output: event.output,
        truncated: event.truncated,
      });
      return NONE;
    },
  },
  "plan.updated": {
    scope: "turn",
    apply(state, event) {
      applyPlan(state, event.steps);
      return NONE;
    },
  },
  "context.compacted": {
    // A turn's compaction, or (without turn_id) the reply to session.compact.
    scope: "session",
    apply(state, event) {
      if (event.turn_id === undefined) {
        applyCompactReply(state, event);
        return NONE;
      }
      const turn = turnOf(state, event);
      if (!turn) return NONE;
      state.contextTokens = event.after_tokens;
      turn.compacted = true;
      notice(
        state,
        "info",
        `Context compacted: ${event.removed_messages} messages removed, ${
          formatTokens(event.before_tokens)
        } → ${formatTokens(event.after_tokens)} tokens`,
      );
      return NONE;
    },
  },
  "turn.completed": {
    scope: "turn",
    apply(state, event, turn) {
      noteCost(state, event);
      // Without the provider's usage, scv's own count (not a 0 that reads as an empty context).
      const estimate = contextEstimate(event) ?? event.context_tokens;
      // A compaction in this turn measured the context exactly; keep its figure.
      if (estimate !== undefined && !turn.compacted) state.contextTokens = estimate;
      endTurn(state);
      // Only a turn a hook stopped can end with steers that never entered.
      if (event.dropped_steers) returnSteers(state, event.dropped_steers);
      followQueued(state);
      if (state.turn) return NONE;
      offerGoOn(state);
      return notifyEffects(state, "scv: the turn is done");
    },
  },
  "turn.cancelled": {
    scope: "turn",
    apply(state, event) {
      noteCost(state, event);
      endTurn(state, "(the turn was cancelled before this call completed)", "cancelled");
      notice(state, "warn", "Turn cancelled");
      returnSteers(state, event.dropped_steers);
      followQueued(state);
      return NONE;
    },
  },
  "turn.failed": {
    scope: "turn",
    apply(state, event) {
      noteCost(state, event);
      endTurn(state, undefined, "interrupted");
      notice(state, "error", `Turn failed (${event.code}): ${event.message}`);
      returnSteers(state, event.dropped_steers);
      followQueued(state);
      return notifyEffects(state, `scv: the turn failed (${event.code})`);
    },
  },
};

/**
 * Checks a session event's `seq` against the last one: a gap adds a warning and goes on; a
 * repeat or an older number adds a warning and drops the event (false).
 */
function checkSeq(state: ClientState, event: ServerEvent): boolean {
  const seq = "seq" in event && typeof event.seq === "number" ? event.seq : undefined;
  if (seq === undefined) return true;
  if (seq <= state.lastSeq) {
    notice(
      state,
      "warn",
      `Protocol warning: event ${event.type} repeats seq ${seq} (last was ${state.lastSeq}); ignored`,
    );
    return false;
  }
  if (seq !== state.lastSeq + 1) {
    const missing = seq - state.lastSeq - 1;
    notice(
      state,
      "warn",
      `Protocol warning: seq jumped from ${state.lastSeq} to ${seq}; ${missing} event${
        missing === 1 ? "" : "s"
      } missing`,
    );
  }
  state.lastSeq = seq;
  return true;
}

/** The running turn if `event` belongs to it, naming the turn's id on its first event. */
function turnOf(state: ClientState, event: ServerEvent): TurnState | undefined {
  const turn = state.turn;
  // (A context.compacted without turn_id answers session.compact, not a turn.)
  if (!turn || !("turn_id" in event) || event.turn_id === undefined) return undefined;
  if (turn.turnId === undefined) {
    if (event.request_id !== turn.requestId) return undefined;
    turn.turnId = event.turn_id;
  } else if (event.turn_id !== turn.turnId) {
    return undefined;
  }
  return turn;
}

function dispatch(state: ClientState, event: ServerEvent): Effect[] {
  // The table is keyed by type, so the handler found takes exactly this event's type.
  const handler = EVENT_HANDLERS[event.type] as EventHandler<typeof event.type> | undefined;
  if (handler?.scope === "connection") return handler.apply(state, event as never);
  // Every other event belongs to a session.
  if (!state.session || !("session_id" in event) || event.session_id !== state.session.id) {
    return NONE;
  }
  if (!checkSeq(state, event)) return NONE;
  if (handler?.scope === "session") return handler.apply(state, event as never);
  const turn = turnOf(state, event);
  if (!turn || handler?.scope !== "turn") return NONE;
  return handler.apply(state, event as never, turn);
}

/**
 * Applies one server event. Events of another session are ignored; a `seq` gap or repeat adds a
 * warning to the transcript, and a repeated or out-of-order event is otherwise dropped.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createState } from "./model.ts";
 * import { applyEvent } from "./events.ts";
 * const s = createState({ model: "m", cwd: "/w", historyLimits: { maxItems: 10, maxBytes: 100 } });
 * applyEvent(s, {
 *   type: "session.started", request_id: "r", session_id: "s1", cwd: "/w", model: "m",
 *   context_max_tokens: 1000, max_server_frame_bytes: 1000, max_transcript_bytes: 1000,
 *   max_transcript_items: 10, max_prompt_history_bytes: 100, max_prompt_history_items: 10,
 * });
 * assert(s.connection === "ready" && s.session?.id === "s1");
 * ```
 */
export function applyEvent(state: ClientState, raw: ServerEvent): Effect[] {
  state.version++;
  const effects = [...dispatch(state, cleanEvent(raw))];
  if (state.outbox.length > OUTBOX_FLUSH_ITEMS || state.outboxBytes > OUTBOX_FLUSH_BYTES) {
    effects.push({ kind: "flush" });
  }
  return effects;
}
