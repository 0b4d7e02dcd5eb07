/**
 * Where a path the model gave really points, and whether that is inside the workspace. Every
 * existing component is resolved through the file system (symlinks included, dangling ones
 * too), so `..`, absolute paths and symlinks cannot hide a location outside the workspace.
 * A component that does not exist yet is kept as written, and resolution goes on after it: a
 * `..` that climbs back out of missing components lands in a real directory again, and what
 * follows is resolved through the file system as before (`new/../link/x` follows `link`).
 *
 * @module
 */
import * as path from "../posix_path.ts";
import type { Risk } from "./tool.ts";
import { isInside } from "../workspace_dir.ts";

// Containment lives with the workspace directory, below both the tools and the sandbox.
export { isInside };

/** Symlinks followed while resolving one path before giving up, as the kernel does. */
const MAX_LINKS = 40;

/**
 * The most components a path given to a file tool may have. Resolving and creating a path costs
 * work per component; without a bound, a path thousands of directories deep keeps the server
 * busy for seconds (and Linux's own `PATH_MAX` of 4096 bytes refuses such paths anyway).
 */
export const MAX_PATH_DEPTH = 128;

/**
 * The number of components of `userPath` (empty ones and `.` not counted).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { pathDepth } from "./workspace.ts";
 * assert(pathDepth("a/./b//c.txt") === 3 && pathDepth("/etc/hosts") === 2);
 * ```
 */
export function pathDepth(userPath: string): number {
  let n = 0;
  for (const part of userPath.split("/")) if (part !== "" && part !== ".") n++;
  return n;
}

/** The message for a path over {@link MAX_PATH_DEPTH}, naming the tool's verb. */
function tooDeep(verb: string, userPath: string, depth: number): string {
  const shown = userPath.length > 60 ? `${userPath.slice(0, 57)}...` : userPath;
  return `Cannot ${verb} "${shown}": the path has ${depth} components, more than the ` +
    `${MAX_PATH_DEPTH} a file tool accepts; use a shorter path`;
}

function isAbsent(err: unknown): boolean {
  return err instanceof Deno.errors.NotFound || err instanceof Deno.errors.NotADirectory;
}

/** A path resolved so far: a physical prefix followed by `missing` components that do not exist. */
interface Resolved {
  path: string;
  missing: number;
}

async function resolvePhysical(absolute: string, links: { count: number }): Promise<Resolved> {
  try {
    return { path: await Deno.realPath(absolute), missing: 0 };
  } catch (err) {
    if (!isAbsent(err)) throw err;
  }
  const parts = absolute.split("/").filter((p) => p !== "" && p !== ".");
  let current = "/";
  let missing = 0;
  for (const part of parts) {
    if (part === "..") {
      // `current` is physical (or physical plus missing names), so its parent is the one the
      // kernel would use once the missing directories exist.
      current = path.dirname(current);
      if (missing > 0) missing--;
      continue;
    }
    const next = path.join(current, part);
    if (missing > 0) {
      // Below a missing directory nothing exists yet.
      current = next;
      missing++;
      continue;
    }
    try {
      current = await Deno.realPath(next);
      continue;
    } catch (err) {
      if (!isAbsent(err)) throw err;
    }
    // Absent, or a symlink whose target is absent: a write would follow the link.
    let target: string | undefined;
    try {
      target = await Deno.readLink(next);
    } catch (err) {
      // Anything but a refusal means "not a symlink": the path is simply absent.
      if (err instanceof Deno.errors.NotCapable || err instanceof Deno.errors.PermissionDenied) {
        throw err;
      }
    }
    if (target === undefined) {
      current = next;
      missing = 1;
      continue;
    }
    if (++links.count > MAX_LINKS) {
      throw new Deno.errors.FilesystemLoop(`Too many symbolic links resolving "${absolute}"`);
    }
    // Not normalised: a `..` in the target must go up from where its symlinks point.
    const resolved = await resolvePhysical(
      path.isAbsolute(target) ? target : `${current}/${target}`,
      links,
    );
    current = resolved.path;
    missing = resolved.missing;
  }
  return { path: current, missing };
}

/**
 * The physical absolute path of `absolute`: symlinks and `..` resolved for every component
 * that exists, missing ones kept as written (a `..` after one removes it again).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { physicalPath } from "./workspace.ts";
 * const dir = await Deno.realPath(await Deno.makeTempDir());
 * assert((await physicalPath(`${dir}/new/../file.txt`)) === `${dir}/file.txt`);
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export function physicalPath(absolute: string): Promise<string> {
  if (!path.isAbsolute(absolute)) {
    throw new TypeError(`Cannot resolve "${absolute}": the path must be absolute`);
  }
  // No lexical normalisation: `link/..` must go up from where the link points, as in the kernel.
  return resolvePhysical(absolute, { count: 0 }).then((r) => r.path);
}

/** A path the model gave, resolved against a workspace. */
export interface Located {
  /** The workspace, physical. */
  root: string;
  /** Where the path really points, physical. */
  absolute: string;
  /** Whether `absolute` is inside `root`. */
  inside: boolean;
}

