/**
 * Scaling an image down to fit a pixel limit (an API's longest side), for PNG and JPEG: decoded
 * by `fast-png` and `jpeg-js` (maintained, pure JavaScript, no native build, so they work under
 * `deno compile`), averaged down by area, and encoded again in the same format. GIF and WebP are
 * not scaled (no codec as light covers them); the caller refuses them with a clear error. This
 * module and the codecs are imported only when an image must be scaled, never at start-up.
 *
 * Decoding is bounded before it starts: at most {@link MAX_DECODE_PIXELS} by the header, and a
 * PNG whose compressed data inflates past what its header allows is refused unread (a
 * decompression bomb), so a 5 MiB file cannot take gigabytes of memory.
 *
 * @module
 */
import { Unzlib } from "fflate";

import type { ImagePart } from "./image_part.ts";

/** The most pixels decoded to scale one image: 40 megapixels, 160 MB as RGBA. */
export const MAX_DECODE_PIXELS = 40_000_000;

/** JPEG quality of a scaled JPEG (0-100). */
const JPEG_QUALITY = 90;

/** An image as RGBA pixels, 8 bits a channel. */
export interface Rgba {
  width: number;
  height: number;
  data: Uint8Array;
}

/**
 * The size that fits `maxSide` a side, keeping the aspect ratio (each side at least 1 px).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { fitSize } from "./scale.ts";
 * assert.deepEqual(fitSize(9000, 3000, 8000), { width: 8000, height: 2667 });
 * assert.deepEqual(fitSize(8001, 1, 8000), { width: 8000, height: 1 });
 * ```
 */
export function fitSize(
  width: number,
  height: number,
  maxSide: number,
): { width: number; height: number } {
  const scale = Math.min(1, maxSide / Math.max(width, height));
  return {
    width: Math.max(1, Math.min(maxSide, Math.round(width * scale))),
    height: Math.max(1, Math.min(maxSide, Math.round(height * scale))),
  };
}

/**
 * `src` scaled down to `width` x `height` by averaging the source pixels each target pixel
 * covers (a box filter: what a downscale needs, and no more). Pure.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { downscale } from "./scale.ts";
 * const src = { width: 2, height: 1, data: new Uint8Array([0, 0, 0, 255, 200, 100, 50, 255]) };
 * assert.deepEqual([...downscale(src, 1, 1).data], [100, 50, 25, 255]);
 * ```
 */
export function downscale(src: Rgba, width: number, height: number): Rgba {
  const out = new Uint8Array(width * height * 4);
  const sx = src.width / width;
  const sy = src.height / height;
  const sums = new Float64Array(width * 4);
  const counts = new Uint32Array(width);
  for (let y = 0; y < height; y++) {
    const y0 = Math.floor(y * sy);
    const y1 = Math.max(y0 + 1, Math.min(src.height, Math.floor((y + 1) * sy)));
    sums.fill(0);
    counts.fill(0);
    for (let yy = y0; yy < y1; yy++) {
      const row = yy * src.width * 4;
      for (let x = 0; x < width; x++) {
        const x0 = Math.floor(x * sx);
        const x1 = Math.max(x0 + 1, Math.min(src.width, Math.floor((x + 1) * sx)));
        let r = 0, g = 0, b = 0, a = 0;
        for (let xx = x0; xx < x1; xx++) {
          const i = row + xx * 4;
          r += src.data[i]!;
          g += src.data[i + 1]!;
          b += src.data[i + 2]!;
          a += src.data[i + 3]!;
        }
        sums[x * 4] = sums[x * 4]! + r;
        sums[x * 4 + 1] = sums[x * 4 + 1]! + g;
        sums[x * 4 + 2] = sums[x * 4 + 2]! + b;
        sums[x * 4 + 3] = sums[x * 4 + 3]! + a;
        counts[x] = counts[x]! + x1 - x0;
      }
    }
    for (let x = 0; x < width; x++) {
      const o = (y * width + x) * 4;
      for (let c = 0; c < 4; c++) out[o + c] = Math.round(sums[x * 4 + c]! / counts[x]!);
    }
  }
  return { width, height, data: out };
}

const be32 = (b: Uint8Array, i: number) =>
  ((b[i]! << 24) >>> 0) + (b[i + 1]! << 16) + (b[i + 2]! << 8) + b[i + 3]!;

/**
 * Why a PNG's compressed pixels are refused before decoding, or undefined when they inflate to
 * no more than its header allows (every row's filter byte and pixels, at 16 bits a channel).
 */
function pngBomb(bytes: Uint8Array, width: number, height: number): string | undefined {
  const allowed = height * (1 + Math.ceil(width * 4 * 16 / 8));
  let inflated = 0;
  let over = false;
  const inflater = new Unzlib((chunk) => {
    inflated += chunk.length;
    if (inflated > allowed) over = true;
  });
  try {
    for (let at = 8; at + 12 <= bytes.length && !over;) {
      const length = be32(bytes, at);
      const type = String.fromCharCode(...bytes.subarray(at + 4, at + 8));
      if (at + 12 + length > bytes.length) return "its PNG chunks are cut short";
      // In slices of 1 KiB (at most about 1 MB inflated each), stopping at the first too many.
      for (let i = 0; type === "IDAT" && i < length && !over; i += 1024) {
        inflater.push(bytes.subarray(at + 8 + i, at + 8 + Math.min(length, i + 1024)), false);
      }
      if (type === "IEND") break;
      at += 12 + length;
    }
  } catch (e) {
    return `its PNG data cannot be decompressed (${e instanceof Error ? e.message : e})`;
  }
  return over ? `its PNG data inflates to more than its ${width}x${height} px allow` : undefined;
}

