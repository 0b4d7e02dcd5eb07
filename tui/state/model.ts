/**
 * The TUI's client state: what the screen shows and nothing else, the effects the I/O shell
 * carries out after a change, and {@link createState}. The reducers that change a state live
 * beside this file (events, keymap, commands); nothing here touches a terminal or a stream.
 *
 * @module
 */
import type { OutgoingMessage } from "../../protocol/mod.ts";
import type {
  CheckpointSummary,
  ImageAttachment,
  Risk,
  RuleView,
  ServerEventOf,
  SessionSummary,
} from "../../protocol/mod.ts";

/** Where `bash` runs in the session, as `session.started.sandbox` says. */
export type SandboxInfo = NonNullable<ServerEventOf<"session.started">["sandbox"]>;

/** A configured MCP server's state at session start. */
export type McpServerInfo = NonNullable<ServerEventOf<"session.started">["mcp_servers"]>[number];
import * as ed from "../composer.ts";
import { PromptHistory } from "../history.ts";
import type { PlanLine } from "../../protocol/mod.ts";

/** A finished transcript item; written once to the terminal's scrollback. */
export type TranscriptItem =
  /** `images`: the chips of the images sent with it (scv 0.3), one line each. */
  | { kind: "user"; text: string; images?: string[] }
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
  | { kind: "notice"; level: "info" | "warn" | "error"; text: string }
  /** scv 0.3: the model's plan as it changed (`plan.updated`), as a checklist. */
  | { kind: "plan"; steps: PlanLine[] }
  /**
   * Reasoning ("thinking") of a provider call: collapsed to its last line once the call moves
   * on, or `full` when the user asked for all of it (Ctrl+O).
   */
  | { kind: "reasoning"; text: string; full: boolean };

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
  /** Whether the call runs in the OS sandbox (bash, when the server says). */
  sandboxed?: boolean;
  /** The rule that asks, when one does (scv 0.3). */
  rule?: RuleView;
  /** The diff the call would make (`write_file`, `edit_file`; scv 0.3). */
  preview?: string;
  /** How many rows of the preview are scrolled past. */
  previewScroll: number;
  /**
   * The highlighted choice, answered by Enter; `always` asks the server to keep a session rule
   * (`remember: "session"`) that allows the same call again.
   */
  choice: "approve" | "deny" | "always";
}

/** The session picker (`scv --resume`, `/resume`): recorded sessions of this workspace. */
export interface SessionPicker {
  /** The `session.list` request it waits for. */
  requestId: string;
  /** Undefined until the list arrives. */
  sessions: SessionSummary[] | undefined;
  /** More sessions were recorded than listed. */
  truncated: boolean;
  /** Typed text; sessions whose date, title or id contain it (any case) are shown. */
  filter: string;
  /** The highlighted row among the shown sessions. */
  index: number;
  /** Opened at startup, before any session: Esc then starts a new session. */
  startup: boolean;
  /** The terminal's offset from UTC in minutes: times are shown in its zone. */
  utcOffsetMinutes: number;
}

/** What a rewind of the picker puts back. */
export const REWIND_MODES = ["files", "conversation", "both"] as const;
/** One of {@link REWIND_MODES}. */
export type RewindMode = typeof REWIND_MODES[number];

/** An undo or a rewind on its way: which request it waits for, and what the user sees. */
export interface RewindFlow {
  /** `/undo` (files of the last changing turn) or the `/rewind` picker. */
  kind: "undo" | "rewind";
  /**
   * `listing`: waits for `session.checkpoints`; `pick`: the turns are shown; `mode`: files,
   * conversation or both is chosen; `preview`: waits for the dry run; `confirm`: asks y/n;
   * `running`: waits for `session.rewound`.
   */
  stage: "listing" | "pick" | "mode" | "preview" | "confirm" | "running";
  /** The request the flow waits for. */
  requestId: string;
  /** The turns, newest first, once listed. */
  turns: CheckpointSummary[];
  /** The highlighted turn. */
  index: number;
  /** The highlighted choice in `mode`. */
  mode: RewindMode;
  /** What the dry run said the undo will change. */
  preview?: { restored: string[]; removed: string[]; more: number };
}

/** A Ctrl+R search of the prompt history. */
export interface HistorySearch {
  query: string;
  /** The composer before the search, given back by Esc. */
  draft: ed.Buffer;
  /** The index in the history's entries of the match shown; undefined: none matches. */
  match: number | undefined;
}

/** A custom command: a Markdown file whose text becomes the prompt of `/name`. */
export interface CustomCommand {
  /** The name typed, without its slash. */
  name: string;
  /** Its first line, for `/help`. */
  description: string;
  /** The prompt, `$ARGUMENTS` standing for the words after the name. */
  body: string;
  /** The file it came from. */
  source: string;
}

/** A message carrying a prompt the user typed, whose `@path` mentions may attach files. */
export type PromptMessage = Extract<OutgoingMessage, { type: "turn.start" | "turn.steer" }>;

