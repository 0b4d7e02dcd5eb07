/**
 * Reading an image file inside the workspace, bounded and contained as `read_file` reads: for
 * `turn.start` attachments by path and for `read_file` of an image.
 *
 * @module
 */
import { basename } from "../posix_path.ts";

import { checkImage, type CheckOptions } from "../images/attachments.ts";
import { mediaTypeOfName } from "../images/format.ts";
import type { ImagePart } from "../images/image_part.ts";
import { fileErrorMessage } from "./permission.ts";
import { openContained, readAtMost } from "./contained_file.ts";

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
  const opened = await openContained(cwd, userPath);
  if (!("file" in opened)) return opened.message;
  const { file, info } = opened;
  try {
    if (info.size > maxImageBytes) {
      return `it is ${info.size} bytes, over max_image_bytes (${maxImageBytes})`;
    }
    const bytes = await readAtMost(file, maxImageBytes + 1);
    return checkImage(bytes, { name, claimed, maxImageBytes });
  } catch (e) {
    return fileErrorMessage(e, { verb: "read", path: userPath, flag: "--allow-read" });
  } finally {
    file.close();
  }
}
