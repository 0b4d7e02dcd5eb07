/**
 * Request parsing and validation: one decoded client frame in, either a typed client message or
 * the error reply it earns. No I/O; the zod schemas load on first use, after the handshake.
 *
 * @module
 */
import type { ClientMessage } from "../../protocol/schema.ts";
import {
  type ErrorCode,
  isClientMessageType,
  MAX_REQUEST_ID_BYTES,
} from "../../protocol/constants.ts";
import { checkInitialize } from "../../protocol/initialize_check.ts";
import type { DecodedFrame } from "../../protocol/ndjson.ts";
import { errorText, quoteInput } from "../error_text.ts";
import { utf8Length } from "../utf8.ts";

/** A frame that did not make a valid request, and the `error` it is answered with. */
export interface Rejection {
  kind: "rejected";
  /** Omitted when the frame had no usable `request_id` (or one too long to echo). */
  requestId?: string;
  code: ErrorCode;
  message: string;
}

/** The result of {@link parseFrame}. */
export type Parsed = { kind: "message"; message: ClientMessage } | Rejection;

// The zod schemas load after the handshake: zod alone costs ~35 ms to import.
let schemas: Promise<typeof import("../../protocol/schema.ts")> | undefined;

/** Starts loading the zod schemas, so the first request after the handshake need not wait. */
export function loadSchemas(): Promise<typeof import("../../protocol/schema.ts")> {
  return schemas ??= import("../../protocol/schema.ts");
}

/** The UTF-8 bytes a string takes inside a JSON frame, escapes included, quotes excluded. */
function encodedBytes(text: string): number {
  return utf8Length(JSON.stringify(text)) - 2;
}

function reject(requestId: string | undefined, code: ErrorCode, message: string): Rejection {
  return { kind: "rejected", ...(requestId !== undefined ? { requestId } : {}), code, message };
}

/** The frame as a JSON object, or why it is not one. */
function readObject(
  frame: DecodedFrame,
): { kind: "object"; value: Record<string, unknown> } | Rejection {
  if (frame.kind === "oversize") {
    return reject(
      undefined,
      "invalid_request",
      `frame of ${frame.bytes} bytes exceeds max_client_frame_bytes (${frame.limit})`,
    );
  }
  if (frame.kind === "invalid_utf8") {
    return reject(undefined, "invalid_json", "frame is not valid UTF-8");
  }
  let json: unknown;
  try {
    json = JSON.parse(frame.text);
  } catch (e) {
    return reject(undefined, "invalid_json", `frame is not valid JSON: ${errorText(e)}`);
  }
  if (typeof json !== "object" || json === null || Array.isArray(json)) {
    return reject(undefined, "invalid_request", "a message must be a JSON object");
  }
  return { kind: "object", value: json as Record<string, unknown> };
}

/**
 * Parses and validates one decoded frame. Before the connection is initialized only
 * `initialize` is accepted; it is checked without zod so the handshake never waits for it.
 * From a `trusted` client (one in this process, built on the types: `scv exec`) a request of a
 * known type is taken as it is; it is still a JSON object with a known `type`, sent in order.
 */
export async function parseFrame(
  frame: DecodedFrame,
  initialized: boolean,
  trusted = false,
): Promise<Parsed> {
  const read = readObject(frame);
  if (read.kind === "rejected") return read;
  const obj = read.value;
  if (typeof obj.request_id === "string" && encodedBytes(obj.request_id) > MAX_REQUEST_ID_BYTES) {
    // Echoing it would make replies and turn events as large as the id: refuse without it.
    return reject(
      undefined,
      "invalid_request",
      `request_id takes ${encodedBytes(obj.request_id)} bytes in a frame, more than the ` +
        `${MAX_REQUEST_ID_BYTES} bytes scv accepts (request_id ${quoteInput(obj.request_id)})`,
    );
  }
  const requestId = typeof obj.request_id === "string" && obj.request_id !== ""
    ? obj.request_id
    : undefined;
  const type = obj.type;
  if (!isClientMessageType(type)) {
    return reject(
      requestId,
      "invalid_request",
      typeof type === "string"
        ? `unknown message type ${quoteInput(type)}`
        : `"type" must be a string naming a message type`,
    );
  }
  if (!initialized && type !== "initialize") {
    return reject(requestId, "not_initialized", `send "initialize" before "${type}"`);
  }
  if (type === "initialize") {
    const checked = checkInitialize(obj);
    if (!checked.ok) {
      return reject(requestId, "invalid_request", `invalid "initialize": ${checked.error}`);
    }
    return { kind: "message", message: checked.message };
  }
  if (trusted) return { kind: "message", message: obj as ClientMessage };
  const { CLIENT_MESSAGES, describeIssues } = await loadSchemas();
  const parsed = CLIENT_MESSAGES[type].safeParse(obj);
  if (!parsed.success) {
    return reject(
      requestId,
      "invalid_request",
      `invalid "${type}": ${describeIssues(parsed.error)}`,
    );
  }
  return { kind: "message", message: parsed.data };
}
