/**
 * Request routing: one handler per client message type, in one table. A new request type is its
 * schema in `protocol/`, and one entry here.
 *
 * @module
 */
import type { ClientMessageType } from "../../protocol/constants.ts";
import type { ClientMessage, ClientMessageOf } from "../../protocol/schema.ts";
import type { ConnectionContext } from "./context.ts";
import { approvalResolve } from "./handlers/approval_resolve.ts";
import { filesList } from "./handlers/files_list.ts";
import { filesRead } from "./handlers/files_read.ts";
import { initialize } from "./handlers/initialize.ts";
import { mcpStatus } from "./handlers/mcp_status.ts";
import { modelsList } from "./handlers/models_list.ts";
import { sessionClear } from "./handlers/session_clear.ts";
import { sessionCompact } from "./handlers/session_compact.ts";
import { sessionConfigure } from "./handlers/session_configure.ts";
import { sessionHistory } from "./handlers/session_history.ts";
import { sessionList } from "./handlers/session_list.ts";
import { sessionCheckpoints } from "./handlers/session_checkpoints.ts";
import { sessionRewind } from "./handlers/session_rewind.ts";
import { sessionStart } from "./handlers/session_start.ts";
import { rulesList } from "./handlers/rules_list.ts";
import { turnCancel } from "./handlers/turn_cancel.ts";
import { turnDequeue } from "./handlers/turn_dequeue.ts";
import { turnStart } from "./handlers/turn_start.ts";
import { turnSteer } from "./handlers/turn_steer.ts";

/** Handles one parsed request of type `T`. */
export type Handler<T extends ClientMessageType> = (
  msg: ClientMessageOf<T>,
  cx: ConnectionContext,
) => Promise<void>;

/** Every client message type's handler; the compiler insists on one for each type. */
export const ROUTES: { readonly [T in ClientMessageType]: Handler<T> } = {
  "initialize": initialize,
  "session.start": sessionStart,
  "turn.start": turnStart,
  "turn.cancel": turnCancel,
  "approval.resolve": approvalResolve,
  "session.clear": sessionClear,
  "session.list": sessionList,
  "session.history": sessionHistory,
  "session.compact": sessionCompact,
  "session.configure": sessionConfigure,
  "mcp.status": mcpStatus,
  "models.list": modelsList,
  "files.list": filesList,
  "files.read": filesRead,
  "session.checkpoints": sessionCheckpoints,
  "session.rewind": sessionRewind,
  "turn.steer": turnSteer,
  "turn.dequeue": turnDequeue,
  "rules.list": rulesList,
};

/** Runs the handler of a message's type. */
export function route(msg: ClientMessage, cx: ConnectionContext): Promise<void> {
  // The table's mapped type pairs each type with its handler; TypeScript cannot see that
  // `ROUTES[msg.type]` takes exactly `msg`, so one cast stands for that correlation.
  const handler = ROUTES[msg.type] as (msg: ClientMessage, cx: ConnectionContext) => Promise<void>;
  return handler(msg, cx);
}
