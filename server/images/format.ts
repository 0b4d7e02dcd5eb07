/**
 * Image formats by their magic bytes, and an image's pixel size read from its header: the four
 * formats every image-taking API accepts (PNG, JPEG, GIF, WebP). Pure: nothing is decoded.
 *
 * @module
 */

import type { ImageMediaType } from "../../protocol/constants.ts";

export type { ImageMediaType };

/** File name endings of each format, for paths (lower case, with the dot). */
const ENDINGS: Readonly<Record<string, ImageMediaType>> = {
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
};

/**
 * The media type a file name's ending claims, or undefined when it names no image format.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { mediaTypeOfName } from "./format.ts";
 * assert.equal(mediaTypeOfName("shot.PNG"), "image/png");
 * assert.equal(mediaTypeOfName("notes.txt"), undefined);
 * ```
 */
export function mediaTypeOfName(name: string): ImageMediaType | undefined {
  const dot = name.lastIndexOf(".");
  if (dot < 0 || name.lastIndexOf("/") > dot) return undefined;
  return ENDINGS[name.slice(dot).toLowerCase()];
}

function startsWith(bytes: Uint8Array, prefix: readonly number[], at = 0): boolean {
  if (bytes.length < at + prefix.length) return false;
  return prefix.every((b, i) => bytes[at + i] === b);
}

const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const JPEG = [0xff, 0xd8, 0xff];
const GIF87 = [0x47, 0x49, 0x46, 0x38, 0x37, 0x61];
const GIF89 = [0x47, 0x49, 0x46, 0x38, 0x39, 0x61];
const RIFF = [0x52, 0x49, 0x46, 0x46];
const WEBP = [0x57, 0x45, 0x42, 0x50];

/**
 * The format `bytes` really are, by their magic bytes, or undefined when none of the four.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sniffMediaType } from "./format.ts";
 * assert.equal(sniffMediaType(new Uint8Array([0xff, 0xd8, 0xff, 0xe0])), "image/jpeg");
 * assert.equal(sniffMediaType(new TextEncoder().encode("hello")), undefined);
 * ```
 */
export function sniffMediaType(bytes: Uint8Array): ImageMediaType | undefined {
  if (startsWith(bytes, PNG)) return "image/png";
  if (startsWith(bytes, JPEG)) return "image/jpeg";
  if (startsWith(bytes, GIF87) || startsWith(bytes, GIF89)) return "image/gif";
  if (startsWith(bytes, RIFF) && startsWith(bytes, WEBP, 8)) return "image/webp";
  return undefined;
}

/** An image's size in pixels. */
export interface PixelSize {
  width: number;
  height: number;
}

const be16 = (b: Uint8Array, i: number) => (b[i]! << 8) | b[i + 1]!;
const le16 = (b: Uint8Array, i: number) => b[i]! | (b[i + 1]! << 8);
const le24 = (b: Uint8Array, i: number) => b[i]! | (b[i + 1]! << 8) | (b[i + 2]! << 16);
const be32 = (b: Uint8Array, i: number) =>
  ((b[i]! << 24) >>> 0) + (b[i + 1]! << 16) +
  (b[i + 2]! << 8) + b[i + 3]!;

/** JPEG start-of-frame markers (baseline, progressive, lossless...), which carry the size. */
function isStartOfFrame(marker: number): boolean {
  return marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 &&
    marker !== 0xcc;
}

function jpegSize(b: Uint8Array): PixelSize | undefined {
  let i = 2;
  while (i + 4 <= b.length) {
    if (b[i] !== 0xff) return undefined;
    const marker = b[i + 1]!;
    if (marker === 0xff) { // fill byte
      i++;
      continue;
    }
    if (marker === 0xd8 || (marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) {
      i += 2;
      continue;
    }
    const length = be16(b, i + 2);
    if (length < 2) return undefined;
    if (isStartOfFrame(marker)) {
      if (i + 9 > b.length) return undefined;
      return { height: be16(b, i + 5), width: be16(b, i + 7) };
    }
    i += 2 + length;
  }
  return undefined;
}

function webpSize(b: Uint8Array): PixelSize | undefined {
  if (b.length < 30) return undefined;
  const chunk = String.fromCharCode(b[12]!, b[13]!, b[14]!, b[15]!);
  if (chunk === "VP8X") return { width: le24(b, 24) + 1, height: le24(b, 27) + 1 };
  if (chunk === "VP8 ") return { width: le16(b, 26) & 0x3fff, height: le16(b, 28) & 0x3fff };
  if (chunk === "VP8L" && b[20] === 0x2f) {
    const bits = b[21]! | (b[22]! << 8) | (b[23]! << 16) | (b[24]! << 24);
    return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
  }
  return undefined;
}

/**
 * The pixel size written in an image's header, or undefined when the header is cut short or
 * malformed (the image is then refused: its size cannot be checked against a provider's limit).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { imageSize } from "./format.ts";
 * const gif = new Uint8Array([0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 3, 0, 2, 0]);
 * assert.deepEqual(imageSize(gif, "image/gif"), { width: 3, height: 2 });
 * ```
 */
export function imageSize(bytes: Uint8Array, mediaType: ImageMediaType): PixelSize | undefined {
  switch (mediaType) {
    case "image/png":
      // The IHDR chunk comes first: length, "IHDR", width, height.
      if (bytes.length < 24 || !startsWith(bytes, [0x49, 0x48, 0x44, 0x52], 12)) return undefined;
      return { width: be32(bytes, 16), height: be32(bytes, 20) };
    case "image/gif":
      if (bytes.length < 10) return undefined;
      return { width: le16(bytes, 6), height: le16(bytes, 8) };
    case "image/jpeg":
      return jpegSize(bytes);
    case "image/webp":
      return webpSize(bytes);
  }
}
