/**
 * Reading an image file inside the workspace, bounded and contained as `read_file` reads: for
 * `turn.start` attachments by path and for `read_file` of an image.
 *
 * @module
 */
import { basename } from "node:path";

import { checkImage, type CheckOptions } from "../images/attachments.ts";
import { mediaTypeOfName } from "../images/format.ts";
import type { ImagePart } from "../images/image_part.ts";
import { fileErrorMessage } from "./permission.ts";
import { locate, openedInside } from "./workspace.ts";

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
