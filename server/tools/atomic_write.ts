/**
 * Writes a file inside the workspace so that readers see the old or the new content, never a
 * half-written one (a temporary file in the same directory, then a rename), and so that no
 * concurrent change can make the write land outside the workspace.
 *
 * Why a helper process: a path is resolved again by the kernel at every system call, so a
 * directory of it swapped for a symlink between a check and the write (or the workspace itself
 * replaced by one) redirects a write by path. Only a directory handle the kernel holds is safe,
 * and Deno has no `openat`; worse, Deno's own `chdir` does not help, because with any
 * `--allow-read`/`--allow-write` flag Deno turns every relative name into `getcwd()` + name
 * before the system call (strace: `openat(AT_FDCWD, "/ws/sub/.scv-….tmp")`, `rename("/ws/sub/…",
 * "/ws/sub/x")`), and the kernel walks that path again. So a short fixed bash script does the
 * work: its working directory is the handle, and every system call it makes names one
 * component relative to it (`chdir("sub")`, `openat(AT_FDCWD, ".scv-….tmp")`,
 * `renameat2(AT_FDCWD, …, AT_FDCWD, "x")`). After each step down, and before it creates
 * anything, it asks the kernel whether it is still inside the workspace it holds (see
 * write_helper.ts, which also keeps that helper for the whole run instead of one per write),
 * and stops unless so. A symlink swapped in afterwards changes nothing; one swapped in before
 * is seen by the check.
 *
 * The helper never writes where scv may not: scv's own Deno write permission for the file (and
 * for each directory it may create) is checked first. It runs as `bash` when scv may run bash,
 * else through `bwrap` with the host's root read-only and only the workspace writable, so even
 * the helper itself cannot write outside.
 *
 * @module
 */
import * as path from "../posix_path.ts";
import { isInside } from "./workspace.ts";
import { type HelperKind, helperWrite } from "./write_helper.ts";

/** A write the workspace rules refuse; its message is meant for the model. */
export class OutsideWorkspaceError extends Error {
  /** Creates the error for `absolute`, which is outside `root`. */
  constructor(absolute: string, root: string) {
    super(`it resolves to "${absolute}", outside the workspace "${root}"`);
    this.name = "OutsideWorkspaceError";
  }
}

function granted(desc: Deno.PermissionDescriptor): boolean {
  return Deno.permissions.querySync(desc).state === "granted";
}

/** Which helper scv may run; throws `NotCapable` when it may run neither. */
function helperKind(): HelperKind {
  if (granted({ name: "run", command: "bash" })) return "bash";
  if (granted({ name: "run", command: "bwrap" })) return "bwrap";
  throw new Deno.errors.NotCapable(
    // Deno finds the command on PATH to check the permission: a missing bash is refused here.
    "Requires --allow-run=bash (or --allow-run=bwrap), and that executable on PATH: files are " +
      "written by a small helper so that no concurrent change can redirect the write",
  );
}

/** The error a write that `scv` may not do throws, as Deno words it. */
function noWrite(p: string): Deno.errors.NotCapable {
  return new Deno.errors.NotCapable(
    `Requires write access to "${p}", run again with the --allow-write flag`,
  );
}

/**
 * Writes `data` to `absolute` (physical, inside the physical workspace `root`), creating parent
 * directories. Throws `OutsideWorkspaceError`, having written nothing outside, when the
 * workspace or a parent no longer resolves inside `root`, `Deno.errors.NotCapable` when scv
 * may not write there (or may run no helper), and the file system's errors otherwise; on
 * failure no temporary file is left behind. The helper is awaited to its end, so nothing of
 * the write happens after this settles. An aborted `signal` stops the write before the helper
 * starts; once started it is not killed midway (that could leave its temporary file behind,
 * and under bwrap `--die-with-parent` would SIGKILL it): its work is bounded by the path's
 * depth (`MAX_PATH_DEPTH`) and the data's size, and ends in milliseconds.
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
export async function atomicWrite(
  root: string,
  absolute: string,
  data: Uint8Array,
  signal?: AbortSignal,
): Promise<void> {
  if (!isInside(root, absolute) || absolute === root) {
    throw new OutsideWorkspaceError(absolute, root);
  }
  // scv's own permission first: the helper has the user's rights, not scv's.
  if (!granted({ name: "write", path: absolute })) throw noWrite(absolute);
  const dirs = path.relative(root, absolute).split("/");
  const base = dirs.pop()!;
  // Permissions cover a path and all below it: the first directory scv may write, and all
  // deeper ones, may be created; those above must exist already.
  let mkfrom = 0;
  while (mkfrom < dirs.length && !granted({ name: "write", path: dirPath(root, dirs, mkfrom) })) {
    mkfrom++;
  }
  let mode = "";
  try {
    const info = await Deno.lstat(absolute);
    if (info.isDirectory) throw new Deno.errors.IsADirectory(`"${absolute}" is a directory`);
    // Keep an existing file's permissions (an executable script stays executable). Read by
    // path, so a swap may show another file's mode; it only ever sets bits of this file.
    const bits = (info.mode ?? 0o644) & 0o7777;
    if (info.isFile && bits !== 0o644) mode = bits.toString(8);
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound || err instanceof Deno.errors.NotADirectory)) {
      throw err;
    }
  }
  if (signal?.aborted) throw signal.reason;
  const tmp = `.scv-${crypto.randomUUID()}.tmp`;
  const mvflag = Deno.build.os === "linux" ? "-T" : "-h";
  const kind = helperKind();
  let reply;
  try {
    reply = await helperWrite(kind, root, [
      base,
      tmp,
      mode,
      String(mkfrom),
      mvflag,
      String(data.length),
      data.includes(0) ? "head" : "read",
      ...dirs,
    ], data);
  } catch (err) {
    // Not "no such file": the model would take it for its own path.
    if (err instanceof Deno.errors.NotFound) {
      throw new Error(`no "${kind}" executable was found on PATH to run the write helper`);
    }
    throw err;
  }
  const said = reply.message;
  switch (reply.code) {
    case 0:
      return;
    case 3:
      throw new OutsideWorkspaceError(said, root);
    case 4:
      throw new Deno.errors.NotFound(`The workspace "${root}" no longer exists`);
    case 5:
      throw new Deno.errors.NotADirectory(`A parent of "${absolute}" is not a directory`);
    case 6:
      throw new Deno.errors.IsADirectory(`"${absolute}" is a directory`);
    case 7:
      throw noWrite(dirPath(root, dirs, Number(said)));
    case 10:
      // The workspace was replaced twice over while this write waited: it did not happen.
      throw new Error(`the workspace "${root}" was replaced during the write; nothing was written`);
  }
  const why = said || `the write helper ended with status ${reply.code}`;
  if (/permission denied/i.test(why)) {
    throw new Deno.errors.PermissionDenied(`Cannot write "${absolute}": ${why}`);
  }
  if (kind === "bwrap" && reply.code === -1) {
    throw new Error(`the sandbox that writes files could not start (${why})`);
  }
  throw new Error(why);
}

/** The path of directory `i` of `dirs` below `root`. */
function dirPath(root: string, dirs: string[], i: number): string {
  return path.join(root, ...dirs.slice(0, i + 1));
}
