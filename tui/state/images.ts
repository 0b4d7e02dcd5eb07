/**
 * Images in the composer (scv 0.3): a pasted path of an image file (what a terminal sends on
 * drag and drop) becomes an attachment chip at once, an `@path` mention of one becomes a chip
 * when the prompt is sent; chips show as `[image 1: shot.png 240 KB]` above the composer and in
 * the transcript, Backspace at the start of the composer removes the last one, and they go out
 * as `turn.start.attachments`.
 *
 * @module
 */
import { MAX_ATTACHMENTS } from "../../protocol/mod.ts";
import type { ClientState, ComposerImage, Effect } from "./model.ts";
import { notice } from "./transcript.ts";

export type { ComposerImage, ImageReader } from "./model.ts";

/** A chip's text. */
export function chipLabel(index: number, image: Pick<ComposerImage, "name" | "bytes">): string {
  const size = image.bytes < 1000
    ? `${image.bytes} B`
    : image.bytes < 1_000_000
    ? `${Math.round(image.bytes / 1000)} KB`
    : `${(image.bytes / 1_000_000).toFixed(1)} MB`;
  return `[image ${index + 1}: ${image.name} ${size}]`;
}

/** The chips of the composer's images, one per line. */
export function chipLabels(images: readonly ComposerImage[]): string[] {
  return images.map((image, i) => chipLabel(i, image));
}

/** Adds an image to the composer; false (with a notice) when it is full. */
function addImage(state: ClientState, image: ComposerImage): boolean {
  if (state.images.length >= MAX_ATTACHMENTS) {
    notice(state, "warn", `At most ${MAX_ATTACHMENTS} images go with one prompt`);
    return false;
  }
  state.images.push(image);
  return true;
}

/**
 * A paste that is one image file's path becomes a chip; true when it did (or was refused with
 * a notice), false when the paste is ordinary text.
 */
export function pasteImage(state: ClientState, text: string): boolean {
  const read = state.readImage;
  const line = text.trim();
  if (!read || line === "" || line.includes("\n")) return false;
  const got = read(line);
  if (got === undefined) return false;
  if ("error" in got) {
    notice(state, "error", got.error);
    return true;
  }
  addImage(state, got);
  return true;
}

/** Backspace at the start of the composer: removes the last chip; false when there is none. */
export function removeLastImage(state: ClientState): boolean {
  if (state.images.length === 0 || state.composer.cursor !== 0) return false;
  state.images.pop();
  return true;
}

/**
 * The images of a prompt being sent: the composer's chips, then each `@path` mention of an
 * image file (`paths`, in order); mentions that name no image are left to the text mentions.
 * Returns the images and the mentioned paths that became images.
 */
export function takeImages(
  state: ClientState,
  paths: readonly string[],
): { images: ComposerImage[]; used: string[] } {
  const used: string[] = [];
  const read = state.readImage;
  for (const path of paths) {
    const got = read?.(path);
    if (got === undefined) continue;
    used.push(path);
    if ("error" in got) notice(state, "error", got.error);
    else if (!addImage(state, got)) break;
  }
  const images = state.images;
  state.images = [];
  return { images, used };
}

/** Ctrl+V: asks the shell for the clipboard's image. */
export function requestClipboardImage(state: ClientState): Effect[] {
  state.hint = "Reading the clipboard…";
  return [{ kind: "paste-image" }];
}

/** The clipboard's image arrived (or why there is none): a chip, or a notice. */
export function applyClipboardImage(
  state: ClientState,
  got: ComposerImage | { error: string },
): void {
  state.version++;
  if (state.hint === "Reading the clipboard…") state.hint = undefined;
  if ("error" in got) notice(state, "warn", got.error);
  else addImage(state, got);
}
