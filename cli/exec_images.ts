/**
 * `scv exec --image FILE`: the image files read on the command line's side (any readable file,
 * also outside the workspace, as a user names it), bounded by `max_image_bytes`, and sent inline;
 * the server checks them as every attachment.
 *
 * @module
 */
import { MAX_ATTACHMENTS } from "../protocol/constants.ts";
import type { ImageAttachment } from "../protocol/schema.ts";
import { mediaTypeOfName, sniffMediaType } from "../server/images/format.ts";
import { basename } from "../server/posix_path.ts";

/**
 * The attachments for `files`, or why one cannot be read (one line for stderr).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readExecImages } from "./exec_images.ts";
 * const got = await readExecImages(["/nonexistent/x.png"], 1024);
 * assert.equal(got, `--image "/nonexistent/x.png": no such file`);
 * ```
 */
export async function readExecImages(
  files: readonly string[],
  maxImageBytes: number,
): Promise<ImageAttachment[] | string> {
  if (files.length > MAX_ATTACHMENTS) {
    return `${files.length} --image files are over the limit of ${MAX_ATTACHMENTS} per turn`;
  }
  const out: ImageAttachment[] = [];
  for (const file of files) {
    let bytes: Uint8Array;
    try {
      const info = await Deno.stat(file);
      if (!info.isFile) return `--image "${file}": not a regular file`;
      if (info.size > maxImageBytes) {
        return `--image "${file}": ${info.size} bytes, over max_image_bytes (${maxImageBytes})`;
      }
      bytes = await Deno.readFile(file);
    } catch (e) {
      if (e instanceof Deno.errors.NotFound) return `--image "${file}": no such file`;
      return `--image "${file}": ${e instanceof Error ? e.message : String(e)}`;
    }
    // The bytes say what they are; the server refuses them if they are no image at all.
    const media_type = sniffMediaType(bytes) ?? mediaTypeOfName(file) ?? "image/png";
    out.push({ type: "image", media_type, data: bytes.toBase64(), name: basename(file) });
  }
  return out;
}

/**
 * The client frame limit the in-process server of `scv exec` takes, so that the images fit in
 * one `turn.start` beside the prompt (base64 grows them by a third).
 */
export function execFrameLimit(configured: number, attachments: readonly ImageAttachment[]) {
  const inline = attachments.reduce((n, a) => n + (a.data?.length ?? 0) + 256, 0);
  return Math.max(configured, inline + 2 * 1024 * 1024);
}
