/**
 * `turn.cancel`: aborts the running turn, which then ends with `turn.cancelled`.
 *
 * @module
 */
import type { ClientMessageOf } from "../../../protocol/schema.ts";
import { quoteInput } from "../../error_text.ts";
import type { ConnectionContext } from "../context.ts";

/** Cancels the named turn; `turn_not_found` when it is not the one running. */
export async function turnCancel(
  msg: ClientMessageOf<"turn.cancel">,
  cx: ConnectionContext,
): Promise<void> {
  const session = await cx.sessionOf(msg);
  if (!session) return;
  if (!session.turn || session.turn.id !== msg.turn_id) {
    return await cx.error(
      msg.request_id,
      "turn_not_found",
      `no active turn ${quoteInput(msg.turn_id)} in this session`,
    );
  }
  session.turn.controller.abort(new DOMException("turn cancelled", "AbortError"));
}
