/**
 * Tokens an image takes in a prompt, by each API's documented rule (docs/images.md), and the
 * pure step that leaves old images out of a history before any message is removed.
 *
 * - `anthropic` (Anthropic's vision guide): an image whose long side is over 1568 px or that
 *   would take over ~1,600 tokens (1.2 megapixels) is first scaled down to fit both; it then
 *   takes `width * height / 750` tokens, rounded up (1092 x 1092: 1590).
 * - `openai` (OpenAI's vision guide, `detail: "auto"`/`"high"` as scv sends): scaled to fit
 *   2048 x 2048, then its short side to at most 768 px; 170 tokens per 512 px tile plus 85.
 *
 * @module
 */
import { IMAGE_OMITTED, type ImagePart } from "../images/image_part.ts";
import type { ChatMessage } from "../provider/types.ts";

/** Which API's rule counts an image. */
export type ImageTokenRule = "anthropic" | "openai";

/**
 * The tokens one image takes by `rule`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { imageTokens } from "./image_tokens.ts";
 * const image = { width: 1000, height: 1000 };
 * assert.equal(imageTokens(image, "anthropic"), 1334); // 1000 * 1000 / 750
 * assert.equal(imageTokens(image, "openai"), 765); // 768 x 768: 4 tiles
 * ```
 */
export function imageTokens(
  image: Pick<ImagePart, "width" | "height">,
  rule: ImageTokenRule,
): number {
  let { width: w, height: h } = image;
  if (rule === "anthropic") {
    const scale = Math.min(1, 1568 / Math.max(w, h), Math.sqrt(1_200_000 / (w * h)));
    w = Math.max(1, Math.floor(w * scale));
    h = Math.max(1, Math.floor(h * scale));
    return Math.ceil(w * h / 750);
  }
  const fit = Math.min(1, 2048 / Math.max(w, h));
  w *= fit;
  h *= fit;
  const short = Math.min(1, 768 / Math.min(w, h));
  w = Math.ceil(w * short);
  h = Math.ceil(h * short);
  return 85 + 170 * Math.ceil(w / 512) * Math.ceil(h / 512);
}

/** A copy of a message with its images left out and `[image omitted]` in their place. */
export function withoutImages(message: ChatMessage): ChatMessage {
  if ((message.role !== "user" && message.role !== "tool") || !message.images?.length) {
    return message;
  }
  const { images, ...rest } = message;
  const note = images.map(() => IMAGE_OMITTED).join(" ");
  return { ...rest, content: rest.content ? `${rest.content}\n${note}` : note };
}

/** Whether a message carries images. */
export function hasImages(message: ChatMessage): boolean {
  return (message.role === "user" || message.role === "tool") && (message.images?.length ?? 0) > 0;
}

/** What {@link dropOldImages} made. */
export interface ImagesDropped {
  /** The history with the images of the oldest messages left out (other messages the same). */
  history: ChatMessage[];
  /** The size after, in the caller's unit. */
  size: number;
  /** How many messages lost their images. */
  messages: number;
}

/**
 * Leaves out the images of the oldest messages before `turnStart`, one message at a time,
 * until `size` (the history's total, in the unit `sizeOf` measures) is at most `target`, or no
 * earlier message has images left. Pure.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { dropOldImages } from "./image_tokens.ts";
 * import type { ChatMessage } from "../provider/types.ts";
 * const image = {
 *   type: "image" as const, media_type: "image/png" as const, data: "x".repeat(100), name: "a.png",
 *   bytes: 75, width: 1, height: 1,
 * };
 * const history: ChatMessage[] = [
 *   { role: "user", content: "old", images: [image] },
 *   { role: "user", content: "new", images: [image] },
 * ];
 * const sizeOf = (m: ChatMessage) => JSON.stringify(m).length;
 * const got = dropOldImages(history, 1, sizeOf, sizeOf(history[0]!) + sizeOf(history[1]!), 0);
 * assert.equal(got.messages, 1);
 * assert.equal(got.history[0]!.content, "old\n[image omitted]");
 * assert.equal(got.history[1], history[1]);
 * ```
 */
export function dropOldImages(
  history: readonly ChatMessage[],
  turnStart: number,
  sizeOf: (message: ChatMessage) => number,
  size: number,
  target: number,
): ImagesDropped {
  const out = [...history];
  let messages = 0;
  for (let i = 0; i < turnStart && size > target; i++) {
    const m = out[i]!;
    if (!hasImages(m)) continue;
    const light = withoutImages(m);
    size += sizeOf(light) - sizeOf(m);
    out[i] = light;
    messages++;
  }
  return { history: out, size, messages };
}
