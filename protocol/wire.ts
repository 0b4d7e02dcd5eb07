/**
 * The Peon wire's one table of types: every client message type and every server event type,
 * written here once. Everything else is derived from it or checked against it by the compiler:
 * the zod tables and unions in `schema.ts`, `CLIENT_MESSAGE_TYPES` and `isClientMessageType`,
 * `TURN_EVENT_TYPES`, the Peon route table (`server/peon/routes.ts`, one handler per message)
 * and ACP's mapping of turn events (`server/acp/updates.ts`, one entry per turn event).
 *
 * Adding a message type: its name below, its zod schema in `schema.ts`'s `CLIENT_MESSAGES`,
 * its handler in `server/peon/routes.ts`. Adding an event type: its name and kind below, its
 * schema in `SERVER_EVENTS`; a `turn` event also needs its entry in ACP's `TURN_UPDATES`. The
 * compiler names whatever is missing. Then its frames in docs/protocol.md (checked by
 * tests/protocol/doc_frames_test.ts).
 *
 * Kept free of zod, so the server can answer `initialize` before the schemas load.
 *
 * @module
 */

/** Every client message type, in the order of the specification. */
export const CLIENT_MESSAGE_TYPES = [
  "initialize",
  "session.start",
  "turn.start",
  "turn.cancel",
  "approval.resolve",
  "session.clear",
  // scv 0.2 (docs/sessions.md): recorded sessions.
  "session.list",
  "session.history",
  "session.compact",
  "session.configure",
  // scv 0.2 (docs/mcp.md): MCP servers' state and tools.
  "mcp.status",
  // scv 0.3 (docs/rules.md): the approval rules in force.
  "rules.list",
  // scv 0.3 (docs/protocol.md): what the TUI asked the provider and the disk for itself before.
  "models.list",
  "files.list",
  "files.read",
  // scv 0.3 (docs/checkpoints.md): checkpoints and rewind.
  "session.checkpoints",
  "session.rewind",
  // scv 0.3 (docs/steering.md): steering the running turn, and the queue behind it.
  "turn.steer",
  "turn.dequeue",
] as const;

/** A client message type name. */
export type ClientMessageType = typeof CLIENT_MESSAGE_TYPES[number];

/**
 * How a server event relates to the session's `seq`: a `reply` answers one request and carries
 * no `seq`; a `session` event carries the session's next `seq` outside any turn; a `turn` event
 * is emitted by a running turn (the agent core) and carries `seq` and the turn's envelope.
 */
export type EventKind = "reply" | "session" | "turn";

/** Every server event type and its kind, in the order of the specification. */
export const SERVER_EVENT_KINDS = {
  "initialized": "reply",
  "session.started": "reply",
  "turn.started": "turn",
  "assistant.delta": "turn",
  "assistant.reasoning.delta": "turn",
  "turn.notice": "turn",
  "assistant.completed": "turn",
  "tool.proposed": "turn",
  "approval.requested": "turn",
  "tool.started": "turn",
  "tool.completed": "turn",
  // Also the reply to `session.compact`, without a `turn_id`.
  "context.compacted": "turn",
  "turn.completed": "turn",
  "turn.cancelled": "turn",
  "turn.failed": "turn",
  // A turn's event without `turn_id` on the wire.
  "session.trimmed": "turn",
  "session.cleared": "session",
  // scv 0.2 (docs/sessions.md).
  "session.list": "reply",
  "history.item": "reply",
  "history.end": "reply",
  "session.configured": "session",
  // scv 0.2 (docs/mcp.md).
  "mcp.status": "reply",
  // scv 0.3 (docs/rules.md).
  "rules.list": "reply",
  // scv 0.3 (docs/protocol.md).
  "models.list": "reply",
  "files.list": "reply",
  "files.read": "reply",
  // scv 0.3 (docs/checkpoints.md).
  "session.checkpoints": "reply",
  "session.rewound": "session",
  // scv 0.3 (docs/steering.md).
  "user.steered": "turn",
  "turn.steer.accepted": "reply",
  "turn.queued": "reply",
  "turn.dequeued": "reply",
  // scv 0.3 (docs/plan_mode.md): the plan the model keeps with `update_plan`.
  "plan.updated": "turn",
  "error": "reply",
} as const satisfies Record<string, EventKind>;

/** A server event type name. */
export type ServerEventType = keyof typeof SERVER_EVENT_KINDS;

/** Every server event type, in the order of the specification. */
export const SERVER_EVENT_TYPES = Object.keys(SERVER_EVENT_KINDS) as ServerEventType[];

/** The server event types of one kind. */
export type EventTypeOfKind<K extends EventKind> = {
  [T in ServerEventType]: typeof SERVER_EVENT_KINDS[T] extends K ? T : never;
}[ServerEventType];

/** A turn event type name: what a running turn emits. */
export type TurnEventType = EventTypeOfKind<"turn">;

/** Every turn event type, in the order of the specification. */
export const TURN_EVENT_TYPES = SERVER_EVENT_TYPES.filter((t) =>
  SERVER_EVENT_KINDS[t] === "turn"
) as TurnEventType[];
