/**
 * `turn.steer` (scv 0.3): adds text to the session's active turn. It waits in the session's
 * inbox until the turn's next safe point (see `core/run_turn.ts`) and is answered at once with
 * `turn.steer.accepted`, after it was recorded. Its `attachments` are checked as `turn.start`'s
 * are (server/core/attachments.ts) before it is accepted.
 *
 * @module
 */
import type { ClientMessageOf } from "../../../protocol/schema.ts";
import type { ImagePart } from "../../images/image_part.ts";
import { promptRefusal } from "../../core/prompt_bounds.ts";
import { quoteInput } from "../../error_text.ts";
import type { ConnectionContext } from "../context.ts";

/**
 * Accepts a steer for the running turn; `invalid_request` for another turn, a bad prompt or a
 * bad attachment.
 */
export async function turnSteer(
  msg: ClientMessageOf<"turn.steer">,
  cx: ConnectionContext,
): Promise<void> {
  const session = await cx.sessionOf(msg);
  if (!session) return;
  const bad = promptRefusal(msg.prompt, cx.config.max_prompt_bytes);
  if (bad !== undefined) return await cx.error(msg.request_id, "invalid_request", bad);
  const notActive = () =>
    cx.error(
      msg.request_id,
      "invalid_request",
      `no active turn ${quoteInput(msg.turn_id)} in this session to steer; send the text as ` +
        `a new turn`,
    );
  if (!session.turn || session.turn.id !== msg.turn_id) return await notActive();
  let images: ImagePart[] = [];
  if (msg.attachments !== undefined && msg.attachments.length > 0) {
    // Loaded only when a steer carries images, as for turn.start.
    const { loadAttachments } = await import("../../core/attachments.ts");
    const loaded = await loadAttachments(msg.attachments, {
      cwd: session.cwd,
      maxImageBytes: cx.config.max_image_bytes,
      maxHistoryBytes: cx.config.max_history_bytes,
    });
    if (!loaded.ok) return await cx.error(msg.request_id, "invalid_request", loaded.message);
    // The turn may have ended while the files were read.
    if (!session.turn || session.turn.id !== msg.turn_id) return await notActive();
    images = loaded.images;
  }
  const accepted = session.inbox.steer(msg.turn_id, msg.request_id, msg.prompt, images);
  if (!accepted.ok) return await cx.error(msg.request_id, "invalid_request", accepted.message);
  accepted.entry.announced = (async () => {
    await accepted.recorded;
    await cx.send<"turn.steer.accepted">({
      type: "turn.steer.accepted",
      request_id: msg.request_id,
      session_id: session.id,
      turn_id: msg.turn_id,
    });
  })();
  await accepted.entry.announced;
}
