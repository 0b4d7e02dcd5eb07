/**
 * The images a `turn.start` or `turn.steer` carries, checked and loaded the one way both take.
 *
 * @module
 */
import type { ClientMessageOf } from "../../../protocol/schema.ts";
import type { LoadedAttachments } from "../../core/attachments.ts";
import type { ConnectionContext } from "../context.ts";

/**
 * Loads `attachments` for a session in `cwd` under the configured bounds; no attachments are
 * no images. The loader is imported only when a message carries some: it reads files and
 * decodes base64.
 */
export async function attachedImages(
  attachments: ClientMessageOf<"turn.start">["attachments"],
  cwd: string,
  cx: ConnectionContext,
): Promise<LoadedAttachments> {
  if (attachments === undefined || attachments.length === 0) return { ok: true, images: [] };
  const { loadAttachments } = await import("../../core/attachments.ts");
  return await loadAttachments(attachments, {
    cwd,
    maxImageBytes: cx.config.max_image_bytes,
    maxHistoryBytes: cx.config.max_history_bytes,
  });
}
