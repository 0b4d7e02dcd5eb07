/**
 * The built CLI (`deno task build`, cli/build_dist.ts): each command's module bundled by
 * `deno bundle --code-splitting` into `dist/<build>/<command>/`, with `dist/manifest.json` naming the build
 * and the size and modification time of each source file it was made from. `main.ts` runs a
 * command from the build when the manifest still describes every one of those files, and from
 * the sources otherwise: a checkout that was edited, pulled or never built runs what it holds.
 *
 * Why a build: `deno run` reads, checks and compiles each module of a graph on its own, ~0.3 ms
 * apiece; a text turn's ~190 local modules were a quarter of its wall time, and the one npm
 * package on its path (@noble/hashes) booted Deno's Node layer (docs/performance.md). The build
 * joins them into a few chunks and takes @noble/hashes in; the other npm packages stay external,
 * loaded when a run first needs them, as from the sources.
 *
 * A process that runs a build holds a shared lock on the build's `lease` file for its whole life;
 * the build's pruning removes an older build only when it can lock that file exclusively, so a
 * server or an editor's agent started from it keeps loading its chunks.
 *
 * This module is read on every start: it imports nothing.
 *
 * @module
 */

/** The commands `main.ts` imports by name, each from `cli/<name>.ts` or from the build. */
export const COMMANDS = [
  "server_command",
  "acp_command",
  "exec",
  "command_line",
  "sessions_command",
  "sandbox_check",
  "protocol_schema",
  "rules_command",
  "tui_command",
] as const;

/** One of {@link COMMANDS}. */
export type CommandName = typeof COMMANDS[number];

/** The manifest's format; a manifest of another version is not read. */
export const DIST_FORMAT = 1;

/** What `dist/manifest.json` holds. */
export interface DistManifest {
  /** {@link DIST_FORMAT}. */
  format: number;
  /** The build's directory under `dist/`. */
  build: string;
  /** Each source file the build was made from, by path from the root: `[size, mtime ms]`. */
  sources: Record<string, [number, number]>;
}

/** A source file's size and modification time, or `undefined` when it cannot be read. */
export type StatOf = (path: string) => [number, number] | undefined;

/**
 * The build directory `manifest` names when every source file it lists still has the size and
 * modification time it had at the build (`stat` reads them), or `undefined`: a manifest that is
 * not one, names no sources, or names a build outside `dist/`, is no build.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { freshBuild } from "./dist.ts";
 * const manifest = { format: 1, build: "b1", sources: { "cli/exec.ts": [10, 5] } };
 * assert.equal(freshBuild(manifest, () => [10, 5]), "b1");
 * assert.equal(freshBuild(manifest, () => [10, 6]), undefined);
 * ```
 */
export function freshBuild(manifest: unknown, stat: StatOf): string | undefined {
  if (typeof manifest !== "object" || manifest === null) return undefined;
  const m = manifest as Partial<DistManifest>;
  if (m.format !== DIST_FORMAT || typeof m.build !== "string") return undefined;
  if (!/^[A-Za-z0-9_-]+$/.test(m.build)) return undefined;
  const sources = m.sources;
  if (typeof sources !== "object" || sources === null) return undefined;
  const entries = Object.entries(sources);
  if (entries.length === 0) return undefined;
  for (const [path, want] of entries) {
    if (!Array.isArray(want) || want.length !== 2) return undefined;
    const got = stat(path);
    if (got === undefined || got[0] !== want[0] || got[1] !== want[1]) return undefined;
  }
  return m.build;
}

/** A file's `[size, mtime ms]` as the build records it, or `undefined`. */
export function statOf(path: string): [number, number] | undefined {
  try {
    const info = Deno.statSync(path);
    if (!info.isFile || info.mtime === null) return undefined;
    return [info.size, info.mtime.getTime()];
  } catch {
    return undefined;
  }
}

/**
 * The build that `dir/dist/manifest.json` names while it is fresh, or `undefined`: no manifest, a
 * torn one, or a stale one. Shared by the start (`freshDist`) and the build, which makes nothing
 * new while this answers.
 */
export function manifestBuild(dir: string): string | undefined {
  try {
    const manifest = JSON.parse(Deno.readTextFileSync(`${dir}/dist/manifest.json`));
    return freshBuild(manifest, (p) => statOf(`${dir}/${p}`));
  } catch {
    return undefined;
  }
}

/** The file of a build that its processes hold a shared lock on (see the module's comment). */
export const LEASE_FILE = "lease";

/** The leases this process holds, by build directory: open, locked, never closed. */
const leases = new Map<string, Deno.FsFile>();

/**
 * Takes a shared lock on the build at `dir` for this process's life; false when the build is
 * being removed (its lease locked exclusively) or has no lease.
 */
export function holdBuild(dir: string): boolean {
  if (leases.has(dir)) return true;
  try {
    const file = Deno.openSync(`${dir}/${LEASE_FILE}`, { read: true });
    if (!file.tryLockSync(false)) {
      file.close();
      return false;
    }
    leases.set(dir, file);
    return true;
  } catch {
    return false;
  }
}

const decided = new Map<string, URL | undefined>();

/**
 * The URL of the fresh build's directory under `root` (scv's own directory, a `file:` URL), or
 * `undefined` to run from the sources: no build, a stale one, one being removed, a root that is
 * not a directory on disk (a JSR run, a compiled binary), `SCV_FROM_SOURCES=1`, or no read access
 * to the manifest (asked first, so a run without it is never prompted). Decided once per process;
 * a build it names is held (see {@link holdBuild}).
 */
export function freshDist(root: URL): URL | undefined {
  if (!decided.has(root.href)) decided.set(root.href, decide(root));
  return decided.get(root.href);
}

function decide(root: URL): URL | undefined {
  if (root.protocol !== "file:") return undefined;
  const dir = decodeURIComponent(root.pathname).replace(/\/$/, "");
  try {
    if (
      Deno.permissions.querySync({ name: "env", variable: "SCV_FROM_SOURCES" }).state === "granted"
    ) {
      if (Deno.env.get("SCV_FROM_SOURCES") === "1") return undefined;
    }
    if (Deno.permissions.querySync({ name: "read", path: dir }).state !== "granted") {
      return undefined;
    }
    const build = manifestBuild(dir);
    if (build === undefined || !holdBuild(`${dir}/dist/${build}`)) return undefined;
    return new URL(`dist/${build}/`, root);
  } catch {
    return undefined;
  }
}
