/**
 * The one place where server text is made safe for the terminal.
 *
 * @module
 */
import type { ServerEvent } from "../../protocol/mod.ts";
import { sanitize } from "../text.ts";

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
 * A copy of the event with every string (assistant text, tool names, arguments and output,
 * summaries, paths, the model, error messages) passed through {@link sanitize}, except the
 * identifiers. The renderer sanitizes again where it draws, as a second line of defence.
 */
export function cleanEvent(event: ServerEvent): ServerEvent {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(event)) out[k] = ID_FIELDS.has(k) ? v : cleanValue(v);
  return out as ServerEvent;
}
