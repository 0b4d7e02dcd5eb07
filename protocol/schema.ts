/**
 * The Peon protocol v1, declared once: every client message and server event as a zod schema,
 * discriminated on `type`, one per name of `wire.ts`'s table. Parsers, the unknown-type
 * rejection, the TypeScript types and `scv protocol schema` all derive from these tables.
 *
 * Objects are non-strict on purpose: the protocol says unknown fields are ignored, and zod's
 * default object strips them.
 *
 * @module
 */
import * as z from "zod";

import {
  APPROVAL_POLICIES,
  type ClientMessageType,
  ERROR_CODES,
  IMAGE_MEDIA_TYPES,
  MAX_FILES_READ_BYTES,
  MAX_FILES_READ_PATH_CHARS,
  MAX_SESSION_LIST_LIMIT,
  RISKS,
  TURN_FAILURE_CODES,
} from "./constants.ts";
import type { ServerEventType } from "./wire.ts";
import { PlanSteps } from "./plan_schema.ts";

export * from "./constants.ts";
export { PlanStep, PlanSteps } from "./plan_schema.ts";
export type { EventKind, ServerEventType, TurnEventType } from "./wire.ts";
export { SERVER_EVENT_KINDS, SERVER_EVENT_TYPES } from "./wire.ts";

const requestId = z.string().min(1, "must be a non-empty string");
const id = z.string().min(1, "must be a non-empty string");

/** A table's schemas as the non-empty tuple `z.discriminatedUnion` takes. */
function schemasOf<T extends Record<string, z.ZodObject>>(table: T): [T[keyof T], ...T[keyof T][]] {
  return Object.values(table) as [T[keyof T], ...T[keyof T][]];
}

// ---------------------------------------------------------------------------------------------
// Client messages

/** `initialize`: the first message of every connection. */
export const InitializeMessage = z.object({
  type: z.literal("initialize"),
  request_id: requestId,
  protocol_version: z.number().int(),
  /** Omitted: the client did not say who it is; only used for diagnostics. */
  client: z.object({ name: z.string(), version: z.string() }).optional(),
  /**
   * scv 0.2: optional events the client wants. `reasoning`: `assistant.reasoning.delta`;
   * `notices`: `turn.notice`. Omitted (or false): none of them is sent.
   */
  capabilities: z.object({
    reasoning: z.boolean().optional(),
    notices: z.boolean().optional(),
  }).optional(),
});

/** `session.start`: opens a session on an absolute workspace directory. */
export const SessionStartMessage = z.object({
  type: z.literal("session.start"),
  request_id: requestId,
  cwd: z.string(),
  /**
   * scv 0.2: reopen a recorded session, by id or `"last"` (the newest recorded for this
   * canonical `cwd`). Omitted: a new session.
   */
  resume: id.optional(),
});

/**
 * scv 0.3: one image given with a prompt, either inline (`media_type` and base64 `data`) or as
 * a `path` inside the workspace that the server reads. Which of the two, the bounds and the
 * format are checked by the server (server/images/attachments.ts), so that each refusal names
 * the attachment; here only the field types.
 */
export const ImageAttachment = z.object({
  type: z.literal("image"),
  /** Inline only: the format `data` claims to be. */
  media_type: z.enum(IMAGE_MEDIA_TYPES).optional(),
  /** Inline: the image, base64 (standard alphabet, padded). */
  data: z.string().optional(),
  /** By path: a file inside the workspace, relative to it or absolute. */
  path: z.string().optional(),
  /** What to call it in the transcript; omitted: the path's file name, or `image N`. */
  name: z.string().optional(),
});
/** One image attachment, as a type. */
export type ImageAttachment = z.infer<typeof ImageAttachment>;

/** `turn.start`: runs one agent turn on an idle session. */
export const TurnStartMessage = z.object({
  type: z.literal("turn.start"),
  request_id: requestId,
  session_id: id,
  prompt: z.string(),
  /** scv 0.3: images given with the prompt, at most `MAX_ATTACHMENTS`; omitted: none. */
  attachments: z.array(ImageAttachment).optional(),
  /**
   * scv 0.3: on a session whose turn is active, wait in the session's queue (answered
   * `turn.queued`) instead of being refused with `turn_active`. Omitted (or false): refused.
   */
  queue: z.boolean().optional(),
});

/** scv 0.3 `turn.steer`: adds text to the active turn at its next safe point. */
export const TurnSteerMessage = z.object({
  type: z.literal("turn.steer"),
  request_id: requestId,
  session_id: id,
  turn_id: id,
  prompt: z.string(),
  /** Images given with the steer, as `turn.start`'s `attachments`; omitted: none. */
  attachments: z.array(ImageAttachment).optional(),
});

