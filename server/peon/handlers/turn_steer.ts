/**
 * `turn.steer` (scv 0.3): adds text to the session's active turn. It waits in the session's
 * inbox until the turn's next safe point (see `core/run_turn.ts`) and is answered at once with
 * `turn.steer.accepted`, after it was recorded. Its `attachments` are checked as `turn.start`'s
 * are (server/core/attachments.ts) before it is accepted.
 *
 * @module
 */
import type { ClientMessageOf } from "../../../protocol/schema.ts";
import { promptRefusal } from "../../core/prompt_bounds.ts";
import { quoteInput } from "../../error_text.ts";
import type { ConnectionContext } from "../context.ts";
import { attachedImages } from "./attached_images.ts";

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
  const loaded = await attachedImages(msg.attachments, session.cwd, cx);
  if (!loaded.ok) return await cx.error(msg.request_id, "invalid_request", loaded.message);
  // The turn may have ended while the files were read.
  if (!session.turn || session.turn.id !== msg.turn_id) return await notActive();
  const images = loaded.images;
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
