/**
 * `turn.dequeue` (scv 0.3): takes a prompt that waits in the session's queue back out, and
 * answers `turn.dequeued` with its text.
 *
 * @module
 */
import type { ClientMessageOf } from "../../../protocol/schema.ts";
import { quoteInput } from "../../error_text.ts";
import type { ConnectionContext } from "../context.ts";

/** Removes a queued prompt; `invalid_request` when none with that request id waits. */
export async function turnDequeue(
  msg: ClientMessageOf<"turn.dequeue">,
  cx: ConnectionContext,
): Promise<void> {
  const session = await cx.sessionOf(msg);
  if (!session) return;
  const prompt = session.inbox.dequeue(msg.queued_request_id);
  if (prompt === undefined) {
    return await cx.error(
      msg.request_id,
      "invalid_request",
      `no prompt ${quoteInput(msg.queued_request_id)} waits in this session's queue`,
    );
  }
  await cx.send<"turn.dequeued">({
    type: "turn.dequeued",
    request_id: msg.request_id,
    session_id: session.id,
    queued_request_id: msg.queued_request_id,
    prompt,
  });
}
