/**
 * The TUI's client state and the two functions that change it: {@link applyEvent} for a server
 * event and {@link applyKey} for a key event. Both mutate the state in place (so a delta costs
 * the same with 10 or 10,000 finished items) and return the effects the I/O shell must carry
 * out: messages to send, the screen to clear, the program to end. Nothing here touches a
 * terminal or a stream.
 *
 * @module
 */
import type { OutgoingMessage } from "../protocol/client.ts";
import type { Risk, ServerEvent, ServerEventOf } from "../protocol/schema.ts";
import * as ed from "./composer.ts";
import type { KeyEvent } from "./keys.ts";
import { PromptHistory } from "./history.ts";
import { sanitize } from "./text.ts";
import { marked, type Token, type Tokens } from "marked";

/** A finished transcript item; written once to the terminal's scrollback. */
export type TranscriptItem =
  | { kind: "user"; text: string }
  /**
   * Assistant Markdown. A long streamed message arrives in parts: each complete block is
   * written as soon as the next one starts; `continued` marks the parts after the first.
   */
  | { kind: "assistant"; text: string; note?: string; continued?: boolean }
  | {
    kind: "tool";
    callId: string;
    name: string;
    args: unknown;
    summary: string;
    success: boolean;
    output: string;
    truncated: boolean;
  }
  | { kind: "notice"; level: "info" | "warn" | "error"; text: string };

/** A tool call of the running turn that has not completed. */
export interface LiveTool {
  callId: string;
  name: string;
  args: unknown;
  summary: string;
  status: "proposed" | "awaiting" | "running";
}

/** An approval the server is waiting for. */
export interface PendingApproval {
  approvalId: string;
  callId: string;
  name: string;
  risk: Risk;
  cwd: string;
  summary: string;
  /** The highlighted choice, answered by Enter. */
  choice: "approve" | "deny";
}

/** What the running turn is doing, for the status line. */
export type TurnPhase = "starting" | "thinking" | "streaming" | "tool" | "approval" | "cancelling";

/** The running turn. */
export interface TurnState {
  requestId: string;
  /** The prompt sent, given back to the composer if the server refuses to start the turn. */
  prompt: string;
  /** Unknown until `turn.started` arrives. */
  turnId?: string;
  phase: TurnPhase;
  /** Esc was pressed before `turn.started`; cancel as soon as the id is known. */
  cancelRequested: boolean;
  /** `context.compacted` arrived in this turn: its `after_tokens` is the context figure. */
  compacted: boolean;
}

/** The session the server started, with the limits the client obeys. */
export interface SessionInfo {
  id: string;
  cwd: string;
  model: string;
  contextMaxTokens: number;
  maxTranscriptBytes: number;
  maxTranscriptItems: number;
  maxPromptHistoryBytes: number;
  maxPromptHistoryItems: number;
}

/** Everything the screen shows, and nothing else. */
export interface ClientState {
  /** `ready` once a session is open; `closed` when the server is gone. */
  connection: "connecting" | "ready" | "closed";
  session: SessionInfo | undefined;
  /** Model and workspace to show before the session starts. */
  model: string;
  cwd: string;
  /** Finished items kept in memory, oldest first, bounded by the session's limits. */
  transcript: TranscriptItem[];
  transcriptBytes: number;
  /**
   * Finished items not yet written to scrollback; the I/O shell drains it at every frame. It is
   * never trimmed (every item reaches the screen once, whatever the transcript's bounds): when
   * it grows past {@link OUTBOX_FLUSH_ITEMS} or {@link OUTBOX_FLUSH_BYTES} between two frames,
   * {@link applyEvent} asks the shell for a `flush`, which drains it at once.
   */
  outbox: TranscriptItem[];
  /** The size of `outbox`, counted as {@link itemBytes} counts. */
  outboxBytes: number;
  turn: TurnState | undefined;
  /**
   * The streamed assistant text of the current provider call not yet written to scrollback
   * (the last, possibly unfinished Markdown block and what follows), control characters removed.
   */
  streamText: string;
  /** The part of the streamed message already written to scrollback as complete blocks. */
  streamCommitted: string;
  /** `streamText` length when it was last split into blocks (to re-lex only as it grows). */
  streamLexedAt: number;
  /** Changes whenever a new streamed message starts, so cached wrapping can be dropped. */
  streamId: number;
  tools: LiveTool[];
  approval: PendingApproval | undefined;
  composer: ed.Buffer;
  /**
   * The composer's width in columns as the renderer lays it out, so that Up and Down move by
   * visual row; undefined until the shell knows the terminal's size (rows are then lines).
   */
  composerWidth: number | undefined;
  /** Prompts entered while a turn ran, sent when it completes. */
  queued: string[];
  /** The request id of a `session.clear` awaiting `session.cleared`. */
  clearing: string | undefined;
  /** Context use estimate in tokens; undefined before the first turn. */
  contextTokens: number | undefined;
  /** The last session `seq` seen. */
  lastSeq: number;
  /** A one-line hint above the composer, e.g. "press Ctrl+C again to exit". */
  hint: string | undefined;
  /** The hint "Press Ctrl+C again to exit" covers, shown again when the exit is not taken. */
  hintUnderExit: string | undefined;
  /** Ctrl+C was pressed on an empty idle composer; a second one exits. */
  exitArmed: boolean;
  history: PromptHistory;
  /** Where the server runs, for `/status`. */
  serverLabel: string;
  /** Bumped on every change, so the shell can skip rendering an unchanged state. */
  version: number;
  /** Source of request ids. */
  nextRequest: number;
  /** Bounds of `transcript`, from `session.started` (defaults before it). */
  transcriptLimits: { maxItems: number; maxBytes: number };
  /** The largest prompt sent, in UTF-8 bytes; a larger one stays in the composer. */
  maxPromptBytes: number;
}

