/**
 * Opening a file inside the workspace the way `read_file` does, for every reader that takes a
 * path from outside the model's tool calls (image attachments by path, `files.read` for a
 * mentioned `@path`): resolved through symbolic links, a regular file, and checked after the
 * open to be the very file inside, so a symlink swapped in between cannot lead a read outside.
 *
 * @module
 */
import { fileErrorMessage } from "./permission.ts";
import { locate, openedInside } from "./workspace.ts";

/** A regular file of the workspace, open for reading; the caller closes `file`. */
export interface ContainedFile {
  /** The open file. */
  file: Deno.FsFile;
  /** Its metadata, taken before the open. */
  info: Deno.FileInfo;
  /** The workspace, physical. */
  root: string;
  /** Where the path really points, physical. */
  absolute: string;
}

/** Why a path was not opened, and the sentence saying so. */
export interface ContainedRefusal {
  /** `missing`: nothing there; `outside`: not in the workspace; `not_file`: a directory or a device; `unreadable`: any other failure. */
  reason: "missing" | "outside" | "not_file" | "unreadable";
  /** One sentence naming the path. */
  message: string;
}

/**
 * Opens `userPath` (relative to `cwd`, or absolute) when it is a regular file inside the
 * workspace; otherwise says why not.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openContained } from "./contained_file.ts";
 * const dir = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${dir}/a.txt`, "a");
 * const got = await openContained(dir, "a.txt");
 * assert("file" in got && got.info.size === 1);
 * if ("file" in got) got.file.close();
 * const out = await openContained(dir, "../x");
 * assert(!("file" in out) && out.reason === "outside");
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function openContained(
  cwd: string,
  userPath: string,
): Promise<ContainedFile | ContainedRefusal> {
  let file: Deno.FsFile | undefined;
  try {
    const { root, absolute, inside } = await locate(cwd, userPath);
    if (!inside) {
      return { reason: "outside", message: `"${userPath}" is outside the workspace "${root}"` };
    }
    const info = await Deno.stat(absolute);
    if (!info.isFile) return { reason: "not_file", message: `"${userPath}" is not a regular file` };
    file = await Deno.open(absolute, { read: true });
    if (!(await openedInside(root, absolute, file).catch(() => false))) {
      file.close();
      return {
        reason: "outside",
        message: `"${userPath}" changed while being opened and may now lead outside the workspace`,
      };
    }
    return { file, info, root, absolute };
  } catch (e) {
    file?.close();
    return {
      reason: e instanceof Deno.errors.NotFound ? "missing" : "unreadable",
      message: fileErrorMessage(e, { verb: "read", path: userPath, flag: "--allow-read" }),
    };
  }
}

/**
 * The first `limit` bytes of a file from where it stands (fewer at its end).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readAtMost } from "./contained_file.ts";
 * const path = await Deno.makeTempFile();
 * await Deno.writeTextFile(path, "hello");
 * using file = await Deno.open(path);
 * assert.equal(new TextDecoder().decode(await readAtMost(file, 3)), "hel");
 * await Deno.remove(path);
 * ```
 */
export async function readAtMost(file: Deno.FsFile, limit: number): Promise<Uint8Array> {
  const out = new Uint8Array(limit);
  let n = 0;
  while (n < limit) {
    const got = await file.read(out.subarray(n));
    if (got === null) break;
    n += got;
  }
  return out.subarray(0, n);
}
