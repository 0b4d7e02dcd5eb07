/**
 * The server events that belong to a turn, as types derived from the zod table in `schema.ts`:
 * what a turn may emit, and the body of each (the event without its envelope). The agent core
 * builds its events from these, so a misspelt field or a wrong type is a compile error.
 *
 * Kept free of runtime zod. The turn event types are the `turn` kind of `wire.ts`'s table.
 *
 * @module
 */
import type { TurnEventType } from "./wire.ts";
import type { ServerEventOf, ServerEventType } from "./types.ts";

export { TURN_EVENT_TYPES, type TurnEventType } from "./wire.ts";

/** The event types that end a turn; exactly one of them is a turn's last event. */
export type TerminalEventType = "turn.completed" | "turn.cancelled" | "turn.failed";

/** The turn event types that do not end it. */
export type ProgressEventType = Exclude<TurnEventType, TerminalEventType>;

/** The server event of one type, exactly as on the wire. */
export type EventOf<T extends ServerEventType> = ServerEventOf<T>;

/** Fields every turn event carries that the turn, not the agent loop, fills in. */
export type Envelope = "type" | "request_id" | "session_id" | "turn_id" | "seq";

/**
 * The body of an event: everything but its envelope. `session.trimmed` carries no `turn_id`
 * on the wire; its body is the same either way.
 */
export type EventBody<T extends ServerEventType> = Omit<EventOf<T>, Envelope>;

/** Any turn event, envelope included. */
export type TurnEvent = EventOf<TurnEventType>;

/** A terminal turn event, envelope included. */
export type TerminalEvent = EventOf<TerminalEventType>;

/** The end of a turn as the agent loop sees it: a terminal event without its envelope. */
export type TurnEnd =
  | ({ type: "turn.completed" } & EventBody<"turn.completed">)
  | ({ type: "turn.cancelled" } & EventBody<"turn.cancelled">)
  | ({ type: "turn.failed" } & EventBody<"turn.failed">);

/**
 * Whether a type name ends a turn.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isTerminalEventType } from "./turn_events.ts";
 * assert(isTerminalEventType("turn.failed"));
 * assert(!isTerminalEventType("tool.started"));
 * ```
 */
export function isTerminalEventType(type: string): type is TerminalEventType {
  return type === "turn.completed" || type === "turn.cancelled" || type === "turn.failed";
}