/** A request whose confirmation the TUI waits for, and says so when it does not come. */
export type AwaitedRequest = "turn.cancel" | "session.clear";

/** Something the I/O shell must do after a state change. */
export type Effect =
  | { kind: "send"; message: OutgoingMessage }
  | { kind: "exit"; status: number; message?: string }
  | { kind: "clear-screen" }
  | { kind: "save-history" }
  /** Write the outbox to scrollback now rather than at the next frame (see `outbox`). */
  | { kind: "flush" }
  /**
   * Call {@link applyNoReply} for `request` after `ms`, unless {@link awaitingReply} is false
   * by then (the shell then drops the timer, so none runs while the TUI is idle).
   */
  | { kind: "expect-reply"; request: AwaitedRequest; ms: number };

/** How long `turn.cancel` and `session.clear` may go unconfirmed before the TUI says so. */
export const REPLY_TIMEOUT_MS = 5000;

/** Above this many finished items waiting for scrollback, {@link applyEvent} asks for a flush. */
export const OUTBOX_FLUSH_ITEMS = 256;

/** Above this many bytes of finished items waiting for scrollback, a flush is asked for. */
export const OUTBOX_FLUSH_BYTES = 1024 * 1024;

/** Options of {@link createState}. */
export interface CreateStateOptions {
  model: string;
  cwd: string;
  historyLimits: { maxItems: number; maxBytes: number };
  historyEntries?: readonly string[];
  transcriptLimits?: { maxItems: number; maxBytes: number };
  serverLabel?: string;
  /** The server's `max_prompt_bytes` when known; {@link DEFAULT_MAX_PROMPT_BYTES} otherwise. */
  maxPromptBytes?: number;
}

/**
 * The protocol's prompt limit (`max_prompt_bytes`, 256 KiB by default). `session.started` does
 * not report the server's value, so a client that cannot know it assumes the default. Checking
 * before sending matters: a prompt that makes the frame exceed `max_client_frame_bytes` is
 * answered with an `error` that has no `request_id`.
 */
export const DEFAULT_MAX_PROMPT_BYTES = 262144;

/**
 * A fresh state, connecting.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createState } from "./state.ts";
 * const s = createState({ model: "m", cwd: "/w", historyLimits: { maxItems: 10, maxBytes: 100 } });
 * assert(s.connection === "connecting" && s.transcript.length === 0);
 * ```
 */
export function createState(options: CreateStateOptions): ClientState {
  return {
    connection: "connecting",
    session: undefined,
    model: options.model,
    cwd: options.cwd,
    transcript: [],
    transcriptBytes: 0,
    outbox: [],
    outboxBytes: 0,
    turn: undefined,
    streamText: "",
    streamCommitted: "",
    streamLexedAt: 0,
    streamId: 0,
    tools: [],
    approval: undefined,
    composer: ed.EMPTY_BUFFER,
    composerWidth: undefined,
    queued: [],
    clearing: undefined,
    contextTokens: undefined,
    lastSeq: 0,
    hint: undefined,
    hintUnderExit: undefined,
    exitArmed: false,
    history: new PromptHistory(options.historyLimits, options.historyEntries ?? []),
    serverLabel: options.serverLabel ?? "in-process",
    version: 0,
    nextRequest: 1,
    transcriptLimits: options.transcriptLimits ?? { maxItems: 10000, maxBytes: 8 * 1024 * 1024 },
    maxPromptBytes: options.maxPromptBytes ?? DEFAULT_MAX_PROMPT_BYTES,
  };
}

const encoder = new TextEncoder();

/** The in-memory size of an item, counted as the UTF-8 bytes of its text fields. */
export function itemBytes(item: TranscriptItem): number {
  switch (item.kind) {
    case "tool":
      return encoder.encode(item.summary).length + encoder.encode(item.output).length +
        encoder.encode(item.name).length;
    default:
      return encoder.encode(item.text).length;
  }
}