/** scv 0.3 `turn.dequeue`: takes a prompt that waits in the queue back out of it. */
export const TurnDequeueMessage = z.object({
  type: z.literal("turn.dequeue"),
  request_id: requestId,
  session_id: id,
  /** The `request_id` of the queued `turn.start`. */
  queued_request_id: requestId,
});

/** `turn.cancel`: cancels the running turn; answered by `turn.cancelled`. */
export const TurnCancelMessage = z.object({
  type: z.literal("turn.cancel"),
  request_id: requestId,
  session_id: id,
  turn_id: id,
});

/** `approval.resolve`: answers one `approval.requested`. */
export const ApprovalResolveMessage = z.object({
  type: z.literal("approval.resolve"),
  request_id: requestId,
  session_id: id,
  approval_id: id,
  approved: z.boolean(),
  /**
   * scv 0.3: `"session"` with `approved: true` keeps a session rule allowing this call again
   * (bash: the exact command; another tool: that tool on that path, or with these exact
   * arguments when it takes no path). Omitted: this call only.
   */
  remember: z.literal("session").optional(),
});

/** `session.clear`: drops an idle session's history; answered by `session.cleared`. */
export const SessionClearMessage = z.object({
  type: z.literal("session.clear"),
  request_id: requestId,
  session_id: id,
});

/** scv 0.2 `session.list`: the recorded sessions, newest first. */
export const SessionListMessage = z.object({
  type: z.literal("session.list"),
  request_id: requestId,
  /** Only sessions recorded for this directory (canonicalized); omitted: every directory. */
  cwd: z.string().optional(),
  /** At most this many sessions; omitted: 50 (`DEFAULT_SESSION_LIST_LIMIT`). */
  limit: z.number().int().positive().max(MAX_SESSION_LIST_LIMIT).optional(),
});

/** scv 0.2 `session.history`: replays an idle session's history as `history.item` events. */
export const SessionHistoryMessage = z.object({
  type: z.literal("session.history"),
  request_id: requestId,
  session_id: id,
});

/** scv 0.2 `session.compact`: compacts an idle session's history now. */
export const SessionCompactMessage = z.object({
  type: z.literal("session.compact"),
  request_id: requestId,
  session_id: id,
  /** What the compaction should keep in mind; bounded like a prompt. */
  instructions: z.string().optional(),
});

/** scv 0.2 `session.configure`: changes an idle session's model or approval policy. */
export const SessionConfigureMessage = z.object({
  type: z.literal("session.configure"),
  request_id: requestId,
  session_id: id,
  model: z.string().trim().min(1, "must be a non-empty string").optional(),
  approval_policy: z.enum(APPROVAL_POLICIES).optional(),
});

/** scv 0.2 `mcp.status`: the configured MCP servers' state and tools now. */
export const McpStatusMessage = z.object({
  type: z.literal("mcp.status"),
  request_id: requestId,
});

/** scv 0.3 `rules.list`: the approval rules in force in a session, answered by `rules.list`. */
export const RulesListMessage = z.object({
  type: z.literal("rules.list"),
  request_id: requestId,
  session_id: id,
});

/** scv 0.3 `models.list`: the models the session's provider offers (its `/models` list). */
export const ModelsListMessage = z.object({
  type: z.literal("models.list"),
  request_id: requestId,
  session_id: id,
});

/** scv 0.3 `session.checkpoints`: the session's checkpoints (turns to rewind to), newest first. */
export const SessionCheckpointsMessage = z.object({
  type: z.literal("session.checkpoints"),
  request_id: requestId,
  session_id: id,
});

/** The most paths one `files.list` may ask for. */
export const MAX_FILES_LIST_LIMIT = 100_000;

/** scv 0.3 `files.list`: the session workspace's files and directories, for `@path` completion. */
export const FilesListMessage = z.object({
  type: z.literal("files.list"),
  request_id: requestId,
  session_id: id,
  /** At most this many paths; omitted: 20000. */
  limit: z.number().int().positive().max(MAX_FILES_LIST_LIMIT).optional(),
});

export { DEFAULT_FILES_READ_BYTES, MAX_FILES_READ_BYTES } from "./constants.ts";

/**
 * scv 0.3 `files.read`: the head of one file of the session's workspace, read by the server
 * under the workspace's rules, for a client to attach a mentioned `@path` to a prompt.
 */
