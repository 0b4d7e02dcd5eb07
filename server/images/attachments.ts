/**
 * Checking an image's bytes before it enters a conversation, pure: one of the four formats by
 * its magic bytes (and the format its `media_type` or file ending claims), at most
 * `max_image_bytes` decoded, with a header that gives its pixel size. `turn.start`'s attachments
 * (server/core/attachments.ts) and `read_file` (server/tools/image_file.ts) both use it.
 *
 * @module
 */
import type { ImageMediaType } from "../../protocol/constants.ts";
import { imageSize, sniffMediaType } from "./format.ts";
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
