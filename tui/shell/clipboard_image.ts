/**
 * Ctrl+V's clipboard image: asked of `wl-paste` under Wayland, else of `xclip` under X11, with a
 * time limit and a size bound; the image goes inline (as a pasted file outside the workspace
 * does). Running either needs them in `--allow-run` (`deno task start` grants both).
 *
 * @module
 */
import type { ImageMediaType } from "../../protocol/mod.ts";
import { IMAGE_MEDIA_TYPES } from "../../protocol/mod.ts";
import type { ComposerImage } from "../state/images.ts";
import { MAX_INLINE_IMAGE_BYTES } from "./image_reader.ts";

/** How long one clipboard command may take. */
const CLIPBOARD_TIMEOUT_MS = 3000;

/** Runs `cmd`, returning at most `max` bytes of its stdout (undefined when it failed). */
async function output(cmd: string, args: string[], max: number): Promise<Uint8Array | undefined> {
  const child = new Deno.Command(cmd, {
    args,
    stdin: "null",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const timer = setTimeout(() => {
    try {
      child.kill("SIGKILL");
    } catch {
      // Already gone.
    }
  }, CLIPBOARD_TIMEOUT_MS);
  try {
    const chunks: Uint8Array[] = [];
    let total = 0;
    for await (const chunk of child.stdout) {
      total += chunk.length;
      chunks.push(chunk);
      if (total > max) {
        try {
          child.kill("SIGKILL");
        } catch {
          // Already gone.
        }
        break;
      }
    }
    const status = await child.status;
    if (total <= max && !status.success) return undefined;
    const out = new Uint8Array(total);
    let at = 0;
    for (const c of chunks) {
      out.set(c, at);
      at += c.length;
    }
    return out;
  } finally {
    clearTimeout(timer);
  }
}

/** The clipboard tool for this session's display, with its two command lines. */
function tool(env: (name: string) => string | undefined) {
  if (env("WAYLAND_DISPLAY")) {
    return {
      name: "wl-paste",
      types: ["--list-types"],
      read: (type: string) => ["--no-newline", "--type", type],
    };
  }
  if (env("DISPLAY")) {
    return {
      name: "xclip",
      types: ["-selection", "clipboard", "-t", "TARGETS", "-o"],
      read: (type: string) => ["-selection", "clipboard", "-t", type, "-o"],
    };
  }
  return undefined;
}

/** The clipboard's image as a chip, or why there is none (one line for a notice). */
export async function readClipboardImage(
  env: (name: string) => string | undefined = (n) => Deno.env.get(n),
): Promise<ComposerImage | { error: string }> {
  const t = tool(env);
  if (!t) return { error: "Ctrl+V pastes an image only under Wayland (wl-paste) or X11 (xclip)" };
  let types: Uint8Array | undefined;
  try {
    types = await output(t.name, t.types, 64 * 1024);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return { error: `Ctrl+V needs ${t.name}, not found` };
    if (e instanceof Deno.errors.NotCapable) {
      return { error: `Ctrl+V needs ${t.name} in --allow-run (deno task start grants it)` };
    }
    return { error: `Cannot ask ${t.name} for the clipboard: ${String(e)}` };
  }
  const offered = new TextDecoder().decode(types ?? new Uint8Array()).split(/\s+/);
  const type = IMAGE_MEDIA_TYPES.find((m) => offered.includes(m)) as ImageMediaType | undefined;
  if (type === undefined) return { error: "The clipboard holds no image (PNG, JPEG, GIF, WebP)" };
  const bytes = await output(t.name, t.read(type), MAX_INLINE_IMAGE_BYTES).catch(() => undefined);
  if (bytes === undefined || bytes.length === 0) {
    return { error: `${t.name} gave no image from the clipboard` };
  }
  if (bytes.length > MAX_INLINE_IMAGE_BYTES) {
    return {
      error:
        `The clipboard image is over ${MAX_INLINE_IMAGE_BYTES} bytes; save it into the workspace and paste its path`,
    };
  }
  const name = `clipboard.${type.slice("image/".length).replace("jpeg", "jpg")}`;
  return {
    name,
    bytes: bytes.length,
    attachment: { type: "image", media_type: type, data: bytes.toBase64(), name },
  };
}