export const FilesReadMessage = z.object({
  type: z.literal("files.read"),
  request_id: requestId,
  session_id: id,
  /** Relative to the workspace, or absolute (and then inside it). */
  path: z.string().min(1, "must be a non-empty string").max(MAX_FILES_READ_PATH_CHARS),
  /** At most this many bytes of the file's head; omitted: 65536. */
  max_bytes: z.number().int().positive().max(MAX_FILES_READ_BYTES).optional(),
});

/**
 * scv 0.3 `session.rewind`: on an idle session, puts the workspace's files back as they were
 * before turn `turn_id` (`files`) and/or drops that turn and every later one from the
 * conversation and the record (`conversation`). At least one of the two must be true.
 */
export const SessionRewindMessage = z.object({
  type: z.literal("session.rewind"),
  request_id: requestId,
  session_id: id,
  turn_id: id,
  files: z.boolean(),
  conversation: z.boolean(),
  /** scv's own: say what `files` would restore and remove, and change nothing. Omitted: false. */
  dry_run: z.boolean().optional(),
});

/**
 * Every client message's schema, keyed by its type: one per name in `wire.ts`'s
 * `CLIENT_MESSAGE_TYPES`, no more and no fewer (the compiler checks both ways).
 */
export const CLIENT_MESSAGES = {
  "initialize": InitializeMessage,
  "session.start": SessionStartMessage,
  "turn.start": TurnStartMessage,
  "turn.cancel": TurnCancelMessage,
  "approval.resolve": ApprovalResolveMessage,
  "session.clear": SessionClearMessage,
  "session.list": SessionListMessage,
  "session.history": SessionHistoryMessage,
  "session.compact": SessionCompactMessage,
  "session.configure": SessionConfigureMessage,
  "mcp.status": McpStatusMessage,
  "session.checkpoints": SessionCheckpointsMessage,
  "session.rewind": SessionRewindMessage,
  "turn.steer": TurnSteerMessage,
  "turn.dequeue": TurnDequeueMessage,
  "rules.list": RulesListMessage,
  "models.list": ModelsListMessage,
  "files.list": FilesListMessage,
  "files.read": FilesReadMessage,
} as const satisfies { readonly [T in ClientMessageType]: z.ZodType<{ type: T }> };

// The table has no key the type list lacks (`satisfies` above checks the other way).
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const _sameTypes: Same<ClientMessageType, keyof typeof CLIENT_MESSAGES> = true;
void _sameTypes;

/** Any client message: the union of the table's schemas. */
export const ClientMessage = z.discriminatedUnion("type", schemasOf(CLIENT_MESSAGES));
/** Any client message, as a type. */
export type ClientMessage = z.infer<typeof ClientMessage>;
/** The client message of one type. */
export type ClientMessageOf<T extends ClientMessageType> = Extract<ClientMessage, { type: T }>;

// ---------------------------------------------------------------------------------------------
// Server events

const seq = z.number().int().positive();
const turnEnvelope = {
  request_id: requestId,
  session_id: id,
  turn_id: id,
  seq,
};

/** `initialized`: the reply to `initialize`. */
export const InitializedEvent = z.object({
  type: z.literal("initialized"),
  request_id: requestId,
  protocol_version: z.number().int(),
  server: z.object({ name: z.string(), version: z.string() }),
});

/** One configured MCP server's state in `session.started` (see docs/mcp.md). */
export const McpServerState = z.object({
  /** The server's name in `mcp_servers`. */
  name: z.string(),
  /** `starting` until it answered `initialize` and `tools/list` (or failed to). */
  status: z.enum(["starting", "ready", "failed"]),
  /** Tools offered to the model from it; 0 unless ready. */
  tools: z.number().int().nonnegative(),
  /** Why it failed; only with `failed`. */
  error: z.string().optional(),
});
/**
 * `session.started.sandbox` (scv 0.2): where `bash` runs in this session. An active mode says
 * whether commands have network; `off` says why (configured off, or the OS sandbox cannot
 * start here); a `reason` beside an active mode says why it is narrower than configured.
 */
export const SessionSandbox = z.discriminatedUnion("mode", [
  z.object({
    mode: z.enum(["workspace-write", "read-only"]),
    network: z.boolean(),
    reason: z.string().optional(),
  }),
  z.object({ mode: z.literal("off"), reason: z.string() }),
]);

