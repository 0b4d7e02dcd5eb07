/**
 * Images of the canonical history in each API's shape, and each API's documented limits checked
 * before a request goes out, so that an image the API would refuse fails the turn with a clear
 * message here instead of an opaque 400 there:
 *
 * - Anthropic Messages (https://docs.anthropic.com/en/docs/build-with-claude/vision): `image`
 *   blocks with a base64 `source`; at most 5 MB per image (the API measures the base64 text),
 *   8000 px a side (2000 px when a request carries more than 20 images), 100 images a request.
 * - OpenAI Chat Completions and Responses (https://platform.openai.com/docs/guides/images-vision):
 *   `image_url` content parts and `input_image` items with a `data:` URL; at most 50 MB of
 *   images a request (counted as the data URLs' length), no pixel limit (the API scales).
 *
 * A PNG or JPEG past a pixel limit is scaled down to fit by {@link fitImages} (server/images/
 * scale.ts, loaded only then) before the check; a GIF or WebP past it is refused with a clear
 * error (see docs/images.md).
 *
 * @module
 */
import type { ImagePart } from "../images/image_part.ts";
import { type ChatMessage, ProviderError } from "./types.ts";

/** The `data:` URL of an image, as both OpenAI APIs take it. */
export function dataUrl(image: ImagePart): string {
  return `data:${image.media_type};base64,${image.data}`;
}

/** An API's documented image limits; an absent field is not limited. */
export interface ImageLimits {
  /** How the API is named in a refusal. */
  api: string;
  /** The largest image, as the base64 text the API measures. */
  maxImageBase64Bytes?: number;
  /** The longest side in pixels. */
  maxSide?: number;
  /** Above this many images in one request, `manyImagesMaxSide` applies instead. */
  manyImages?: { over: number; maxSide: number };
  /** The most images in one request. */
  maxImages?: number;
  /** The most bytes of images (data URLs) in one request. */
  maxRequestImageBytes?: number;
}

/** The Anthropic Messages API's limits. */
export const ANTHROPIC_IMAGE_LIMITS: ImageLimits = {
  api: "the Anthropic API",
  maxImageBase64Bytes: 5 * 1024 * 1024,
  maxSide: 8000,
  manyImages: { over: 20, maxSide: 2000 },
  maxImages: 100,
};

/** OpenAI's limits (Chat Completions and Responses alike). */
export const OPENAI_IMAGE_LIMITS: ImageLimits = {
  api: "the OpenAI API",
  maxRequestImageBytes: 50 * 1024 * 1024,
};

/** Every image of a history, in order. */
export function historyImages(history: readonly ChatMessage[]): ImagePart[] {
  const out: ImagePart[] = [];
  for (const m of history) {
    if ((m.role === "user" || m.role === "tool") && m.images) out.push(...m.images);
  }
  return out;
}

/** The longest side `limits` allow for a request of `count` images; undefined: none. */
function maxSideFor(limits: ImageLimits, count: number): number | undefined {
  const many = limits.manyImages !== undefined && count > limits.manyImages.over;
  return many ? limits.manyImages!.maxSide : limits.maxSide;
}

/** Scaled copies already made, by the image they came from and the side they fit. */
const scaled = new WeakMap<ImagePart, Map<number, ImagePart>>();

/**
 * `history` with each PNG or JPEG image longer than `limits` allow a side replaced by a copy
 * scaled down to fit, in a worker (each made once per image and side, kept while the image
 * is; `signal` aborting ends the work and rejects with its reason); the
 * canonical history keeps the original. Throws a `provider_error` {@link ProviderError} naming
 * an image that cannot be scaled (a GIF or WebP, or data that cannot be decoded). A history
 * with nothing to scale is returned as it is, and the codecs are never loaded for it.
 */