/**
 * Appends a finished item to the transcript and the outbox, dropping the oldest items from the
 * transcript (they are in the terminal's scrollback, or in the outbox on their way there) to
 * stay within its limits. The limits bound the memory of the transcript, never what is shown.
 */
export function finishItem(state: ClientState, item: TranscriptItem): void {
  const bytes = itemBytes(item);
  state.outbox.push(item);
  state.outboxBytes += bytes;
  state.transcript.push(item);
  state.transcriptBytes += bytes;
  const { maxItems, maxBytes } = state.transcriptLimits;
  let drop = 0;
  while (
    drop < state.transcript.length - 1 &&
    (state.transcript.length - drop > maxItems || state.transcriptBytes > maxBytes)
  ) {
    state.transcriptBytes -= itemBytes(state.transcript[drop]!);
    drop++;
  }
  // A single item larger than the byte limit is still kept: it is the newest.
  if (drop > 0) state.transcript.splice(0, drop);
}

function notice(state: ClientState, level: "info" | "warn" | "error", text: string): void {
  finishItem(state, { kind: "notice", level, text });
}

function requestId(state: ClientState): string {
  return `tui-${state.nextRequest++}`;
}

/** A one-line summary of a tool call from its arguments, as CONTRACT.md's table words it. */
export function toolSummary(name: string, args: unknown): string {
  const a = (typeof args === "object" && args !== null ? args : {}) as Record<string, unknown>;
  const str = (k: string) => (typeof a[k] === "string" ? a[k] as string : "");
  switch (name) {
    case "bash":
      return str("command");
    case "read_file":
      return str("path");
    case "write_file":
      return `${str("path")} (${encoder.encode(str("content")).length} bytes)`;
    case "edit_file":
      return str("path");
    case "glob":
      return str("pattern");
    case "grep":
      return str("pattern") + (str("path") ? ` in ${str("path")}` : "");
    default:
      return typeof args === "string" ? args : JSON.stringify(args ?? {});
  }
}