/** An image waiting in the composer. */
export interface ComposerImage {
  /** The file's name, as the chip shows it. */
  name: string;
  /** Its size in bytes. */
  bytes: number;
  /** What `turn.start` carries for it. */
  attachment: ImageAttachment;
}

/**
 * Reads what a user named as an image: a path (relative to the workspace or absolute, quoted,
 * `file://`, with `\ ` escapes as terminals paste them). Undefined: not an image file's path;
 * `{ error }`: an image that cannot be attached, and why.
 */
export type ImageReader = (raw: string) => ComposerImage | { error: string } | undefined;

/** The workspace's files for `@path` completion, as the shell indexed them. */
export interface WorkspaceIndex {
  /** Paths relative to the workspace, `/`-separated, directories ending in `/`. */
  paths: string[];
  /** More files existed than were indexed. */
  truncated: boolean;
}

/** The reasoning of the current provider call, and the last finished one. */
export interface ReasoningState {
  /** What streamed so far in this call (at most the bound). */
  text: string;
  bytes: number;
  /** More streamed than was kept. */
  cut: boolean;
  /** The end of what streamed, for the live line, even past the bound. */
  tail: string;
  /** The whole (kept) text of the last call that reasoned, for Ctrl+O. */
  last: { text: string; cut: boolean } | undefined;
}

/** A fresh, empty reasoning state. */
export function emptyReasoning(): ReasoningState {
  return { text: "", bytes: 0, cut: false, tail: "", last: undefined };
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
  /** Reopened from its record by `resume`. */
  resumed: boolean;
  /** Where `bash` runs; undefined when the server does not say (a v1 server). */
  sandbox: SandboxInfo | undefined;
  /** The MCP servers configured, as they stood at session start. */
  mcpServers: readonly McpServerInfo[];
  /** scv 0.3: whether the server keeps checkpoints (undefined: it does not say). */
  checkpoints?: boolean | undefined;
  /** Why checkpoints are off, when they are. */
  checkpointsWhy?: string | undefined;
  /**
   * scv 0.3: the session's cost so far in USD (`session_cost_usd` of `session.started` and of
   * each turn's end); undefined while the server reported none (no `pricing` for the model).
   */
  costUsd?: number | undefined;
  /** scv 0.3: the configured hooks' matcher groups, as `session.started` lists them. */
  hooks?: NonNullable<ServerEventOf<"session.started">["hooks"]>;
}

/** Requests of the session (not of a turn) whose reply the TUI waits for. */
export interface PendingRequests {
  /** `session.start` sent by /new, /resume or the picker. */
  start?: { requestId: string; resume?: string } | undefined;
  /** `session.history` after a resume. */
  history?: string | undefined;
  /** `session.compact`. */
  compact?: string | undefined;
  /** `session.configure`. */
  configure?: string | undefined;
  /** scv 0.3: the `session.configure` (to `auto`) after which the go-on prompt is sent. */
  goOn?: string | undefined;
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
   * the event reducer asks the shell for a `flush`, which drains it at once.
   */
  outbox: TranscriptItem[];
  /** The size of `outbox`, counted as `itemBytes` counts. */
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
  /**
   * What the user sent while a turn ran and the server holds (scv 0.3): steers that have not
   * entered yet and prompts queued behind the turn, oldest first (see `waiting.ts`).
   */
  queued: WaitingPrompt[];
  /** The key that steers a running turn (the `steer_key` setting); the other queues. */
  steerKey: "enter" | "tab";
  /**
   * What a resume after a crash says it put in the composer (`waiting.ts`), shown after the
   * "Resumed session" line so that it reads last.
   */
  recoveredNotice: string | undefined;
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
  /** The approval policy in force, for `/status` (`session.configured` reports changes). */
  approvalPolicy: string;
  /** Session requests awaiting their reply. */
  pending: PendingRequests;
  picker: SessionPicker | undefined;
  /** `/undo` or `/rewind` on its way (see `rewind.ts`). */
  rewind: RewindFlow | undefined;
  /** Esc was pressed on an empty idle composer; a second one opens the rewind picker. */
  escArmed: boolean;
  search: HistorySearch | undefined;
  customCommands: readonly CustomCommand[];
  /** The local time zone's offset from UTC in minutes, for the picker's times. */
  utcOffsetMinutes: number;
  /** Warnings found before the session started (custom commands left out), for after the banner. */
  startupWarnings: string[];
  /** The hint a Tab completion set (its candidates); the next key that is not Tab clears it. */
  completionHint: string | undefined;
  /** The provider's models as `/model` last listed them (at most `MAX_MODELS`), if it did. */
  providerModels: readonly string[] | undefined;
  /** The workspace's files, once indexed for `@path` completion. */
  files: WorkspaceIndex | undefined;
  /** A Tab on an `@` mention waits for the index: complete it when the index arrives. */
  completionPending: boolean;
  /** scv 0.3: images waiting in the composer, sent with the next prompt. */
  images: ComposerImage[];
  /** Reads a pasted or mentioned image path; undefined: images are not attached. */
  readImage: ImageReader | undefined;
  /** Streamed reasoning (see `reasoning.ts`). */
  reasoning: ReasoningState;
  /**
   * scv 0.3: the running turn's plan, shown as a checklist above the composer; undefined when
   * the turn set none (or no turn runs). See `plan.ts`.
   */
  plan: PlanLine[] | undefined;
  /** The checklist text of the plan the transcript shows last, so an unchanged one is not repeated. */
  planWritten: string | undefined;
  /**
   * scv 0.3: a turn ended in plan mode: Enter on an empty prompt switches to `auto` and goes on
   * (`modes.ts`).
   */
  planOffer: boolean;
  /** The policy `/plan` turned plan mode on from, which `/plan` again goes back to. */
  policyBeforePlan: string | undefined;
  /**
   * Sessions this connection opened and left for another (/new, /resume): still open on the
   * server, so going back to one is a switch, not a resume. Oldest first, bounded.
   */
  otherSessions: Map<string, { info: SessionInfo; lastSeq: number }>;
  /** scv 0.3: whether the terminal has focus, as its focus reports say (true until told). */
  focused: boolean;
  /** scv 0.3: the `notify` setting: notify when unfocused. */
  notify: boolean;
}

