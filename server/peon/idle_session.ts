/**
 * The guard the requests that act on an idle session share (`session.clear`, `session.compact`,
 * `session.configure`, `session.history`): the session must exist and have no turn running.
 *
 * @module
 */
import type { Session } from "../core/session.ts";
import type { ConnectionContext } from "./context.ts";

/**
 * The idle session a request names, or undefined after answering: `session_not_found` for an
 * unknown id, `turn_active` (`cannot <action> while turn "<id>" is running`) while a turn runs.
 */
export async function idleSessionOf(
  msg: { request_id: string; session_id: string },
  cx: ConnectionContext,
  action: string,
): Promise<Session | undefined> {
  const session = await cx.sessionOf(msg);
  if (!session) return undefined;
  if (session.turn) {
    await cx.error(
      msg.request_id,
      "turn_active",
      `cannot ${action} while turn "${session.turn.id}" is running`,
    );
    return undefined;
  }
  return session;
}