/** A decoded PNG as RGBA 8 bits a channel, whatever its depth, channels or palette. */
async function decodePng(bytes: Uint8Array): Promise<Rgba> {
  const png = await import("fast-png");
  const d = png.decode(bytes);
  const { width, height } = d;
  const n = width * height;
  const out = new Uint8Array(n * 4);
  if (d.palette) {
    const rgb = png.convertIndexedToRgb(d);
    const channels = rgb.length / n;
    for (let i = 0; i < n; i++) {
      out[i * 4] = rgb[i * channels]!;
      out[i * 4 + 1] = rgb[i * channels + 1]!;
      out[i * 4 + 2] = rgb[i * channels + 2]!;
      out[i * 4 + 3] = channels === 4 ? rgb[i * channels + 3]! : 255;
    }
    return { width, height, data: out };
  }
  const channels = d.channels;
  const max = (1 << d.depth) - 1;
  // Depths below 8 are packed in bits, each row starting on a byte.
  const rowBits = width * channels * d.depth;
  const sample = (x: number, y: number, c: number): number => {
    const k = x * channels + c;
    if (d.depth === 8 || d.depth === 16) {
      return Math.round((d.data[y * width * channels + k]! * 255) / max);
    }
    const bit = y * Math.ceil(rowBits / 8) * 8 + k * d.depth;
    const byte = d.data[bit >> 3]!;
    const v = (byte >> (8 - d.depth - (bit & 7))) & max;
    return Math.round((v * 255) / max);
  };
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const o = (y * width + x) * 4;
      if (channels <= 2) {
        const g = sample(x, y, 0);
        out[o] = out[o + 1] = out[o + 2] = g;
        out[o + 3] = channels === 2 ? sample(x, y, 1) : 255;
      } else {
        out[o] = sample(x, y, 0);
        out[o + 1] = sample(x, y, 1);
        out[o + 2] = sample(x, y, 2);
        out[o + 3] = channels === 4 ? sample(x, y, 3) : 255;
      }
    }
  }
  return { width, height, data: out };
}

/** The image as a PNG: RGB when fully opaque, else RGBA. */
async function encodePng(image: Rgba): Promise<Uint8Array> {
  const png = await import("fast-png");
  let opaque = true;
  for (let i = 3; i < image.data.length && opaque; i += 4) opaque = image.data[i] === 255;
  if (!opaque) {
    return png.encode({ ...image, depth: 8, channels: 4 });
  }
  const rgb = new Uint8Array(image.width * image.height * 3);
  for (let i = 0, j = 0; i < image.data.length; i += 4, j += 3) {
    rgb[j] = image.data[i]!;
    rgb[j + 1] = image.data[i + 1]!;
    rgb[j + 2] = image.data[i + 2]!;
  }
  return png.encode({ width: image.width, height: image.height, data: rgb, depth: 8, channels: 3 });
}

/** The jpeg-js functions, from its CommonJS module. */
async function jpegCodec() {
  const mod = await import("jpeg-js");
  return (mod as unknown as { default?: typeof mod }).default ?? mod;
}

/**
 * `image` scaled down so that neither side is over `maxSide`, in its own format, or why it
 * cannot be (a sentence without the image's name, which the caller puts in front). An image
 * within the limit is returned as it is.
 */
export async function scaleToFit(image: ImagePart, maxSide: number): Promise<ImagePart | string> {
  if (Math.max(image.width, image.height) <= maxSide) return image;
  const format = image.media_type === "image/png" ? "PNG" : "JPEG";
  if (image.media_type !== "image/png" && image.media_type !== "image/jpeg") {
    const name = image.media_type === "image/gif" ? "GIF" : "WebP";
    return `scv scales only PNG and JPEG images down, not ${name}`;
  }
  const pixels = image.width * image.height;
  if (pixels > MAX_DECODE_PIXELS) {
    return `it is ${pixels} pixels, more than scv decodes to scale an image down ` +
      `(${MAX_DECODE_PIXELS})`;
  }
  const bytes = Uint8Array.fromBase64(image.data);
  let decoded: Rgba;
  let encoded: Uint8Array;
  const size = fitSize(image.width, image.height, maxSide);
  try {
    if (image.media_type === "image/png") {
      const bomb = pngBomb(bytes, image.width, image.height);
      if (bomb !== undefined) return `it cannot be scaled down: ${bomb}`;
      decoded = await decodePng(bytes);
    } else {
      const jpeg = await jpegCodec();
      const d = jpeg.decode(bytes, {
        useTArray: true,
        formatAsRGBA: true,
        maxResolutionInMP: Math.ceil(MAX_DECODE_PIXELS / 1e6),
        maxMemoryUsageInMB: 512,
      });
      decoded = { width: d.width, height: d.height, data: d.data };
    }
    if (decoded.width !== image.width || decoded.height !== image.height) {
      return `it cannot be scaled down: its ${format} data is ${decoded.width}x${decoded.height} ` +
        `px, not the ${image.width}x${image.height} its header says`;
    }
    const small = downscale(decoded, size.width, size.height);
    if (image.media_type === "image/png") encoded = await encodePng(small);
    else {
      const jpeg = await jpegCodec();
      encoded = new Uint8Array(jpeg.encode(small, JPEG_QUALITY).data);
    }
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    return `it cannot be scaled down: its ${format} data cannot be decoded (${why.slice(0, 200)})`;
  }
  return {
    ...image,
    data: encoded.toBase64(),
    bytes: encoded.length,
    width: size.width,
    height: size.height,
  };
}
