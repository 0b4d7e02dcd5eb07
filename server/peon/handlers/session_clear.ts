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

/**
 * Clears the session and answers `session.cleared`; `turn_active` while a turn runs or queued
 * prompts wait.
 */
export async function sessionClear(
  msg: ClientMessageOf<"session.clear">,
  cx: ConnectionContext,
): Promise<void> {
  const session = await idleSessionOf(msg, cx, "clear");
  if (!session) return;
  const waiting = session.inbox.queued.length;
  if (waiting > 0) {
    // The queued prompts were written for this conversation: clearing under them would change
    // what they mean (scv 0.3).
    return await cx.error(
      msg.request_id,
      "turn_active",
      `cannot clear while ${waiting} queued prompt${waiting === 1 ? "" : "s"} wait${
        waiting === 1 ? "s" : ""
      }; take them back with turn.dequeue first`,
    );
  }
  await endSessionHooks(session, cx.config, "clear");
  session.clear();
  startSessionHooks(session, cx.config, "clear");
  await cx.sendSession<"session.cleared">(
    { type: "session.cleared", request_id: msg.request_id, session_id: session.id },
    session,
  );
  await session.recorder?.clear(session.seq.last);
}
