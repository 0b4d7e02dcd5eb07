/**
 * `session.checkpoints`: the turns an idle session can rewind to, newest first, as many as one
 * frame holds (`truncated` says when older ones were left out).
 *
 * @module
 */
import type { ClientMessageOf } from "../../../protocol/schema.ts";
import type { EventOf } from "../../../protocol/turn_events.ts";
import { errorText } from "../../error_text.ts";
import type { ConnectionContext } from "../context.ts";
import { idleSessionOf } from "../idle_session.ts";
import { fittingCount } from "./session_list.ts";

/** Lists the checkpoints; `invalid_request` when the session keeps none. */
export async function sessionCheckpoints(
  msg: ClientMessageOf<"session.checkpoints">,
  cx: ConnectionContext,
): Promise<void> {
  const session = await idleSessionOf(msg, cx, "list checkpoints");
  if (!session) return;
  const cp = session.checkpoints;
  if (!cp) {
    const state = await cx.checkpoints();
    const why = state.enabled ? "" : `: ${state.reason}`;
    return await cx.error(msg.request_id, "invalid_request", `checkpoints are off${why}`);
  }
  let turns;
  try {
    turns = await cp.list();
  } catch (e) {
    return await cx.error(
      msg.request_id,
      "internal_error",
      `cannot read the checkpoints: ${errorText(e)}`,
    );
  }
  const frame = (n: number): EventOf<"session.checkpoints"> => ({
    type: "session.checkpoints",
    request_id: msg.request_id,
    session_id: session.id,
    turns: turns.slice(0, n),
    ...(n < turns.length ? { truncated: true } : {}),
  });
  await cx.send(frame(fittingCount(frame, turns.length, cx.config.max_server_frame_bytes)));
}
