/**
 * `session.clear`: drops an idle session's history, compaction record and usage totals; `seq`
 * goes on.
 *
 * @module
 */
import type { ClientMessageOf } from "../../../protocol/schema.ts";
import type { ConnectionContext } from "../context.ts";
import { idleSessionOf } from "../idle_session.ts";
import { endSessionHooks, startSessionHooks } from "../../core/hook_points.ts";

/** Clears the session and answers `session.cleared`; `turn_active` while a turn runs. */
export async function sessionClear(
  msg: ClientMessageOf<"session.clear">,
  cx: ConnectionContext,
): Promise<void> {
  const session = await idleSessionOf(msg, cx, "clear");
  if (!session) return;
  await endSessionHooks(session, cx.config, "clear");
  session.clear();
  startSessionHooks(session, cx.config, "clear");
  await cx.sendSession<"session.cleared">(
    { type: "session.cleared", request_id: msg.request_id, session_id: session.id },
    session,
  );
  await session.recorder?.clear(session.seq.last);
}