/** `session.started`: the reply to `session.start`, with the limits the client must obey. */
export const SessionStartedEvent = z.object({
  type: z.literal("session.started"),
  request_id: requestId,
  session_id: id,
  cwd: z.string(),
  model: z.string(),
  context_max_tokens: z.number().int().positive(),
  max_server_frame_bytes: z.number().int().positive(),
  max_transcript_bytes: z.number().int().positive(),
  max_transcript_items: z.number().int().positive(),
  max_prompt_history_bytes: z.number().int().positive(),
  max_prompt_history_items: z.number().int().positive(),
  /** Each enabled MCP server's state; omitted when none is configured. */
  mcp_servers: z.array(McpServerState).optional(),
  /** scv 0.2: true when this is a recorded session reopened by `resume`; omitted otherwise. */
  resumed: z.boolean().optional(),
  /**
   * scv 0.2, on a resumed session: the last seq it recorded, so the next session event carries
   * `last_seq + 1`. Omitted on a new session (its first event carries 1).
   */
  last_seq: z.number().int().nonnegative().optional(),
  sandbox: SessionSandbox.optional(),
  /**
   * scv 0.3: whether the session keeps checkpoints of the workspace (`session.rewind`), and when
   * not, why (git not on PATH, `checkpoints` false, ...). Omitted by servers before 0.3.
   */
  checkpoints: z.object({ enabled: z.boolean(), reason: z.string().optional() }).optional(),
  /**
   * scv 0.2, on a resumed session: what the user should know about its record, e.g. that a
   * record torn by a crash was dropped; scv 0.3, on any session: that the workspace's Claude
   * Code settings define hooks scv does not run. Omitted when there is nothing to say.
   */
  notice: z.string().optional(),
  /**
   * scv 0.3, on a resumed session: the steers and queued prompts that were waiting when the
   * server stopped, oldest first. None of them is started; omitted when nothing was waiting.
   */
  queued: z.array(z.object({
    request_id: requestId,
    prompt: z.string(),
    kind: z.enum(["steer", "queue"]),
    /**
     * The names of the images it carried; their bytes are not kept, so a client sending it
     * again attaches them again. Omitted: none.
     */
    images: z.array(z.string()).optional(),
  })).optional(),
  /**
   * scv 0.3: the hooks of the user's configuration (docs/hooks.md), one entry per matcher
   * group, without their commands; omitted when none is configured.
   */
  hooks: z.array(z.object({
    event: z.string(),
    /** Omitted: the group matches everything. */
    matcher: z.string().optional(),
    /** How many command hooks the group runs. */
    commands: z.number().int().nonnegative(),
  })).optional(),
  /** scv 0.3, on a resumed session: its recorded cost in USD so far; omitted when none. */
  session_cost_usd: z.number().nonnegative().optional(),
});

/** `turn.started`: the first event of a turn. */
export const TurnStartedEvent = z.object({ type: z.literal("turn.started"), ...turnEnvelope });

/** `assistant.delta`: append-only streamed assistant text. */
export const AssistantDeltaEvent = z.object({
  type: z.literal("assistant.delta"),
  ...turnEnvelope,
  content: z.string(),
});

/**
 * scv 0.2 `assistant.reasoning.delta`: append-only streamed reasoning ("thinking") text, sent
 * only to clients that asked with `capabilities.reasoning`. Never part of assistant text.
 */
export const AssistantReasoningDeltaEvent = z.object({
  type: z.literal("assistant.reasoning.delta"),
  ...turnEnvelope,
  content: z.string(),
});

/**
 * scv 0.2 `turn.notice`: something the user should know about the turn (e.g. the model cannot
 * use tools, so it answers without them), sent only to clients that asked with
 * `capabilities.notices`.
 */
export const TurnNoticeEvent = z.object({
  type: z.literal("turn.notice"),
  ...turnEnvelope,
  message: z.string(),
});

/** `assistant.completed`: the canonical complete message of one provider call. */
export const AssistantCompletedEvent = z.object({
  type: z.literal("assistant.completed"),
  ...turnEnvelope,
  content: z.string(),
});

/** `tool.proposed`: the model asked for a tool call. */
export const ToolProposedEvent = z.object({
  type: z.literal("tool.proposed"),
  ...turnEnvelope,
  call_id: id,
  name: z.string(),
  /** The parsed arguments; a string when the model sent JSON that does not parse. */
  arguments: z.unknown(),
});

/** scv 0.3: one approval rule, as `approval.requested.rule` and `rules.list` show it. */
export const RuleView = z.object({
  /** `user` and `workspace`: from that rules file; `builtin`: scv's own; `session`: remembered. */
  source: z.enum(["user", "workspace", "builtin", "session", "parser"]),
  /** The rule in a few words: `bash git push --force`, `write_file on docs/**`. */
  description: z.string(),
  /** What it decides; `parser` entries (a command that cannot be resolved) always ask. */
  decision: z.enum(["allow", "ask", "deny"]),
  /** The rules file it was read from; omitted for built-in, session and parser entries. */
  file: z.string().optional(),
  /** Its 1-based position in that file or list; omitted for parser entries. */
  index: z.number().int().positive().optional(),
  /** The rule's justification, or why the parser could not resolve the command. */
  justification: z.string().optional(),
});
/** One approval rule, as a type. */
export type RuleView = z.infer<typeof RuleView>;