export async function fitImages(
  history: readonly ChatMessage[],
  limits: ImageLimits,
  signal?: AbortSignal,
): Promise<readonly ChatMessage[]> {
  const images = historyImages(history);
  const maxSide = maxSideFor(limits, images.length);
  if (maxSide === undefined || images.every((i) => Math.max(i.width, i.height) <= maxSide)) {
    return history;
  }
  // In a worker: decoding a large image takes seconds, which must not stall the server.
  const { scaleInWorker } = await import("../images/scale_worker.ts");
  const fit = async (image: ImagePart): Promise<ImagePart> => {
    if (Math.max(image.width, image.height) <= maxSide) return image;
    const known = scaled.get(image)?.get(maxSide);
    if (known) return known;
    const got = await scaleInWorker(image, maxSide, signal);
    if (typeof got === "string") {
      throw new ProviderError(
        "provider_error",
        `Cannot send the request's images: "${image.name}" is ${image.width}x${image.height} ` +
          `px, over the ${maxSide} px a side ${limits.api} takes, and ${got}; scale it down ` +
          `and attach it again`,
      );
    }
    if (!scaled.has(image)) scaled.set(image, new Map());
    scaled.get(image)!.set(maxSide, got);
    return got;
  };
  const out: ChatMessage[] = [];
  for (const m of history) {
    if ((m.role === "user" || m.role === "tool") && m.images?.length) {
      const images: ImagePart[] = [];
      for (const image of m.images) images.push(await fit(image));
      out.push({ ...m, images });
    } else out.push(m);
  }
  return out;
}

/**
 * Throws a `provider_error` {@link ProviderError} naming the first image of `history` that
 * `limits` refuse, before any byte is sent.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ANTHROPIC_IMAGE_LIMITS, checkImageLimits } from "./image_content.ts";
 * const image = {
 *   type: "image" as const, media_type: "image/png" as const, data: "", name: "wide.png",
 *   bytes: 10, width: 9000, height: 10,
 * };
 * assert.throws(
 *   () => checkImageLimits([{ role: "user", content: "hi", images: [image] }], ANTHROPIC_IMAGE_LIMITS),
 *   /"wide.png" is 9000x10 px: the Anthropic API takes at most 8000 px a side/,
 * );
 * ```
 */
export function checkImageLimits(history: readonly ChatMessage[], limits: ImageLimits): void {
  const images = historyImages(history);
  if (images.length === 0) return;
  const refuse = (why: string) => {
    throw new ProviderError("provider_error", `Cannot send the request's images: ${why}`);
  };
  if (limits.maxImages !== undefined && images.length > limits.maxImages) {
    refuse(`${images.length} images, ${limits.api} takes at most ${limits.maxImages} a request`);
  }
  const many = limits.manyImages !== undefined && images.length > limits.manyImages.over;
  const maxSide = maxSideFor(limits, images.length);
  let total = 0;
  for (const image of images) {
    const side = Math.max(image.width, image.height);
    if (maxSide !== undefined && side > maxSide) {
      const when = many ? ` when a request has more than ${limits.manyImages!.over} images` : "";
      refuse(
        `"${image.name}" is ${image.width}x${image.height} px: ${limits.api} takes at most ` +
          `${maxSide} px a side${when}; scale it down and attach it again`,
      );
    }
    if (
      limits.maxImageBase64Bytes !== undefined && image.data.length > limits.maxImageBase64Bytes
    ) {
      refuse(
        `"${image.name}" is ${image.data.length} bytes as base64: ${limits.api} takes at most ` +
          `${limits.maxImageBase64Bytes} per image`,
      );
    }
    total += dataUrl(image).length;
  }
  if (limits.maxRequestImageBytes !== undefined && total > limits.maxRequestImageBytes) {
    refuse(
      `${images.length} images of ${total} bytes: ${limits.api} takes at most ` +
        `${limits.maxRequestImageBytes} bytes of images a request`,
    );
  }
}

/** The text before the images a tool gave, where they go in a user message of their own. */
export function toolImagesCaption(callId: string, images: readonly ImagePart[]): string {
  const names = images.map((i) => i.name).join(", ");
  return `The tool result of call ${callId} includes ${
    images.length === 1 ? "an image" : "images"
  }` +
    ` (${names}), attached here because this API takes images only from the user:`;
}
