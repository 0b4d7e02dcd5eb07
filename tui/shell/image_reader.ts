/**
 * Reads an image path the user pasted or mentioned, for an attachment chip: a file inside the
 * workspace goes by path (the server reads and checks it), one outside (a screenshot dragged in
 * from elsewhere) goes inline when it fits a client frame. Paths come as terminals paste them:
 * quoted, as `file://` URLs, or with backslash-escaped spaces.
 *
 * @module
 */
import type { ImageMediaType } from "../../protocol/mod.ts";
import type { ImageReader } from "../state/images.ts";

const ENDINGS: Readonly<Record<string, ImageMediaType>> = {
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
};

/** The largest image attached (the server's default `max_image_bytes`; it checks again). */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
/** The largest image sent inline: its base64 must fit a 1 MiB client frame with the prompt. */
export const MAX_INLINE_IMAGE_BYTES = 512 * 1024;

/**
 * The path a terminal pasted, unquoted and unescaped.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { pastedPath } from "./image_reader.ts";
 * assert.equal(pastedPath("'/tmp/my shot.png'"), "/tmp/my shot.png");
 * assert.equal(pastedPath("/tmp/my\\ shot.png"), "/tmp/my shot.png");
 * assert.equal(pastedPath("file:///tmp/my%20shot.png"), "/tmp/my shot.png");
 * ```
 */
export function pastedPath(raw: string): string {
  let p = raw.trim();
  if (p.length >= 2 && (p[0] === "'" || p[0] === '"') && p.at(-1) === p[0]) p = p.slice(1, -1);
  if (p.startsWith("file://")) {
    try {
      return decodeURIComponent(new URL(p).pathname);
    } catch {
      return p;
    }
  }
  return p.replace(/\\(.)/g, "$1");
}

/** A reader of image paths for the workspace at `cwd` (absolute, canonical). */
export function imageReader(cwd: string): ImageReader {
  return (raw) => {
    const path = pastedPath(raw);
    const dot = path.lastIndexOf(".");
    const media_type = dot < 0 ? undefined : ENDINGS[path.slice(dot + 1).toLowerCase()];
    if (media_type === undefined || path.includes("\0")) return undefined;
    let real: string;
    let size: number;
    try {
      real = Deno.realPathSync(path.startsWith("/") ? path : `${cwd}/${path}`);
      const info = Deno.statSync(real);
      if (!info.isFile) return undefined;
      size = info.size;
    } catch {
      return undefined; // no such file: the text is what was meant
    }
    const name = real.slice(real.lastIndexOf("/") + 1);
    if (size > MAX_IMAGE_BYTES) {
      return { error: `${name} is ${size} bytes, over the ${MAX_IMAGE_BYTES} an image may take` };
    }
    if (real.startsWith(cwd + "/")) {
      return { name, bytes: size, attachment: { type: "image", path: real.slice(cwd.length + 1) } };
    }
    if (size > MAX_INLINE_IMAGE_BYTES) {
      return {
        error: `${name} is outside the workspace and over ${MAX_INLINE_IMAGE_BYTES} bytes, too ` +
          `large to send inline; copy it into the workspace to attach it`,
      };
    }
    try {
      const data = Deno.readFileSync(real).toBase64();
      return { name, bytes: size, attachment: { type: "image", media_type, data, name } };
    } catch (e) {
      return { error: `Cannot read ${name}: ${e instanceof Error ? e.message : String(e)}` };
    }
  };
}