/**
 * Resolves `userPath` (relative to the workspace, or absolute) to where it really points.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { locate } from "./workspace.ts";
 * const dir = await Deno.makeTempDir();
 * assert((await locate(dir, "a/b.txt")).inside);
 * assert(!(await locate(dir, "../b.txt")).inside);
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function locate(cwd: string, userPath: string): Promise<Located> {
  const depth = pathDepth(userPath);
  if (depth > MAX_PATH_DEPTH) throw new RangeError(tooDeep("resolve", userPath, depth));
  const root = await Deno.realPath(cwd);
  const absolute = await physicalPath(path.isAbsolute(userPath) ? userPath : `${root}/${userPath}`);
  return { root, absolute, inside: isInside(root, absolute) };
}

/**
 * Whether `file`, opened at `absolute`, really is the file `absolute` names now and that lies
 * inside `root`: the second guard of a `read` call, run after opening, so that a symlink
 * swapped in between the approval check and the open cannot lead a read outside unannounced.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openedInside } from "./workspace.ts";
 * const root = await Deno.realPath(await Deno.makeTempDir());
 * await Deno.writeTextFile(`${root}/a.txt`, "a");
 * using file = await Deno.open(`${root}/a.txt`);
 * assert(await openedInside(root, `${root}/a.txt`, file));
 * await Deno.remove(root, { recursive: true });
 * ```
 */
export async function openedInside(
  root: string,
  absolute: string,
  file: Deno.FsFile,
): Promise<boolean> {
  let real: string;
  try {
    real = await Deno.realPath(absolute);
  } catch (err) {
    if (isAbsent(err)) return false; // gone or replaced since the open
    throw err;
  }
  if (!isInside(root, real)) return false;
  const [opened, named] = await Promise.all([file.stat(), Deno.stat(real)]);
  return opened.dev === named.dev && opened.ino === named.ino;
}

/**
 * The risk of reading `userPath`: `read` inside the workspace, `write` outside it or when it
 * cannot be resolved (asking is the safe side).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readRisk } from "./workspace.ts";
 * const dir = await Deno.makeTempDir();
 * assert((await readRisk(dir, "/etc/passwd")) === "write");
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function readRisk(cwd: string, userPath: string): Promise<Risk> {
  try {
    return (await locate(cwd, userPath)).inside ? "read" : "write";
  } catch {
    return "write";
  }
}

/**
 * How a path is shown in tool output: relative to the workspace when inside it, else absolute.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { displayPath } from "./workspace.ts";
 * assert(displayPath("/ws", "/ws/src/a.ts") === "src/a.ts");
 * assert(displayPath("/ws", "/etc/hosts") === "/etc/hosts");
 * ```
 */
export function displayPath(root: string, absolute: string): string {
  if (absolute === root) return ".";
  return isInside(root, absolute) ? path.relative(root, absolute) : absolute;
}

/**
 * The ending (`/`, `/.` or `/..`) that makes `userPath` name a directory, whatever is there;
 * undefined when it has none. The kernel refuses to open a file through such a path, and so
 * do the tools, rather than write or read the file it would otherwise resolve to.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { directoryEnding } from "./workspace.ts";
 * assert(directoryEnding("newdir/") === "/" && directoryEnding("a/..") === "/..");
 * assert(directoryEnding("a.txt") === undefined && directoryEnding("a/...") === undefined);
 * ```
 */
export function directoryEnding(userPath: string): string | undefined {
  return /\/\.{0,2}$/.exec(userPath)?.[0];
}

/** Where a write may go, or why it may not. */
export type WriteTarget =
  | { ok: true; root: string; absolute: string }
  | { ok: false; message: string };

/**
 * Resolves the target of a write and refuses one that leaves the workspace or names a directory
 * by its ending (`newdir/`). Call it again
 * right before writing: a symlink may have appeared since approval.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { writeTarget } from "./workspace.ts";
 * const dir = await Deno.makeTempDir();
 * const t = await writeTarget(dir, "../escape.txt", "write");
 * assert(!t.ok);
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function writeTarget(
  cwd: string,
  userPath: string,
  verb: string,
): Promise<WriteTarget> {
  const ending = directoryEnding(userPath);
  if (ending !== undefined) {
    return {
      ok: false,
      message: `Cannot ${verb} "${userPath}": it ends in "${ending}", so it names a ` +
        `directory; give the path of a file`,
    };
  }
  const depth = pathDepth(userPath);
  if (depth > MAX_PATH_DEPTH) return { ok: false, message: tooDeep(verb, userPath, depth) };
  const { root, absolute, inside } = await locate(cwd, userPath);
  if (!inside) {
    return {
      ok: false,
      message: `Cannot ${verb} "${userPath}": it resolves to "${absolute}", ` +
        `outside the workspace "${root}"; write tools may only change files inside it`,
    };
  }
  if (absolute === root) {
    return { ok: false, message: `Cannot ${verb} "${userPath}": it is the workspace directory` };
  }
  return { ok: true, root, absolute };
}
