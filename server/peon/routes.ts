/**
 * Request routing: one handler per client message type, in one table. A new request type is its
 * schema in `protocol/`, and one entry here.
 *
 * @module
 */
import type { ClientMessageType } from "../../protocol/constants.ts";
import type { ClientMessage, ClientMessageOf } from "../../protocol/schema.ts";
import type { ConnectionContext } from "./context.ts";
import { initialize } from "./handlers/initialize.ts";

/** Handles one parsed request of type `T`. */
export type Handler<T extends ClientMessageType> = (
  msg: ClientMessageOf<T>,
  cx: ConnectionContext,
) => Promise<void>;

/** Loads the handler of type `T`. */
export type HandlerLoader<T extends ClientMessageType> = () => Promise<Handler<T>>;

/**
 * Every client message type's handler; the compiler insists on one for each type. Each but
 * `initialize` is loaded when its first request comes: their modules (sessions, checkpoints,
 * turns) are most of the server, and evaluating them at start-up delayed `initialized` by
 * ~30 ms. Frames are handled one after another, so a load never reorders requests.
 */
export const ROUTES: { readonly [T in ClientMessageType]: HandlerLoader<T> } = {
  "initialize": () => Promise.resolve(initialize),
  "session.start": () => import("./handlers/session_start.ts").then((m) => m.sessionStart),
  "turn.start": () => import("./handlers/turn_start.ts").then((m) => m.turnStart),
  "turn.cancel": () => import("./handlers/turn_cancel.ts").then((m) => m.turnCancel),
  "approval.resolve": () => import("./handlers/approval_resolve.ts").then((m) => m.approvalResolve),
  "session.clear": () => import("./handlers/session_clear.ts").then((m) => m.sessionClear),
  "session.list": () => import("./handlers/session_list.ts").then((m) => m.sessionList),
  "session.history": () => import("./handlers/session_history.ts").then((m) => m.sessionHistory),
  "session.compact": () => import("./handlers/session_compact.ts").then((m) => m.sessionCompact),
  "session.configure": () =>
    import("./handlers/session_configure.ts").then((m) => m.sessionConfigure),
  "mcp.status": () => import("./handlers/mcp_status.ts").then((m) => m.mcpStatus),
  "models.list": () => import("./handlers/models_list.ts").then((m) => m.modelsList),
  "files.list": () => import("./handlers/files_list.ts").then((m) => m.filesList),
  "files.read": () => import("./handlers/files_read.ts").then((m) => m.filesRead),
  "session.checkpoints": () =>
    import("./handlers/session_checkpoints.ts").then((m) => m.sessionCheckpoints),
  "session.rewind": () => import("./handlers/session_rewind.ts").then((m) => m.sessionRewind),
  "turn.steer": () => import("./handlers/turn_steer.ts").then((m) => m.turnSteer),
  "turn.dequeue": () => import("./handlers/turn_dequeue.ts").then((m) => m.turnDequeue),
  "rules.list": () => import("./handlers/rules_list.ts").then((m) => m.rulesList),
};

/** Runs the handler of a message's type. */
export async function route(msg: ClientMessage, cx: ConnectionContext): Promise<void> {
  // The table's mapped type pairs each type with its handler; TypeScript cannot see that
  // `ROUTES[msg.type]` takes exactly `msg`, so one cast stands for that correlation.
  const load = ROUTES[msg.type] as () => Promise<
    (msg: ClientMessage, cx: ConnectionContext) => Promise<void>
  >;
  return await (await load())(msg, cx);
}
