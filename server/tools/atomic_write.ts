/**
 * Writes a file inside the workspace so that readers see the old or the new content, never a
 * half-written one: the bytes go to a temporary file in the same directory, then a rename puts
 * it in place. The rename replaces a symlink at the target rather than writing through it, and
 * the parent is resolved again right before writing, so a symlink planted after the check
 * cannot redirect the write outside.
 *
 * @module
 */
import * as path from "node:path";
import { isInside } from "./workspace.ts";

/** A write the workspace rules refuse; its message is meant for the model. */
export class OutsideWorkspaceError extends Error {
  /** Creates the error for `absolute`, which is outside `root`. */
  constructor(absolute: string, root: string) {
    super(`it resolves to "${absolute}", outside the workspace "${root}"`);
    this.name = "OutsideWorkspaceError";
  }
}

/**
 * Writes `data` to `absolute` (physical, inside the physical `root`), creating parent
 * directories. Throws `OutsideWorkspaceError` if the parent no longer resolves inside `root`,
 * and the file system's errors otherwise; on failure no temporary file is left behind.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { atomicWrite } from "./atomic_write.ts";
 * const root = await Deno.realPath(await Deno.makeTempDir());
 * await atomicWrite(root, `${root}/sub/a.txt`, new TextEncoder().encode("hi"));
 * assert((await Deno.readTextFile(`${root}/sub/a.txt`)) === "hi");
 * await Deno.remove(root, { recursive: true });
 * ```
 */
export async function atomicWrite(root: string, absolute: string, data: Uint8Array) {
  if (!isInside(root, absolute) || absolute === root) {
    throw new OutsideWorkspaceError(absolute, root);
  }
  try {
    await Deno.mkdir(path.dirname(absolute), { recursive: true });
  } catch (err) {
    // mkdir -p reports a file in the way as "already exists", which misleads.
    if (err instanceof Deno.errors.AlreadyExists) {
      throw new Deno.errors.NotADirectory(`A parent of "${absolute}" is not a directory`);
    }
    throw err;
  }
  const parent = await Deno.realPath(path.dirname(absolute));
  if (!isInside(root, parent)) throw new OutsideWorkspaceError(parent, root);
  const target = path.join(parent, path.basename(absolute));

  let mode: number | undefined;
  try {
    const info = await Deno.stat(target);
    if (info.isDirectory) throw new Deno.errors.IsADirectory(`"${target}" is a directory`);
    mode = info.mode ?? undefined;
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }

  const temp = path.join(parent, `.${path.basename(target)}.scv-${crypto.randomUUID()}.tmp`);
  try {
    await Deno.writeFile(temp, data, { createNew: true, mode: 0o644 });
    // Keep an existing file's permissions (an executable script stays executable).
    if (mode !== undefined) await Deno.chmod(temp, mode & 0o7777);
    await Deno.rename(temp, target);
  } catch (err) {
    await Deno.remove(temp).catch(() => {});
    throw err;
  }
}