/** `approval.requested`: the server waits for `approval.resolve`. */
export const ApprovalRequestedEvent = z.object({
  type: z.literal("approval.requested"),
  ...turnEnvelope,
  approval_id: id,
  call_id: id,
  name: z.string(),
  risk: z.enum(RISKS),
  cwd: z.string(),
  summary: z.string(),
  /** scv 0.2: whether the call runs inside the OS sandbox (`bash`); absent for other tools. */
  sandboxed: z.boolean().optional(),
  /** scv 0.3: the rule that asks; omitted when the approval policy asks. */
  rule: RuleView.optional(),
  /**
   * scv 0.3, `write_file` and `edit_file`: the unified diff the call would make against the file
   * as it is now, head and tail kept to fit the frame; omitted where no diff can be made.
   */
  preview: z.string().optional(),
});

/** `tool.started`: the call runs (after approval when one was needed). */
export const ToolStartedEvent = z.object({
  type: z.literal("tool.started"),
  ...turnEnvelope,
  call_id: id,
  name: z.string(),
  /**
   * scv 0.3: why the call runs without asking although the policy would ask: `"session rule"`
   * (a `remember: "session"` answer) or `"rule"` (an allow rule of the user's rules file).
   * Omitted when no rule stood in for an approval.
   */
  auto_approved: z.enum(["session rule", "rule"]).optional(),
});

/** `tool.completed`: the call's bounded result, also what the model sees. */
export const ToolCompletedEvent = z.object({
  type: z.literal("tool.completed"),
  ...turnEnvelope,
  call_id: id,
  name: z.string(),
  success: z.boolean(),
  output: z.string(),
  truncated: z.boolean(),
});

/**
 * `context.compacted`: older messages were dropped to fit the context window. As the reply to
 * scv 0.2's `session.compact` it carries that request's `request_id` and no `turn_id`.
 */
export const ContextCompactedEvent = z.object({
  type: z.literal("context.compacted"),
  ...turnEnvelope,
  /** Omitted only on the reply to `session.compact`, which belongs to no turn. */
  turn_id: id.optional(),
  before_tokens: z.number().int().nonnegative(),
  after_tokens: z.number().int().nonnegative(),
  removed_messages: z.number().int().nonnegative(),
});

/** Token usage summed over a turn's provider calls. */
export const Usage = z.object({
  /** Omitted: no provider call reported prompt tokens. */
  input_tokens: z.number().int().nonnegative().optional(),
  /** Omitted: no provider call reported completion tokens. */
  output_tokens: z.number().int().nonnegative().optional(),
  /** scv 0.3: of `input_tokens`, those read from the provider's prompt cache; omitted: none reported. */
  cached_input_tokens: z.number().int().nonnegative().optional(),
  /** scv 0.3: of `input_tokens`, those written to the prompt cache (Anthropic); omitted: none reported. */
  cache_creation_input_tokens: z.number().int().nonnegative().optional(),
  /** scv 0.3: of `output_tokens`, those spent on reasoning; omitted: none reported. */
  reasoning_tokens: z.number().int().nonnegative().optional(),
});

/**
 * scv 0.3: the session's cost so far in USD by the `pricing` setting, this turn's included.
 * Omitted while no priced provider call was made in the session.
 */
const sessionCost = { session_cost_usd: z.number().nonnegative().optional() };
/** Token usage, as a type. */
export type Usage = z.infer<typeof Usage>;

/**
 * scv 0.3: the prompts of steers that were still waiting when the turn ended, in the order they
 * were accepted, so the client can give the text back. Omitted when none was waiting.
 */
const droppedSteers = z.array(z.string()).optional();

/** `turn.completed`: the turn ended normally. */
export const TurnCompletedEvent = z.object({
  type: z.literal("turn.completed"),
  ...turnEnvelope,
  steps: z.number().int().nonnegative(),
  /** Omitted when no provider call reported usage. */
  usage: Usage.optional(),
  /**
   * scv 0.3: scv's own count of the tokens the conversation takes after the turn (what the next
   * prompt would take before the new message); omitted when scv has not counted yet.
   */
  context_tokens: z.number().int().nonnegative().optional(),
  /** scv 0.3: this turn's cost in USD by `pricing`; omitted when its model has no price or no usage was reported. */
  cost_usd: z.number().nonnegative().optional(),
  ...sessionCost,
  /** scv 0.3: only when a hook stopped the turn while steers waited (see `droppedSteers`). */
  dropped_steers: droppedSteers,
});

