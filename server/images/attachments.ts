/**
 * Checking images before they enter a conversation: `turn.start`'s `attachments` (inline base64
 * or a path inside the workspace) and image files `read_file` opens. Each image must be one of
 * the four formats by its magic bytes (and be the format its `media_type` or file ending claims),
 * at most `max_image_bytes` decoded, with a header that gives its pixel size; at most
 * `MAX_ATTACHMENTS` per turn. Every refusal is one sentence naming the attachment by index and
 * name. {@link checkImage} and {@link decodeInline} are pure; the path reading is bounded.
 *
 * @module
 */
import { basename } from "node:path";

import { type ImageMediaType, MAX_ATTACHMENTS } from "../../protocol/constants.ts";
import type { ImageAttachment } from "../../protocol/schema.ts";
import { fileErrorMessage } from "../tools/permission.ts";
import { locate, openedInside } from "../tools/workspace.ts";
import { imageSize, mediaTypeOfName, sniffMediaType } from "./format.ts";
import type { ImagePart } from "./image_part.ts";

export { DEFAULT_MAX_IMAGE_BYTES } from "./image_part.ts";

/** A format's short name in messages. */
const FORMAT_NAMES: Readonly<Record<ImageMediaType, string>> = {
  "image/png": "PNG",
  "image/jpeg": "JPEG",
  "image/gif": "GIF",
  "image/webp": "WebP",
};

/** What {@link checkImage} needs besides the bytes. */
export interface CheckOptions {
  /** The name the image goes by. */
  name: string;
  /** The format the sender or the file ending claims; undefined: whatever the bytes are. */
  claimed: ImageMediaType | undefined;
  /** The largest decoded size allowed (inclusive). */
  maxImageBytes: number;
}

/**
 * The image part for `bytes`, or why they are refused (a message without the attachment's
 * label, which the caller puts in front).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { checkImage } from "./attachments.ts";
 * const gif = new Uint8Array([0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 1, 0, 1, 0, 0, 0, 0]);
 * const part = checkImage(gif, { name: "a.gif", claimed: "image/gif", maxImageBytes: 100 });
 * assert(typeof part !== "string" && part.width === 1);
 * const refused = checkImage(gif, { name: "a.png", claimed: "image/png", maxImageBytes: 100 });
 * assert.equal(refused, "its bytes are GIF, not the PNG it claims to be");
 * ```
 */
export function checkImage(bytes: Uint8Array, options: CheckOptions): ImagePart | string {
  const { name, claimed, maxImageBytes } = options;
  if (bytes.length > maxImageBytes) {
    return `it is ${bytes.length} bytes, over max_image_bytes (${maxImageBytes})`;
  }
  const actual = sniffMediaType(bytes);
  if (actual === undefined) {
    const what = claimed === undefined
      ? "an image"
      : `the ${FORMAT_NAMES[claimed]} it claims to be`;
    return `its bytes are not ${what} (PNG, JPEG, GIF and WebP are taken)`;
  }
  if (claimed !== undefined && actual !== claimed) {
    return `its bytes are ${FORMAT_NAMES[actual]}, not the ${
      FORMAT_NAMES[claimed]
    } it claims to be`;
  }
  const size = imageSize(bytes, actual);
  if (size === undefined || size.width === 0 || size.height === 0) {
    return `its ${FORMAT_NAMES[actual]} header is cut short or malformed`;
  }
  return {
    type: "image",
    media_type: actual,
    data: bytes.toBase64(),
    name,
    bytes: bytes.length,
    width: size.width,
    height: size.height,
  };
}

/**
 * Decodes inline base64, refusing before decoding when the text alone is too long to be at most
 * `maxImageBytes`; a string is why it was refused.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { decodeInline } from "./attachments.ts";
 * assert.deepEqual(decodeInline("aGk=", 2), new Uint8Array([104, 105]));
 * assert.equal(decodeInline("aGk=", 1), "it is 2 bytes, over max_image_bytes (1)");
 * assert.equal(decodeInline("a!", 9), "its data is not valid base64");
 * ```
 */
export function decodeInline(data: string, maxImageBytes: number): Uint8Array | string {
  const stripped = data.replace(/=+$/, "");
  // Every 4 base64 characters are 3 bytes; what the text decodes to, without decoding it.
  const decoded = Math.floor(stripped.length * 3 / 4);
  if (decoded > maxImageBytes) {
    return `it is ${decoded} bytes, over max_image_bytes (${maxImageBytes})`;
  }
  try {
    return Uint8Array.fromBase64(data);
  } catch {
    return "its data is not valid base64";
  }
}

/**
 * Reads an image file inside the workspace, at most `maxImageBytes` (plus one, to tell a file
 * that grew past it), and checks it; a string is why it was refused. Omitted, `name` is the
 * file's name and `claimed` what its ending says. The containment checks are
 * read_file's: the path is resolved through symbolic links, and the opened file is checked to be
 * the one inside.
 */
export async function readWorkspaceImage(
  cwd: string,
  userPath: string,
  options: Partial<CheckOptions> & { maxImageBytes: number },
): Promise<ImagePart | string> {
  const { maxImageBytes, name = basename(userPath) } = options;
  const claimed = "claimed" in options ? options.claimed : mediaTypeOfName(userPath);
  let file: Deno.FsFile | undefined;
  try {
    const { root, absolute, inside } = await locate(cwd, userPath);
    if (!inside) return `"${userPath}" is outside the workspace "${root}"`;
    const info = await Deno.stat(absolute);
    if (!info.isFile) return `"${userPath}" is not a regular file`;
    if (info.size > maxImageBytes) {
      return `it is ${info.size} bytes, over max_image_bytes (${maxImageBytes})`;
    }
    file = await Deno.open(absolute, { read: true });
    if (!(await openedInside(root, absolute, file).catch(() => false))) {
      return `"${userPath}" changed while being opened and may now lead outside the workspace`;
    }
    const bytes = await readAtMost(file, maxImageBytes + 1);
    return checkImage(bytes, { name, claimed, maxImageBytes });
  } catch (e) {
    return fileErrorMessage(e, { verb: "read", path: userPath, flag: "--allow-read" });
  } finally {
    file?.close();
  }
}

/** The first `limit` bytes of a file (fewer at its end). */
async function readAtMost(file: Deno.FsFile, limit: number): Promise<Uint8Array> {
  const out = new Uint8Array(limit);
  let n = 0;
  while (n < limit) {
    const got = await file.read(out.subarray(n));
    if (got === null) break;
    n += got;
  }
  return out.subarray(0, n);
}

/** What {@link loadAttachments} needs. */
export interface AttachmentOptions {
  /** The session's canonical workspace, for paths. */
  cwd: string;
  /** `max_image_bytes`. */
  maxImageBytes: number;
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
  return { ok: true, images };
}
