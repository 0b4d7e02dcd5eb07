/**
 * `turn.start`'s `attachments` (and, later, `turn.steer`'s): at most `MAX_ATTACHMENTS`, each
 * inline (`media_type` and base64 `data`) or a `path` inside the workspace, checked by
 * server/images/attachments.ts; every refusal is one sentence naming the attachment by index and
 * name.
 *
 * @module
 */
import { basename } from "../posix_path.ts";

import { MAX_ATTACHMENTS } from "../../protocol/constants.ts";
import type { ImageAttachment } from "../../protocol/schema.ts";
import { checkImage, decodeInline } from "../images/attachments.ts";
import { mediaTypeOfName } from "../images/format.ts";
import type { ImagePart } from "../images/image_part.ts";
import { readWorkspaceImage } from "../tools/image_file.ts";

/** What {@link loadAttachments} needs. */
export interface AttachmentOptions {
  /** The session's canonical workspace, for paths. */
  cwd: string;
  /** `max_image_bytes`. */
  maxImageBytes: number;
  /**
   * `max_history_bytes`: the images together, as the base64 the history keeps, must fit it, or
   * the turn could only fail once it started. Omitted: not checked.
   */
  maxHistoryBytes?: number;
}

/** The checked images, in order, or the first refusal (naming its attachment). */
export type LoadedAttachments = { ok: true; images: ImagePart[] } | { ok: false; message: string };

/** How an attachment is named in a refusal: its index in the list and its name. */
function labelOf(index: number, name: string): string {
  return `attachments[${index}] ("${name}")`;
}

/** The name an attachment goes by: its own, its path's file name, or `image N` (from 1). */
export function attachmentName(a: ImageAttachment, index: number): string {
  if (a.name !== undefined && a.name.trim() !== "") return a.name.trim().slice(0, 200);
  if (a.path !== undefined) return basename(a.path) || a.path;
  return `image ${index + 1}`;
}

/**
 * Checks and loads every attachment of a `turn.start`, in order: at most
 * {@link MAX_ATTACHMENTS}, each inline (`media_type` and `data`) or by `path`, never both.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadAttachments } from "./attachments.ts";
 * const got = await loadAttachments([{ type: "image", media_type: "image/png", data: "aGk=" }], {
 *   cwd: "/", maxImageBytes: 1024,
 * });
 * assert(!got.ok && got.message.startsWith(`attachments[0] ("image 1"): its bytes are not`));
 * ```
 */
export async function loadAttachments(
  list: readonly ImageAttachment[],
  options: AttachmentOptions,
): Promise<LoadedAttachments> {
  if (list.length > MAX_ATTACHMENTS) {
    return {
      ok: false,
      message: `${list.length} attachments are over the limit of ${MAX_ATTACHMENTS} per turn`,
    };
  }
  const images: ImagePart[] = [];
  for (const [i, a] of list.entries()) {
    const name = attachmentName(a, i);
    const refuse = (why: string) => ({
      ok: false as const,
      message: `${labelOf(i, name)}: ${why}`,
    });
    let got: ImagePart | string;
    if (a.path !== undefined && a.data !== undefined) {
      return refuse(`give either "path" or "data", not both`);
    } else if (a.path !== undefined) {
      got = await readWorkspaceImage(options.cwd, a.path, {
        maxImageBytes: options.maxImageBytes,
        name,
        claimed: a.media_type ?? mediaTypeOfName(a.path),
      });
    } else if (a.data !== undefined) {
      if (a.media_type === undefined) return refuse(`"media_type" is required with "data"`);
      const bytes = decodeInline(a.data, options.maxImageBytes);
      got = typeof bytes === "string"
        ? bytes
        : checkImage(bytes, { name, claimed: a.media_type, maxImageBytes: options.maxImageBytes });
    } else {
      return refuse(`give "path" (a file in the workspace) or "media_type" and "data"`);
    }
    if (typeof got === "string") return refuse(got);
    images.push(got);
  }
  const total = images.reduce((n, i) => n + i.data.length, 0);
  if (options.maxHistoryBytes !== undefined && total > options.maxHistoryBytes) {
    return {
      ok: false,
      message: `the ${images.length} images take ${total} bytes as base64, more than the ` +
        `session history holds (max_history_bytes ${options.maxHistoryBytes})`,
    };
  }
  return { ok: true, images };
}