/** `turn.cancelled`: the turn ended by cancellation. */
export const TurnCancelledEvent = z.object({
  type: z.literal("turn.cancelled"),
  ...turnEnvelope,
  dropped_steers: droppedSteers,
  ...sessionCost,
});

/** `turn.failed`: the turn ended with an error. */
export const TurnFailedEvent = z.object({
  type: z.literal("turn.failed"),
  ...turnEnvelope,
  code: z.enum(TURN_FAILURE_CODES),
  message: z.string(),
  dropped_steers: droppedSteers,
  ...sessionCost,
});

/** scv 0.3 `user.steered`: a steer entered the conversation as a user message. */
export const UserSteeredEvent = z.object({
  type: z.literal("user.steered"),
  ...turnEnvelope,
  content: z.string(),
  /** The `request_id` of the `turn.steer` it came from. */
  steer_request_id: requestId,
  /** The names of the images that entered with it (its `attachments`); omitted: none. */
  images: z.array(z.string()).optional(),
});

/**
 * scv 0.3 `plan.updated`: the model replaced its plan (`update_plan`); `steps` is the whole new
 * plan, in order (empty: the plan was cleared).
 */
export const PlanUpdatedEvent = z.object({
  type: z.literal("plan.updated"),
  ...turnEnvelope,
  steps: PlanSteps,
});

/** scv 0.3 `turn.steer.accepted`: the steer waits for the turn's next safe point. */
export const TurnSteerAcceptedEvent = z.object({
  type: z.literal("turn.steer.accepted"),
  request_id: requestId,
  session_id: id,
  turn_id: id,
});

/** scv 0.3 `turn.queued`: the `turn.start` waits behind the active turn. */
export const TurnQueuedEvent = z.object({
  type: z.literal("turn.queued"),
  request_id: requestId,
  session_id: id,
  /** Its place in the queue, from 1 (the next to start). */
  position: z.number().int().positive(),
});

/** scv 0.3 `turn.dequeued`: the reply to `turn.dequeue`, with the prompt taken back. */
export const TurnDequeuedEvent = z.object({
  type: z.literal("turn.dequeued"),
  request_id: requestId,
  session_id: id,
  queued_request_id: requestId,
  prompt: z.string(),
});

/** `session.trimmed`: the canonical history was cut to `max_history_bytes`. */
export const SessionTrimmedEvent = z.object({
  type: z.literal("session.trimmed"),
  request_id: requestId,
  session_id: id,
  seq,
  removed_messages: z.number().int().nonnegative(),
  history_bytes: z.number().int().nonnegative(),
});

/** `session.cleared`: the reply to `session.clear`. */
export const SessionClearedEvent = z.object({
  type: z.literal("session.cleared"),
  request_id: requestId,
  session_id: id,
  seq,
});

/** One recorded session as `session.list` describes it. */
export const SessionSummary = z.object({
  session_id: id,
  /** The canonical workspace the session was recorded for. */
  cwd: z.string(),
  model: z.string(),
  /** ISO 8601 UTC timestamps. */
  created_at: z.string(),
  updated_at: z.string(),
  /** Turns that ended (completed, failed or cancelled). */
  turns: z.number().int().nonnegative(),
  /** The first prompt, whitespace collapsed, cut to 80 characters; "" before any prompt. */
  title: z.string(),
});
/** One recorded session, as a type. */
export type SessionSummary = z.infer<typeof SessionSummary>;

/** scv 0.2 `session.list` (the reply): recorded sessions, newest first. */
export const SessionListEvent = z.object({
  type: z.literal("session.list"),
  request_id: requestId,
  sessions: z.array(SessionSummary),
  /** True when more sessions matched than the limit or the frame limit let through. */
  truncated: z.boolean().optional(),
});

/** scv 0.2 `history.item`: one message of a session's history, for a client to render. */
export const HistoryItemEvent = z.object({
  type: z.literal("history.item"),
  request_id: requestId,
  session_id: id,
  role: z.enum(["user", "assistant", "tool"]),
  /** The message's text, or its head when `truncated`. */
  content: z.string(),
  /** True when `content` is only the head of the message. */
  truncated: z.boolean().optional(),
  /** True on the record standing in for messages compaction removed. */
  compaction: z.boolean().optional(),
  /** Tool items: the tool's name. */
  name: z.string().optional(),
  /** Tool items: the call as its approval summary reads, e.g. `Run shell command: ls`. */
  summary: z.string().optional(),
  /** Tool items: whether the call succeeded. */
  success: z.boolean().optional(),
});

