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

/** The physical path of the deepest ancestor of `dir` (or `dir` itself) that exists. */
async function deepestExisting(dir: string): Promise<{ real: string; missing: string[] }> {
  const missing: string[] = [];
  for (let p = dir;; p = path.dirname(p)) {
    try {
      return { real: await Deno.realPath(p), missing: missing.reverse() };
    } catch (err) {
      const absent = err instanceof Deno.errors.NotFound ||
        err instanceof Deno.errors.NotADirectory;
      if (!absent || p === "/") throw err;
    }
    missing.push(path.basename(p));
  }
}

/**
 * Creates the parent directory of `absolute` without ever creating anything outside `root`:
 * the deepest existing ancestor is checked first, then the missing directories are made one
 * at a time, each checked again after it is made (a symlink may appear in between). Returns
 * the parent's physical path.
 */
async function makeParent(root: string, absolute: string): Promise<string> {
  const { real, missing } = await deepestExisting(path.dirname(absolute));
  if (!isInside(root, real)) throw new OutsideWorkspaceError(real, root);
  let current = real;
  for (const name of missing) {
    const next = path.join(current, name);
    try {
      await Deno.mkdir(next);
    } catch (err) {
      // Made meanwhile by someone else: fine if it is a directory inside, checked below.
      if (!(err instanceof Deno.errors.AlreadyExists)) throw err;
    }
    try {
      current = await Deno.realPath(next);
    } catch (err) {
      // A dangling symlink was planted at `next`.
      if (err instanceof Deno.errors.NotFound) {
        throw new Deno.errors.NotADirectory(`A parent of "${absolute}" is not a directory`);
      }
      throw err;
    }
    if (!isInside(root, current)) throw new OutsideWorkspaceError(current, root);
  }
  if (!(await Deno.stat(current)).isDirectory) {
    throw new Deno.errors.NotADirectory(`A parent of "${absolute}" is not a directory`);
  }
  return current;
}

/**
 * Writes `data` to `absolute` (physical, inside the physical `root`), creating parent
 * directories. Throws `OutsideWorkspaceError`, before creating anything, if the parent no
 * longer resolves inside `root`, and the file system's errors otherwise; on failure no
 * temporary file is left behind.
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
  const parent = await makeParent(root, absolute);
  const target = path.join(parent, path.basename(absolute));

  let mode: number | undefined;
  try {
    const info = await Deno.stat(target);
    if (info.isDirectory) throw new Deno.errors.IsADirectory(`"${target}" is a directory`);
    mode = info.mode ?? undefined;
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }

  // A fixed-length name, so that a target name near the file system's limit still fits.
  const temp = path.join(parent, `.scv-${crypto.randomUUID()}.tmp`);
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
