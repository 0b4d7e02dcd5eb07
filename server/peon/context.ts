/**
 * What a request handler gets from its connection: the configuration, the sessions, the
 * dependencies turns run with, and the ways to reply. Handlers live in `handlers/` and are
 * routed by `routes.ts`; they never see the read loop.
 *
 * @module
 */
import type { ErrorCode } from "../../protocol/constants.ts";
import type { EventOf } from "../../protocol/turn_events.ts";
import type { ServerEventType } from "../../protocol/schema.ts";
import type { Runtime } from "../core/runtime.ts";
import type { Config } from "../config.ts";
import type { SandboxReport } from "../sandbox/mod.ts";
import type { Session } from "../core/session.ts";
import type { SessionStore } from "../sessions/store.ts";
import type { ToolRegistry } from "../tools/registry.ts";
import type { TurnEndObserver } from "../core/turn.ts";
import type { FrameWriter } from "./writer.ts";
import type { McpHost } from "../mcp/host.ts";
import type { CheckpointsState } from "../checkpoints/open.ts";

/** Exit statuses of a connection. */
export const EXIT = { ok: 0, outputFailed: 1, versionMismatch: 2 } as const;

/** Sessions one connection may open; the protocol has no way to close one. */
export const MAX_SESSIONS = 64;

/** Thrown by a handler to end the connection at once (after a fatal error reply). */
export class FatalClose extends Error {
  /** Builds the signal; the exit status was already set with `stop`. */
  constructor() {
    super("the connection is closing");
    this.name = "FatalClose";
  }
}

/** A session event without the `seq` the writer assigns when it is queued. */
export type Unsequenced<T extends ServerEventType> = Omit<EventOf<T>, "seq">;

/** The connection as its request handlers see it. */
export interface ConnectionContext {
  /** The server's configuration. */
  readonly config: Config;
  /** Diagnostics (stderr by default). Never give it secrets. */
  readonly log: (line: string) => void;
  /** Tools, provider, context manager and prompt builder, loaded on first use. */
  readonly deps: () => Promise<Runtime>;
  /** The single output. Turn events go through it directly (see `handlers/turn_start.ts`). */
  readonly writer: FrameWriter;
  /** Open sessions by id. */
  readonly sessions: Map<string, Session>;
  /** Called at the end of every turn, before its terminal event is sent. */
  readonly onTurnEnd: TurnEndObserver | undefined;
  /** The configured MCP servers, when some are enabled. */
  readonly mcp: McpHost | undefined;
  /** Where bash runs in a workspace (`session.started.sandbox`); absent: not reported. */
  readonly sandbox: (() => Promise<(workspace: string) => SandboxReport>) | undefined;
  /** Whether `initialize` succeeded. */
  initialized: boolean;
  /** The client's frames are not checked against the zod tables (see `ConnectionOptions`). */
  readonly trustedClient: boolean;
  /** The optional turn events the client asked for in `initialize` (scv 0.2). */
  capabilities: { reasoning?: boolean | undefined; notices?: boolean | undefined };
  /** scv 0.3: whether sessions keep checkpoints, and where. */
  readonly checkpoints: () => Promise<CheckpointsState>;
  /** Where sessions are recorded and resumed from; undefined: not recorded. */
  readonly store: SessionStore | undefined;
  /** The tools, once a turn loaded them (for the summaries of recorded tool calls). */
  tools: ToolRegistry | undefined;
  /** Sends a connection-level event; blocked output for 3 s stops the connection. */
  send<T extends ServerEventType>(event: EventOf<T>): Promise<void>;
  /** Sends a session event, taking the session's next `seq` when it is queued. */
  sendSession<T extends ServerEventType>(event: Unsequenced<T>, session: Session): Promise<void>;
  /** Sends an `error`, shortened until it fits a frame; never ends the connection itself. */
  error(
    requestId: string | undefined,
    code: ErrorCode,
    message: string,
    fatal?: boolean,
  ): Promise<void>;
  /** The session a request names, or undefined after answering `session_not_found`. */
  sessionOf(msg: { request_id: string; session_id: string }): Promise<Session | undefined>;
  /** Stops reading input; cleanup follows with this exit status. */
  stop(exit: number): void;
  /** Keeps a background task (a turn) that cleanup must wait for. */
  track(task: Promise<void>): void;
}