/** scv 0.2 `history.end`: the last event answering `session.history`. */
export const HistoryEndEvent = z.object({
  type: z.literal("history.end"),
  request_id: requestId,
  session_id: id,
  /** How many `history.item` events were sent. */
  items: z.number().int().nonnegative(),
  /** Older messages left out to stay within the transcript limits (the newest are sent). */
  omitted: z.number().int().nonnegative(),
});

/** scv 0.2 `session.configured`: the reply to `session.configure`, the values now in force. */
export const SessionConfiguredEvent = z.object({
  type: z.literal("session.configured"),
  request_id: requestId,
  session_id: id,
  seq,
  model: z.string(),
  approval_policy: z.enum(APPROVAL_POLICIES),
});

/** One MCP server in the `mcp.status` reply: its state and the names its tools are offered by. */
export const McpServerDetail = McpServerState.extend({
  /** `mcp__<server>__<tool>` names, in the server's order; empty unless ready. */
  tool_names: z.array(z.string()),
});

/** scv 0.2 `mcp.status` (the reply): every enabled MCP server, in config order. */
export const McpStatusEvent = z.object({
  type: z.literal("mcp.status"),
  request_id: requestId,
  servers: z.array(McpServerDetail),
  /** True when tool names were left out to fit the frame limit. */
  truncated: z.boolean().optional(),
});

/** One turn a session can rewind to, in `session.checkpoints`. */
export const CheckpointSummary = z.object({
  turn_id: id,
  /** The turn's prompt as a title (a rewind's own checkpoint: "Rewind to before ..."). */
  title: z.string(),
  /** ISO 8601 UTC. */
  created_at: z.string(),
  /** Files the turn changed (created, changed or deleted); 0 for a turn that changed none. */
  files_changed: z.number().int().nonnegative(),
});

/** One turn a session can rewind to, as a type. */
export type CheckpointSummary = z.infer<typeof CheckpointSummary>;

/** scv 0.3 `session.checkpoints` (the reply): the turns to rewind to, newest first. */
export const SessionCheckpointsEvent = z.object({
  type: z.literal("session.checkpoints"),
  request_id: requestId,
  session_id: id,
  turns: z.array(CheckpointSummary),
  /** True when older turns were left out to fit the frame limit. */
  truncated: z.boolean().optional(),
});

/** scv 0.3 `session.rewound`: the reply to `session.rewind`, what it did. */
export const SessionRewoundEvent = z.object({
  type: z.literal("session.rewound"),
  request_id: requestId,
  session_id: id,
  seq,
  turn_id: id,
  /** Workspace-relative paths written back (changed or deleted since); empty without `files`. */
  restored: z.array(z.string()),
  /** Workspace-relative paths removed (created since). */
  removed: z.array(z.string()),
  /** Turns dropped from the conversation; 0 without `conversation`. */
  conversation_turns_removed: z.number().int().nonnegative(),
  /** True when `restored` or `removed` lists only the first paths, to fit the frame limit. */
  truncated: z.boolean().optional(),
  /** scv's own: the totals, which the lists fall short of when `truncated`. */
  restored_count: z.number().int().nonnegative().optional(),
  removed_count: z.number().int().nonnegative().optional(),
  /** True on the answer to a `dry_run`: nothing was changed. */
  dry_run: z.boolean().optional(),
});

/** scv 0.3 `rules.list` (the reply): the rules in force, in the order they are consulted. */
export const RulesListEvent = z.object({
  type: z.literal("rules.list"),
  request_id: requestId,
  session_id: id,
  rules: z.array(RuleView),
  /** How many rules were left out (the last ones) to fit the frame limit; omitted: none. */
  omitted: z.number().int().positive().optional(),
});

/**
 * scv 0.3 `models.list`: the provider's model ids, sorted, at most 1000. When the provider
 * cannot be asked, `models` is empty and `error` says why (never with a secret in it).
 */
export const ModelsListEvent = z.object({
  type: z.literal("models.list"),
  request_id: requestId,
  session_id: id,
  models: z.array(z.string()),
  /** Why there is no list; omitted when the provider answered. */
  error: z.string().optional(),
});

/**
 * scv 0.3 `files.list`: the workspace's paths as the tools see them (`.git` skipped,
 * `.gitignore` honoured), relative and `/`-separated, directories ending in `/`.
 */
