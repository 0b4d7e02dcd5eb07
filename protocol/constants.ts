/**
 * The Peon protocol's plain constants: version, error and failure codes, risks, limits (the type
 * names are `wire.ts`'s table). Kept free of zod so the server can answer `initialize` before
 * the schemas load; the zod schemas in `schema.ts` re-export all of this and are checked
 * against it.
 *
 * @module
 */
import { CLIENT_MESSAGE_TYPES, type ClientMessageType } from "./wire.ts";

/** scv's own version: `scv --version`, the server and client names in the handshake. */
export const SCV_VERSION = "0.3.0";

/** The protocol version this build speaks. */
export const PROTOCOL_VERSION = 1;

/**
 * The longest `request_id` the server accepts, in UTF-8 bytes as encoded in a JSON frame
 * (escapes count). The protocol sets no bound, but every reply and every event of a turn
 * echoes the id, so an unbounded one could push any of them past `max_server_frame_bytes`; a
 * longer id is refused with an `invalid_request` that cannot carry it.
 */
export const MAX_REQUEST_ID_BYTES = 256;

/** Request/server error codes carried by `error` events. */
export const ERROR_CODES = [
  "invalid_json",
  "not_initialized",
  "version_mismatch",
  "invalid_request",
  "session_not_found",
  "turn_active",
  "turn_not_found",
  "approval_not_found",
  "internal_error",
] as const;
/** One request/server error code. */
export type ErrorCode = typeof ERROR_CODES[number];

/** Codes carried by `turn.failed`. */
export const TURN_FAILURE_CODES = [
  "provider_error",
  "context_limit",
  "step_limit",
  "history_limit",
  "response_limit",
  "tool_limit",
  "internal_error",
] as const;
/** One `turn.failed` code. */
export type TurnFailureCode = typeof TURN_FAILURE_CODES[number];

/**
 * Approval policies: `always` asks for every call, `on-risk` for every call whose risk is not
 * `read`, `never` for none, `auto` (scv 0.2) lets sandboxed and in-workspace calls run, `plan`
 * (scv 0.3, plan mode) runs only read-only tools and refuses every other call without asking.
 */
export const APPROVAL_POLICIES = ["always", "on-risk", "never", "auto", "plan"] as const;
/** One approval policy. */
export type ApprovalPolicyName = typeof APPROVAL_POLICIES[number];

/** `session.start`'s `resume` value that names the newest session recorded for the cwd. */
export const RESUME_LAST = "last";

/** The most steers that may wait in one turn (`turn.steer`; scv 0.3). */
export const MAX_STEERS_PER_TURN = 8;

/** The most prompts that may wait in one session's queue (`turn.start` with `queue`; scv 0.3). */
export const MAX_QUEUED_PER_SESSION = 16;

/** The most sessions one `session.list` may ask for. */
export const MAX_SESSION_LIST_LIMIT = 1000;
/** `session.list`'s `limit` when the request has none. */
export const DEFAULT_SESSION_LIST_LIMIT = 50;

/** Risk classes a tool call is announced with in `approval.requested`. */
export const RISKS = ["read", "write", "process", "network"] as const;
/** One risk class. */
export type Risk = typeof RISKS[number];

// The type names are the wire's one table (wire.ts); re-exported here for existing importers.
export { CLIENT_MESSAGE_TYPES, type ClientMessageType } from "./wire.ts";

/**
 * Whether a type name is a known client message type.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isClientMessageType } from "./constants.ts";
 * assert(isClientMessageType("turn.start"));
 * assert(!isClientMessageType("turn.stop"));
 * ```
 */
export function isClientMessageType(type: unknown): type is ClientMessageType {
  return typeof type === "string" && (CLIENT_MESSAGE_TYPES as readonly string[]).includes(type);
}

/** scv 0.3: the media types an image attachment may have (PNG, JPEG, GIF, WebP). */
export const IMAGE_MEDIA_TYPES = ["image/png", "image/jpeg", "image/gif", "image/webp"] as const;
/** One of {@link IMAGE_MEDIA_TYPES}. */
export type ImageMediaType = typeof IMAGE_MEDIA_TYPES[number];

/** scv 0.3: the states of a plan's step (`update_plan`, `plan.updated`). */
export const PLAN_STATUSES = ["pending", "in_progress", "done"] as const;
/** One of {@link PLAN_STATUSES}. */
export type PlanStatus = typeof PLAN_STATUSES[number];

/** scv 0.3: the most steps one plan may have. */
export const MAX_PLAN_STEPS = 50;

/** scv 0.3: the most characters one plan step's text may have (one line, no line breaks). */
export const MAX_PLAN_STEP_CHARS = 500;

/** scv 0.3: the most attachments one `turn.start` (or `turn.steer`) may carry. */
export const MAX_ATTACHMENTS = 8;

/** scv 0.3: the longest `path` a `files.read` may name, in characters (Linux's `PATH_MAX`). */
export const MAX_FILES_READ_PATH_CHARS = 4096;

/** The most bytes of a file one `files.read` may ask for. */
export const MAX_FILES_READ_BYTES = 1024 * 1024;
/** `max_bytes` of a `files.read` that names none. */
export const DEFAULT_FILES_READ_BYTES = 64 * 1024;
