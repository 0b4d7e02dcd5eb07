/**
 * The wire's TypeScript types for library users, under scv's names: the types `schema.ts`
 * infers from its zod schemas (the single source of truth). Types only: importing this file
 * loads no zod.
 *
 * @module
 */
import type * as schema from "./schema.ts";
import type { ClientMessageType } from "./constants.ts";
import type { ServerEventType } from "./wire.ts";

/** Any client message. */
export type ClientMessage = schema.ClientMessage;

/** The client message of one type. */
export type ClientMessageOf<T extends ClientMessageType> = Extract<ClientMessage, { type: T }>;

/** Any server event. */
export type ServerEvent = schema.ServerEvent;

export type { ServerEventType } from "./wire.ts";

/** The server event of one type. */
export type ServerEventOf<T extends ServerEventType> = Extract<ServerEvent, { type: T }>;

/** Token usage summed over a turn's provider calls. */
export type Usage = schema.Usage;

/** One recorded session, as `session.list` reports it. */
export type SessionSummary = schema.SessionSummary;

/** scv 0.3: one turn a session can rewind to, as `session.checkpoints` reports it. */
export type CheckpointSummary = schema.CheckpointSummary;