export const FilesListEvent = z.object({
  type: z.literal("files.list"),
  request_id: requestId,
  session_id: id,
  paths: z.array(z.string()),
  /** More paths existed than the limit, or than fit in a frame. */
  truncated: z.boolean(),
});

/**
 * Why `files.read` did not read a file: it does not exist, it lies outside the workspace, it is
 * no regular file, it is not UTF-8 text, it is hidden (`.git`, `.gitignore`d, or a path hidden
 * from commands by `sandbox_deny_read`), a rule denies reading it, or the read failed.
 */
export const FILE_REFUSALS = [
  "missing",
  "outside",
  "not_file",
  "binary",
  "hidden",
  "denied",
  "unreadable",
] as const;

/**
 * scv 0.3 `files.read` (the reply): the file's head as text, or why it was not read. A file the
 * server will not read is an answer with `refused`, not a request error.
 */
export const FilesReadEvent = z.object({
  type: z.literal("files.read"),
  request_id: requestId,
  session_id: id,
  /** The path as asked. */
  path: z.string(),
  /** The file's first bytes (at most `max_bytes`, whole characters); omitted when refused. */
  text: z.string().optional(),
  /** The file's whole size in bytes; omitted when refused. */
  size: z.number().int().nonnegative().optional(),
  /** True when `text` is only the file's head; omitted when refused. */
  truncated: z.boolean().optional(),
  /** Why the file was not read; omitted when it was. */
  refused: z.object({ reason: z.enum(FILE_REFUSALS), message: z.string() }).optional(),
}).refine(
  (e) =>
    e.refused === undefined
      ? e.text !== undefined && e.size !== undefined && e.truncated !== undefined
      : e.text === undefined,
  "must carry either text, size and truncated, or refused",
);

/** `error`: a request or connection error. */
export const ErrorEvent = z.object({
  type: z.literal("error"),
  /** Omitted when the offending frame had no readable `request_id`. */
  request_id: z.string().optional(),
  code: z.enum(ERROR_CODES),
  message: z.string(),
  fatal: z.boolean(),
});

/**
 * Every server event's schema, keyed by its type: one per name in `wire.ts`'s
 * `SERVER_EVENT_KINDS` (the compiler checks both ways).
 */
export const SERVER_EVENTS = {
  "initialized": InitializedEvent,
  "session.started": SessionStartedEvent,
  "turn.started": TurnStartedEvent,
  "assistant.delta": AssistantDeltaEvent,
  "assistant.reasoning.delta": AssistantReasoningDeltaEvent,
  "turn.notice": TurnNoticeEvent,
  "assistant.completed": AssistantCompletedEvent,
  "tool.proposed": ToolProposedEvent,
  "approval.requested": ApprovalRequestedEvent,
  "tool.started": ToolStartedEvent,
  "tool.completed": ToolCompletedEvent,
  "context.compacted": ContextCompactedEvent,
  "turn.completed": TurnCompletedEvent,
  "turn.cancelled": TurnCancelledEvent,
  "turn.failed": TurnFailedEvent,
  "session.trimmed": SessionTrimmedEvent,
  "session.cleared": SessionClearedEvent,
  "session.list": SessionListEvent,
  "history.item": HistoryItemEvent,
  "history.end": HistoryEndEvent,
  "session.configured": SessionConfiguredEvent,
  "mcp.status": McpStatusEvent,
  "session.checkpoints": SessionCheckpointsEvent,
  "session.rewound": SessionRewoundEvent,
  "user.steered": UserSteeredEvent,
  "turn.steer.accepted": TurnSteerAcceptedEvent,
  "turn.queued": TurnQueuedEvent,
  "turn.dequeued": TurnDequeuedEvent,
  "plan.updated": PlanUpdatedEvent,
  "rules.list": RulesListEvent,
  "models.list": ModelsListEvent,
  "files.list": FilesListEvent,
  "files.read": FilesReadEvent,
  "error": ErrorEvent,
} as const satisfies { readonly [T in ServerEventType]: z.ZodType<{ type: T }> };

const _sameEvents: Same<ServerEventType, keyof typeof SERVER_EVENTS> = true;
void _sameEvents;

/** Any server event: the union of the table's schemas. */
export const ServerEvent = z.discriminatedUnion("type", schemasOf(SERVER_EVENTS));
/** Any server event, as a type. */
export type ServerEvent = z.infer<typeof ServerEvent>;
/** The server event of one type. */
export type ServerEventOf<T extends ServerEventType> = Extract<ServerEvent, { type: T }>;

export { describeIssues } from "./issues.ts";