/** Writes what is left of the streamed message to the transcript and starts afresh. */
function endStreaming(state: ClientState, note?: string): void {
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
function completeStreaming(state: ClientState, content: string): void {
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

/** Fields whose values are sent back to the server as they came, so never rewritten. */
const ID_FIELDS = new Set([
  "type",
  "request_id",
  "session_id",
  "turn_id",
  "call_id",
  "approval_id",
]);

function cleanValue(value: unknown): unknown {
  if (typeof value === "string") return sanitize(value);
  if (Array.isArray(value)) return value.map(cleanValue);
  if (typeof value === "object" && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = cleanValue(v);
    return out;
  }
  return value;
}

/**
 * The one place where server text is made safe for the terminal: a copy of the event with
 * every string (assistant text, tool names, arguments and output, summaries, paths, the model,
 * error messages) passed through {@link sanitize}, except the identifiers. The renderer
 * sanitizes again where it draws, as a second line of defence.
 */
export function cleanEvent(event: ServerEvent): ServerEvent {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(event)) out[k] = ID_FIELDS.has(k) ? v : cleanValue(v);
  return out as ServerEvent;
}

function sessionEventSeq(event: ServerEvent): number | undefined {
  return "seq" in event && typeof event.seq === "number" ? event.seq : undefined;
}

/**
 * Applies one server event. Events of another session are ignored; a `seq` gap or repeat adds a
 * warning to the transcript, and a repeated or out-of-order event is otherwise dropped.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { applyEvent, createState } from "./state.ts";
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
  const effects = applyCleanEvent(state, cleanEvent(raw));
  if (state.outbox.length > OUTBOX_FLUSH_ITEMS || state.outboxBytes > OUTBOX_FLUSH_BYTES) {
    effects.push({ kind: "flush" });
  }
  return effects;
}

function applyCleanEvent(state: ClientState, event: ServerEvent): Effect[] {
  const effects: Effect[] = [];
  if (event.type === "initialized") return effects;
  if (event.type === "session.started") {
    state.session = {
      id: event.session_id,
      cwd: event.cwd,
      model: event.model,
      contextMaxTokens: event.context_max_tokens,
      maxTranscriptBytes: event.max_transcript_bytes,
      maxTranscriptItems: event.max_transcript_items,
      maxPromptHistoryBytes: event.max_prompt_history_bytes,
      maxPromptHistoryItems: event.max_prompt_history_items,
    };
    state.model = event.model;
    state.cwd = event.cwd;
    state.transcriptLimits = {
      maxItems: event.max_transcript_items,
      maxBytes: event.max_transcript_bytes,
    };
    state.connection = "ready";
    state.lastSeq = 0;
    state.history.setLimits({
      maxItems: event.max_prompt_history_items,
      maxBytes: event.max_prompt_history_bytes,
    });
    return effects;
  }
  if (event.type === "error") {
    return applyError(state, event);
  }
  // A reply to no session (scv 0.2's session.list); this view does not ask for it.
  if (event.type === "session.list") return effects;
  // Every other event belongs to a session.
  if (!state.session || event.session_id !== state.session.id) return effects;
  const seq = sessionEventSeq(event);
  if (seq !== undefined) {
    if (seq <= state.lastSeq) {
      notice(
        state,
        "warn",
        `Protocol warning: event ${event.type} repeats seq ${seq} (last was ${state.lastSeq}); ignored`,
      );
      return effects;
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
  }
  switch (event.type) {
    case "session.cleared":
      state.clearing = undefined;
      state.transcript = [];
      state.transcriptBytes = 0;
      // The outbox stays: what is waiting was never shown, and the cleared frame writes it.
      state.contextTokens = undefined;
      effects.push({ kind: "clear-screen" });
      notice(state, "info", "Session cleared: the conversation starts afresh");
      return effects;
    case "session.trimmed":
      notice(
        state,
        "info",
        `History trimmed: ${event.removed_messages} old messages dropped to fit the server's limit`,
      );
      return effects;
    default:
      break;
  }
  // Turn events: only for the running turn.
  const turn = state.turn;
  // (A context.compacted without turn_id answers session.compact, not a turn.)
  if (!turn || !("turn_id" in event) || event.turn_id === undefined) return effects;
  if (turn.turnId === undefined) {
    if (event.request_id !== turn.requestId) return effects;
    turn.turnId = event.turn_id;
  } else if (event.turn_id !== turn.turnId) {
    return effects;
  }
  switch (event.type) {
    case "turn.started":
      if (turn.phase === "starting") turn.phase = "thinking";
      if (turn.cancelRequested) effects.push(cancelEffect(state, turn));
      break;
    case "assistant.delta":
      state.streamText += event.content;
      if (event.content.includes("\n")) commitCompleteBlocks(state);
      if (turn.phase !== "cancelling") turn.phase = "streaming";
      break;
    case "assistant.completed":
      completeStreaming(state, event.content);
      if (turn.phase !== "cancelling") turn.phase = "thinking";
      break;
    case "tool.proposed":
      endStreaming(state);
      state.tools.push({
        callId: event.call_id,
        name: event.name,
        args: event.arguments,
        summary: toolSummary(event.name, event.arguments),
        status: "proposed",
      });
      if (turn.phase !== "cancelling") turn.phase = "tool";
      break;
    case "approval.requested": {
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
        choice: "approve",
      };
      if (turn.phase !== "cancelling") turn.phase = "approval";
      break;
    }
    case "tool.started": {
      const tool = state.tools.find((t) => t.callId === event.call_id);
      if (tool) tool.status = "running";
      if (state.approval?.callId === event.call_id) state.approval = undefined;
      if (turn.phase !== "cancelling") turn.phase = "tool";
      break;
    }
    case "tool.completed": {
      const i = state.tools.findIndex((t) => t.callId === event.call_id);
      const tool = i === -1 ? undefined : state.tools.splice(i, 1)[0];
      if (state.approval?.callId === event.call_id) state.approval = undefined;
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
      if (turn.phase !== "cancelling") turn.phase = "thinking";
      break;
    }
    case "context.compacted":
      state.contextTokens = event.after_tokens;
      turn.compacted = true;
      notice(
        state,
        "info",
        `Context compacted: ${event.removed_messages} messages removed, ${
          formatTokens(event.before_tokens)
        } → ${formatTokens(event.after_tokens)} tokens`,
      );
      break;
    case "turn.completed": {
      const estimate = contextEstimate(event);
      // A compaction in this turn measured the context exactly; keep its figure.
      if (estimate !== undefined && !turn.compacted) state.contextTokens = estimate;
      endTurn(state);
      const next = state.queued.shift();
      if (next !== undefined) effects.push(...startTurn(state, next));
      break;
    }
    case "turn.cancelled":
      endStreaming(state, "cancelled");
      notice(state, "warn", "Turn cancelled");
      endTurn(state);
      restoreQueued(state);
      break;
    case "turn.failed":
      endStreaming(state, "interrupted");
      notice(state, "error", `Turn failed (${event.code}): ${event.message}`);
      endTurn(state);
      restoreQueued(state);
      break;
  }
  return effects;
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

/**
 * The share of the context window in use, in whole percent, at most 100: the token figure is
 * an estimate and may exceed the window.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { contextPercent } from "./state.ts";
 * assert(contextPercent(64000, 128000) === 50 && contextPercent(200000, 128000) === 100);
 * ```
 */
export function contextPercent(tokens: number, max: number): number {
  if (max <= 0) return 0;
  return Math.min(100, Math.round((tokens / max) * 100));
}

/**
 * Forgets the running turn, writing what it left unfinished to the transcript: the rest of the
 * streamed text, and each call that did not complete, with `unfinished` as its output.
 */
function endTurn(
  state: ClientState,
  unfinished = "(the turn ended before this call completed)",
): void {
  endStreaming(state);
  for (const t of state.tools) {
    finishItem(state, {
      kind: "tool",
      callId: t.callId,
      name: t.name,
      args: t.args,
      summary: t.summary,
      success: false,
      output: unfinished,
      truncated: false,
    });
  }
  state.tools = [];
  state.approval = undefined;
  state.turn = undefined;
  if (state.hint?.startsWith("Cancelling")) state.hint = undefined;
}

/**
 * Queued prompts of a cancelled or failed turn go back to the composer instead of running,
 * after `refused` (the prompt of a turn the server did not start) and before the draft.
 */
function restoreQueued(state: ClientState, refused?: string): void {
  if (state.queued.length === 0 && refused === undefined) return;
  const text = [refused ?? "", ...state.queued, state.composer.text].filter((t) => t !== "")
    .join("\n");
  state.queued = [];
  state.composer = ed.fromText(text);
}

/** The turn was never started: forget it and give its prompt back to the composer. */
function refuseStart(state: ClientState, turn: TurnState): void {
  state.turn = undefined;
  if (state.hint?.startsWith("Cancelling")) state.hint = undefined;
  restoreQueued(state, turn.prompt);
  notice(state, "info", "The prompt was not sent; it is back in the composer");
}

function applyError(state: ClientState, event: ServerEventOf<"error">): Effect[] {
  const effects: Effect[] = [];
  if (event.fatal) {
    notice(state, "error", `Server error (${event.code}): ${event.message}`);
    effects.push({
      kind: "exit",
      status: 1,
      message: `scv: the server reported a fatal error (${event.code}): ${event.message}`,
    });
    return effects;
  }
  // An error without a request id answers a frame the server could not read as a request, such
  // as one over max_client_frame_bytes; this client only sends valid frames, so it is the
  // answer to the request still waiting for one.
  const answers = (id: string) => event.request_id === id || event.request_id === undefined;
  notice(state, "error", `Error (${event.code}): ${event.message}`);
  const turn = state.turn;
  if (turn && !turn.turnId && answers(turn.requestId)) {
    // turn.start was refused: the turn never began.
    refuseStart(state, turn);
  }
  if (state.clearing !== undefined && answers(state.clearing)) {
    state.clearing = undefined;
  }
  return effects;
}

function cancelEffect(state: ClientState, turn: TurnState): Effect {
  turn.phase = "cancelling";
  state.hint = "Cancelling…";
  return {
    kind: "send",
    message: {
      type: "turn.cancel",
      request_id: requestId(state),
      session_id: state.session!.id,
      turn_id: turn.turnId!,
    },
  };
}

function startTurn(state: ClientState, prompt: string): Effect[] {
  if (!state.session) {
    notice(state, "error", "Not connected to a session yet");
    return [];
  }
  const id = requestId(state);
  state.turn = {
    requestId: id,
    prompt,
    phase: "starting",
    cancelRequested: false,
    compacted: false,
  };
  finishItem(state, { kind: "user", text: prompt });
  return [{
    kind: "send",
    message: { type: "turn.start", request_id: id, session_id: state.session.id, prompt },
  }];
}

/** Help text shown by `/help`. */
export const HELP_TEXT = [
  "Commands: /help  /clear (new conversation)  /status  /quit",
  "Keys: Enter send · Shift+Enter, Alt+Enter or Ctrl+J newline · Up/Down row, then history",
  "      Ctrl+A/E or Home/End line start/end · Alt+B/F or Ctrl+←/→ word · Ctrl+U/K/W delete",
  "      Esc or Ctrl+C cancel the turn · Ctrl+C twice or Ctrl+D on an empty prompt quit",
  "Approvals: y approve · n deny · ←/→ and Enter choose",
].join("\n");

/** Formats a byte count: `900 bytes`, `256 KiB`, `1.5 MiB`. */
function formatBytes(n: number): string {
  if (n < 1024) return `${n} bytes`;
  const [v, unit] = n < 1024 * 1024 ? [n / 1024, "KiB"] : [n / (1024 * 1024), "MiB"];
  return `${Number.isInteger(v) ? v : v.toFixed(1)} ${unit}`;
}

/** Formats a token count: `950`, `12.3k`, `1.2M`. */
export function formatTokens(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 100_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

function statusText(state: ClientState): string {
  const s = state.session;
  const ctx = state.contextTokens ?? 0;
  const max = s?.contextMaxTokens;
  return [
    `Server: ${state.serverLabel} (${state.connection})`,
    `Session: ${s?.id ?? "none"}`,
    `Model: ${state.model}`,
    `Workspace: ${state.cwd}`,
    `Context: ${formatTokens(ctx)}${
      max ? ` of ${formatTokens(max)} tokens (${contextPercent(ctx, max)}%)` : " tokens"
    }`,
    `Turn: ${state.turn ? state.turn.phase : "idle"}`,
    `Transcript: ${state.transcript.length} items, ${state.transcriptBytes} bytes in memory` +
    (s ? ` (limits ${s.maxTranscriptItems} items, ${s.maxTranscriptBytes} bytes)` : ""),
    `Prompt history: ${state.history.entries.length} entries`,
  ].join("\n");
}

/** The slash commands {@link runCommand} knows. */
const SLASH_COMMANDS = new Set(["/help", "/status", "/quit", "/exit", "/clear"]);

function runCommand(state: ClientState, line: string): Effect[] {
  const cmd = line.trim().split(/\s+/)[0]!.toLowerCase();
  switch (cmd) {
    case "/help":
      notice(state, "info", HELP_TEXT);
      return [];
    case "/status":
      notice(state, "info", statusText(state));
      return [];
    case "/quit":
    case "/exit":
      return [{ kind: "exit", status: 0 }];
    case "/clear": {
      if (state.turn) {
        notice(state, "error", "Cannot clear while a turn is running; press Esc to cancel it");
        return [];
      }
      if (!state.session) {
        notice(state, "error", "Not connected to a session yet");
        return [];
      }
      const id = requestId(state);
      state.clearing = id;
      return [{
        kind: "send",
        message: { type: "session.clear", request_id: id, session_id: state.session.id },
      }, { kind: "expect-reply", request: "session.clear", ms: REPLY_TIMEOUT_MS }];
    }
    default:
      notice(state, "error", `Unknown command ${cmd}; type /help for the list`);
      return [];
  }
}

/** Sends the composer's text: a slash command, a new turn, or a queued prompt. */
function submit(state: ClientState): Effect[] {
  const text = state.composer.text;
  if (text.trim() === "") return [];
  const effects: Effect[] = [];
  const named = /^\/([a-z]+)\s+\S/i.exec(text.trim());
  if (named && SLASH_COMMANDS.has(`/${named[1]!.toLowerCase()}`)) {
    // "/clear now" is a command typed with words it does not take, not a prompt for the model;
    // the text stays so it can be fixed. A path such as "/etc/hosts is wrong" is still a prompt.
    notice(state, "error", `/${named[1]} takes no arguments; the text is kept in the composer`);
    return effects;
  }
  if (/^\/[a-z]+\s*$/i.test(text.trim())) {
    state.composer = ed.EMPTY_BUFFER;
    state.history.add(text);
    effects.push({ kind: "save-history" });
    effects.push(...runCommand(state, text));
    return effects;
  }
  // A prompt that cannot be sent stays in the composer, so nothing typed is lost.
  if (!state.session) {
    notice(state, "error", "Not connected to a session yet; the prompt is kept in the composer");
    return effects;
  }
  const bytes = encoder.encode(text).length;
  if (bytes > state.maxPromptBytes) {
    notice(
      state,
      "error",
      `The prompt is ${formatBytes(bytes)}, over the server's limit of ${
        formatBytes(state.maxPromptBytes)
      }; it was not sent and is kept in the composer`,
    );
    return effects;
  }
  state.composer = ed.EMPTY_BUFFER;
  state.history.add(text);
  effects.push({ kind: "save-history" });
  if (state.turn) {
    state.queued.push(text);
    return effects;
  }
  effects.push(...startTurn(state, text));
  return effects;
}

function resolveApproval(state: ClientState, approved: boolean): Effect[] {
  const a = state.approval;
  if (!a || !state.session) return [];
  state.approval = undefined;
  const tool = state.tools.find((t) => t.callId === a.callId);
  if (tool) tool.status = approved ? "running" : "proposed";
  return [{
    kind: "send",
    message: {
      type: "approval.resolve",
      request_id: requestId(state),
      session_id: state.session.id,
      approval_id: a.approvalId,
      approved,
    },
  }];
}

function cancelTurn(state: ClientState): Effect[] {
  const turn = state.turn;
  if (!turn || turn.phase === "cancelling") return [];
  const expect: Effect = { kind: "expect-reply", request: "turn.cancel", ms: REPLY_TIMEOUT_MS };
  if (turn.turnId === undefined) {
    turn.cancelRequested = true;
    turn.phase = "cancelling";
    state.hint = "Cancelling…";
    return [expect];
  }
  return [cancelEffect(state, turn), expect];
}

/**
 * Whether the TUI still waits for the server to confirm `request`: the running turn to end
 * after a cancel, `session.cleared` after `/clear`.
 */
export function awaitingReply(state: ClientState, request: AwaitedRequest): boolean {
  return request === "turn.cancel"
    ? state.turn?.phase === "cancelling"
    : state.clearing !== undefined;
}

/**
 * Called by the shell when {@link REPLY_TIMEOUT_MS} passed after an `expect-reply` effect.
 * If the server has still not confirmed, the user is told so: a cancel goes on waiting (the
 * server may be slow to stop), with a reminder that Ctrl+C twice or Ctrl+D exits; a clear stops
 * waiting, as the conversation may not have been cleared (a late `session.cleared` still
 * clears it). It returns effects like the other reducers (none so far), so the shell runs its
 * result the same way.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { applyNoReply, createState } from "./state.ts";
 * const s = createState({ model: "m", cwd: "/w", historyLimits: { maxItems: 10, maxBytes: 100 } });
 * assert(applyNoReply(s, "turn.cancel").length === 0 && s.outbox.length === 0); // nothing awaited
 * ```
 */
export function applyNoReply(state: ClientState, request: AwaitedRequest): Effect[] {
  if (!awaitingReply(state, request)) return [];
  state.version++;
  const seconds = REPLY_TIMEOUT_MS / 1000;
  if (request === "turn.cancel") {
    notice(
      state,
      "warn",
      `The server has not confirmed the cancel after ${seconds} s; the turn may still be ` +
        "running. Ctrl+C twice, or Ctrl+D on an empty prompt, exits",
    );
    state.hint = "Cancelling… not confirmed; Ctrl+C twice or Ctrl+D exits";
  } else {
    state.clearing = undefined;
    notice(
      state,
      "warn",
      `The server has not confirmed /clear after ${seconds} s; the conversation may not be cleared`,
    );
  }
  return [];
}

/**
 * Replaces the composer's buffer. An edit does not stop a history walk: the edited entry is
 * kept by the history when Up/Down leave it, and Down past the newest still gives the draft.
 */
function setComposer(state: ClientState, next: ed.Buffer): void {
  state.composer = next;
}

/**
 * Applies one key event: editing, history, approval answers, cancel and exit.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { applyKey, createState } from "./state.ts";
 * const s = createState({ model: "m", cwd: "/w", historyLimits: { maxItems: 10, maxBytes: 100 } });
 * applyKey(s, { type: "text", text: "hi" });
 * assert(s.composer.text === "hi");
 * const fx = applyKey(s, { type: "key", name: "d", ctrl: true, alt: false, shift: false });
 * assert(fx.length === 0); // Ctrl+D on a non-empty composer deletes forward
 * ```
 */
export function applyKey(state: ClientState, ev: KeyEvent): Effect[] {
  state.version++;
  const wasArmed = state.exitArmed;
  state.exitArmed = false;
  if (wasArmed && state.hint?.startsWith("Press Ctrl+C")) {
    // Only a cancel still awaiting confirmation has a hint worth showing again.
    state.hint = state.turn?.phase === "cancelling" ? state.hintUnderExit : undefined;
  }
  const b = state.composer;

  if (ev.type === "paste") {
    setComposer(state, ed.insert(b, ev.text));
    return [];
  }
  if (ev.type === "text") {
    if (state.approval && !ev.alt && b.text === "") {
      const ch = ev.text.toLowerCase();
      if (ch === "y") return resolveApproval(state, true);
      if (ch === "n") return resolveApproval(state, false);
    }
    if (ev.alt) {
      switch (ev.text) {
        case "b":
          setComposer(state, ed.wordLeft(b));
          return [];
        case "f":
          setComposer(state, ed.wordRight(b));
          return [];
        case "d":
          setComposer(state, ed.deleteWordForward(b));
          return [];
        default:
          return [];
      }
    }
    setComposer(state, ed.insert(b, ev.text));
    return [];
  }

  const { name, ctrl, alt, shift } = ev;
  if (ctrl) {
    switch (name) {
      case "c":
        // While a cancel awaits confirmation, Ctrl+C does as when idle, so twice still exits.
        if (state.turn && state.turn.phase !== "cancelling") return cancelTurn(state);
        if (b.text !== "") {
          // The line is abandoned, as in a shell: a history walk starts afresh.
          state.history.reset();
          state.composer = ed.EMPTY_BUFFER;
          return [];
        }
        if (wasArmed) return [{ kind: "exit", status: 0 }];
        state.exitArmed = true;
        state.hintUnderExit = state.hint;
        state.hint = "Press Ctrl+C again to exit";
        return [];
      case "d":
        if (b.text === "") return [{ kind: "exit", status: 0 }];
        setComposer(state, ed.deleteForward(b));
        return [];
      case "j":
        setComposer(state, ed.insert(b, "\n"));
        return [];
      case "a":
        setComposer(state, ed.home(b));
        return [];
      case "e":
        setComposer(state, ed.end(b));
        return [];
      case "b":
        setComposer(state, ed.left(b));
        return [];
      case "f":
        setComposer(state, ed.right(b));
        return [];
      case "u":
        setComposer(state, ed.killToLineStart(b));
        return [];
      case "k":
        setComposer(state, ed.killToLineEnd(b));
        return [];
      case "w":
        setComposer(state, ed.deleteWordBack(b));
        return [];
      case "h":
        setComposer(state, ed.backspace(b));
        return [];
      case "left":
        setComposer(state, ed.wordLeft(b));
        return [];
      case "right":
        setComposer(state, ed.wordRight(b));
        return [];
      case "p":
        return historyStep(state, -1);
      case "n":
        return historyStep(state, 1);
      default:
        if (name !== "enter" && name !== "backspace") return [];
    }
  }

  if (state.approval) {
    if (name === "left" || name === "right" || name === "tab") {
      state.approval.choice = state.approval.choice === "approve" ? "deny" : "approve";
      return [];
    }
    if (name === "enter" && !shift && !alt && !ctrl && b.text === "") {
      return resolveApproval(state, state.approval.choice === "approve");
    }
  }

  switch (name) {
    case "enter":
      if (shift || alt || ctrl) {
        setComposer(state, ed.insert(b, "\n"));
        return [];
      }
      return submit(state);
    case "escape":
      if (state.turn) return cancelTurn(state);
      return [];
    case "backspace":
      setComposer(state, alt || ctrl ? ed.deleteWordBack(b) : ed.backspace(b));
      return [];
    case "delete":
      setComposer(state, ed.deleteForward(b));
      return [];
    case "left":
      setComposer(state, alt ? ed.wordLeft(b) : ed.left(b));
      return [];
    case "right":
      setComposer(state, alt ? ed.wordRight(b) : ed.right(b));
      return [];
    case "home":
      setComposer(state, ed.home(b));
      return [];
    case "end":
      setComposer(state, ed.end(b));
      return [];
    // Up and Down move by visual row in a wrapped or multi-line prompt; only from its first or
    // last row do they walk the history.
    case "up":
      if (ed.onFirstRow(b, state.composerWidth)) return historyStep(state, -1);
      state.composer = ed.up(b, state.composerWidth);
      return [];
    case "down":
      if (ed.onLastRow(b, state.composerWidth)) return historyStep(state, 1);
      state.composer = ed.down(b, state.composerWidth);
      return [];
    case "tab":
      setComposer(state, ed.insert(b, "    "));
      return [];
    default:
      return [];
  }
}

function historyStep(state: ClientState, dir: -1 | 1): Effect[] {
  const current = state.composer.text;
  const text = dir < 0 ? state.history.previous(current) : state.history.next(current);
  if (text !== undefined) state.composer = ed.fromText(text);
  return [];
}

/**
 * Records that a message could not be sent (the server's input is gone or broken). A
 * `turn.start` that never left ends its turn, its prompt back in the composer; a
 * `session.clear` stops waiting; a `turn.cancel` can be tried again.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { applySendFailure, createState } from "./state.ts";
 * const s = createState({ model: "m", cwd: "/w", historyLimits: { maxItems: 10, maxBytes: 100 } });
 * applySendFailure(s, { type: "session.clear", request_id: "r", session_id: "s" }, "broken pipe");
 * assert(s.transcript.some((i) => i.kind === "notice" && i.text.includes("broken pipe")));
 * ```
 */
export function applySendFailure(
  state: ClientState,
  message: OutgoingMessage,
  error: string,
): void {
  state.version++;
  notice(state, "error", `Could not send ${message.type}: ${error}`);
  const turn = state.turn;
  switch (message.type) {
    case "turn.start":
      if (turn && !turn.turnId && turn.requestId === message.request_id) {
        refuseStart(state, turn);
      }
      break;
    case "session.clear":
      if (state.clearing === message.request_id) state.clearing = undefined;
      break;
    case "turn.cancel":
      if (turn && turn.phase === "cancelling" && turn.turnId === message.turn_id) {
        turn.phase = "thinking";
        if (state.hint?.startsWith("Cancelling")) state.hint = undefined;
      }
      break;
    default:
      break;
  }
}

/**
 * Ends the running turn where it stands, for the paths that leave it unfinished (the user
 * quits, the server goes away): its streamed text goes to the transcript marked
 * "(interrupted)", and its calls that did not complete with a note saying so, as a cancel would
 * write them; so nothing the screen showed is lost when the live region goes.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createState, interruptTurn } from "./state.ts";
 * const s = createState({ model: "m", cwd: "/w", historyLimits: { maxItems: 10, maxBytes: 100 } });
 * interruptTurn(s); // no turn: nothing to do
 * assert(s.outbox.length === 0);
 * ```
 */
export function interruptTurn(state: ClientState): void {
  if (!state.turn) return;
  state.version++;
  endStreaming(state, "interrupted");
  endTurn(state, "(interrupted before this call completed)");
}

/** Marks the connection closed, interrupting the running turn; the shell reports it and exits. */
export function markClosed(state: ClientState): void {
  state.version++;
  state.connection = "closed";
  interruptTurn(state);
}

/** Adds a notice to the transcript (for the shell's own messages, e.g. a malformed frame). */
export function addNotice(
  state: ClientState,
  level: "info" | "warn" | "error",
  text: string,
): void {
  state.version++;
  notice(state, level, text);
}

/** Takes the finished items not yet written to scrollback. */
export function drainOutbox(state: ClientState): TranscriptItem[] {
  if (state.outbox.length === 0) return [];
  const items = state.outbox;
  state.outbox = [];
  state.outboxBytes = 0;
  return items;
}
