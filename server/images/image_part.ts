/**
 * An image as the canonical history keeps it: the decoded bytes as base64 with their checked
 * format, pixel size and the name the user knows it by. Every provider sends it from this one
 * shape (server/provider/), the recorder stores its bytes beside the record.
 *
 * @module
 */
import type { ImageMediaType } from "../../protocol/constants.ts";

/** One image in a user message or a tool result. Treated as immutable, like messages. */
export interface ImagePart {
  /** Always an image. */
  type: "image";
  /** The format, as its magic bytes say. */
  media_type: ImageMediaType;
  /** The image's bytes, base64 (standard alphabet, padded). */
  data: string;
  /** What the user and the transcript call it: a file name or `image N`. */
  name: string;
  /** The decoded size in bytes. */
  bytes: number;
  /** Pixels, as the header says. */
  width: number;
  /** Pixels, as the header says. */
  height: number;
}

/** `max_image_bytes` when the config sets none: 5 MiB decoded. */
export const DEFAULT_MAX_IMAGE_BYTES = 5 * 1024 * 1024;

/** What an image left out of a request or the history reads as in its place. */
export const IMAGE_OMITTED = "[image omitted]";

/**
 * A short human size: `240 KB`, `1.5 MB` (decimal units, as file managers show them).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { humanBytes } from "./image_part.ts";
 * assert.equal(humanBytes(245_760), "246 KB");
 * assert.equal(humanBytes(900), "900 B");
 * assert.equal(humanBytes(2_500_000), "2.5 MB");
 * ```
 */
export function humanBytes(n: number): string {
  if (n < 1000) return `${n} B`;
  if (n < 1_000_000) return `${Math.round(n / 1000)} KB`;
  return `${(n / 1_000_000).toFixed(1)} MB`;
}
