/**
 * `session.history`: an idle session's history as `history.item` events (newest kept within
 * the transcript limits), then `history.end`.
 *
 * @module
 */
import type { ClientMessageOf } from "../../../protocol/schema.ts";
import { planHistory } from "../../sessions/history_items.ts";
import { utf8Length } from "../../utf8.ts";
import type { ConnectionContext } from "../context.ts";
import { idleSessionOf } from "../idle_session.ts";

/** The JSON bytes the `history.item` envelope adds to an item's own object. */
function envelopeBytes(requestId: string, sessionId: string): number {
  return utf8Length(
    JSON.stringify({ type: "history.item", request_id: requestId, session_id: sessionId }),
  ) - 1;
}

/** Replays the history; `turn_active` while a turn runs. */
export async function sessionHistory(
  msg: ClientMessageOf<"session.history">,
  cx: ConnectionContext,
): Promise<void> {
  const session = await idleSessionOf(msg, cx, "replay the history");
  if (!session) return;
  const c = cx.config;
  const plan = planHistory(session.history, session.recorder?.toolMeta ?? new Map(), {
    maxItems: c.max_transcript_items,
    maxBytes: c.max_transcript_bytes,
    maxFrameBytes: c.max_server_frame_bytes,
    envelopeBytes: envelopeBytes(msg.request_id, session.id),
  });
  const envelope = { request_id: msg.request_id, session_id: session.id };
  for (const item of plan.items) {
    await cx.send<"history.item">({ type: "history.item", ...envelope, ...item });
  }
  await cx.send<"history.end">({
    type: "history.end",
    ...envelope,
    items: plan.items.length,
    omitted: plan.omitted,
  });
}
