/**
 * Writes a file inside the workspace so that readers see the old or the new content, never a
 * half-written one (a temporary file in the same directory, then a rename), and so that no
 * concurrent change can make the write land outside the workspace.
 *
 * Why it walks with `chdir`: a path is resolved again by the kernel at every system call, so a
 * directory of it swapped for a symlink between a check and the write (or the workspace itself
 * replaced by one) would redirect a write by path. Deno has no `openat`, but the process's
 * working directory is a directory handle the kernel holds: each step changes into one name,
 * then asks the kernel where it really is (`getcwd`) before going on, and the file is created
 * and renamed by a name relative to it. A symlink swapped in afterwards changes nothing; one
 * swapped in before is seen by the check. Every step is synchronous, so no other code of scv
 * runs while the working directory is borrowed, and it is put back before returning.
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

/** Where the process is now; undefined when scv may not know (no read permission for it). */
function currentDir(): string | undefined {
  try {
    return Deno.cwd();
  } catch {
    return undefined;
  }
}

/** Changes into `name` (one component), creating it first when it is missing. */
function enter(name: string, absolute: string): void {
  try {
    Deno.chdir(name);
    return;
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
  try {
    Deno.mkdirSync(name);
  } catch (err) {
    // Made meanwhile by someone else, or a dangling symlink: the chdir below decides.
    if (!(err instanceof Deno.errors.AlreadyExists)) throw err;
  }
  try {
    Deno.chdir(name);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) {
      throw new Deno.errors.NotADirectory(`A parent of "${absolute}" is not a directory`);
    }
    throw err;
  }
}

/**
 * Writes `data` to `absolute` (physical, inside the physical workspace `root`), creating parent
 * directories. Throws `OutsideWorkspaceError`, having written nothing outside, when the
 * workspace or a parent no longer resolves inside `root`, and the file system's errors
 * otherwise; on failure no temporary file is left behind.
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
export function atomicWrite(root: string, absolute: string, data: Uint8Array): Promise<void> {
  try {
    writeInside(root, absolute, data);
    return Promise.resolve();
  } catch (err) {
    return Promise.reject(err);
  }
}

function writeInside(root: string, absolute: string, data: Uint8Array): void {
  if (!isInside(root, absolute) || absolute === root) {
    throw new OutsideWorkspaceError(absolute, root);
  }
  const parts = path.relative(root, absolute).split("/");
  const base = parts.pop()!;
  const original = currentDir();
  try {
    Deno.chdir(root);
    let here = Deno.cwd();
    // The workspace itself replaced by a symlink (or moved) since the session started.
    if (here !== root) throw new OutsideWorkspaceError(here, root);
    for (const name of parts) {
      enter(name, absolute);
      here = Deno.cwd();
      if (!isInside(root, here)) throw new OutsideWorkspaceError(here, root);
    }
    let mode: number | undefined;
    try {
      const info = Deno.lstatSync(base);
      if (info.isDirectory) {
        throw new Deno.errors.IsADirectory(`"${path.join(here, base)}" is a directory`);
      }
      // Keep an existing file's permissions (an executable script stays executable); a
      // symlink there is replaced by the rename, not written through.
      if (info.isFile) mode = info.mode ?? undefined;
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound)) throw err;
    }
    // Deno turns every relative path into `getcwd()` + the name before the system call, so a
    // directory of `here` swapped for a symlink in that moment would still redirect a write by
    // name. The file is therefore written inside a private directory of an unguessable name,
    // entered and checked like the others: a path swapped afterwards leads where that name does
    // not exist, and the call fails instead of landing outside. (The rename names the target
    // through `here` again; only a swap between its two lookups in one system call is left.)
    const privateName = `.scv-${crypto.randomUUID()}.d`;
    const privateDir = path.join(here, privateName);
    Deno.mkdirSync(privateName, { mode: 0o700 });
    try {
      Deno.chdir(privateName);
      const inside = Deno.cwd();
      if (inside !== privateDir) {
        // Made or entered through a swapped path: remove it where it really is.
        try {
          Deno.removeSync(inside);
        } catch {
          // Not empty or gone: it holds nothing of this call.
        }
        throw new OutsideWorkspaceError(inside, root);
      }
      Deno.writeFileSync("f", data, { createNew: true, mode: 0o644 });
      if (mode !== undefined) Deno.chmodSync("f", mode & 0o7777);
      Deno.renameSync("f", path.join(here, base));
    } finally {
      try {
        Deno.removeSync(privateDir, { recursive: true });
      } catch {
        // Gone with its parent. (Made through a path swapped that moment, an empty directory
        // may stay behind; no file is ever written into it.)
      }
    }
  } finally {
    // Back where scv was; where scv may not know that, the workspace is a safe place to stay.
    try {
      Deno.chdir(original ?? root);
    } catch {
      // The original directory is gone: nothing depends on the working directory.
    }
  }
}