/** A steer or queued prompt sent while a turn ran, until it enters or starts. */
export interface WaitingPrompt {
  /** The `request_id` of its `turn.steer` or queued `turn.start`. */
  requestId: string;
  /** The text as typed (mentions not expanded), given back when it is taken back. */
  text: string;
  kind: "steer" | "queue";
  /** The server said `turn.steer.accepted` or `turn.queued`. */
  accepted: boolean;
}

/** A request whose confirmation the TUI waits for, and says so when it does not come. */
export type AwaitedRequest = "turn.cancel" | "session.clear";

/** Something the I/O shell must do after a state change. */
export type Effect =
  | { kind: "send"; message: OutgoingMessage }
  /**
   * scv 0.3: ask the server for the files `paths` (`files.read`), then send `message` with the
   * prompt `attachMentions` builds from `typed` and them; sends after it wait for it.
   */
  | {
    kind: "send-attached";
    message: PromptMessage;
    typed: string;
    images: readonly string[];
    paths: readonly string[];
    maxBytes: number;
  }
  | { kind: "exit"; status: number; message?: string }
  | { kind: "clear-screen" }
  | { kind: "save-history" }
  /** Write the outbox to scrollback now rather than at the next frame (see `outbox`). */
  | { kind: "flush" }
  /**
   * Call `applyNoReply` for `request` after `ms`, unless `awaitingReply` is false by then (the
   * shell then drops the timer, so none runs while the TUI is idle).
   */
  | { kind: "expect-reply"; request: AwaitedRequest; ms: number }
  /** Fetch the provider's models (`GET {base_url}/models`) and call `applyModelList`. */
  | { kind: "list-models" }
  /** Index the workspace's files and call `applyWorkspaceIndex`. */
  | { kind: "index-files" }
  /** scv 0.3: read the clipboard's image (Ctrl+V) and give it to `applyClipboardImage`. */
  | { kind: "paste-image" }
  /** scv 0.3: tell the user, who is in another window (OSC 9 or BEL, see `notify.ts`). */
  | { kind: "notify"; message: string };

/** How long `turn.cancel` and `session.clear` may go unconfirmed before the TUI says so. */
export const REPLY_TIMEOUT_MS = 5000;

/** Above this many finished items waiting for scrollback, the event reducer asks for a flush. */
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
  /** The configured approval policy. */
  approvalPolicy?: string;
  customCommands?: readonly CustomCommand[];
  /** The local time zone's offset from UTC in minutes, for the picker's times (default 0). */
  utcOffsetMinutes?: number;
  /** Warnings to show after the startup banner (see `welcome`). */
  startupWarnings?: readonly string[];
  readImage?: ImageReader;
  /** The key that steers a running turn (`steer_key`); omitted: Enter. */
  steerKey?: "enter" | "tab";
  /** The `notify` setting (default true). */
  notify?: boolean;
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
 * import { createState } from "./model.ts";
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
    steerKey: options.steerKey ?? "enter",
    recoveredNotice: undefined,
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
    approvalPolicy: options.approvalPolicy ?? "on-risk",
    pending: {},
    picker: undefined,
    rewind: undefined,
    escArmed: false,
    search: undefined,
    customCommands: options.customCommands ?? [],
    providerModels: undefined,
    completionHint: undefined,
    startupWarnings: [...(options.startupWarnings ?? [])],
    utcOffsetMinutes: options.utcOffsetMinutes ?? 0,
    files: undefined,
    completionPending: false,
    images: [],
    readImage: options.readImage,
    reasoning: emptyReasoning(),
    plan: undefined,
    planWritten: undefined,
    planOffer: false,
    policyBeforePlan: undefined,
    otherSessions: new Map(),
    focused: true,
    notify: options.notify ?? true,
  };
}

/** The next request id of this client (`tui-1`, `tui-2`, …). */
export function requestId(state: ClientState): string {
  return `tui-${state.nextRequest++}`;
}
