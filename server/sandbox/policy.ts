/**
 * From scv's settings and its own Deno permissions to what one sandboxed command may do. A
 * sandbox never grants more than scv has: a directory scv may not write stays read-only inside,
 * and the network is only shared when scv's own `--allow-net` is unscoped.
 *
 * @module
 */
import * as path from "../posix_path.ts";
import type { SandboxMode } from "../config.ts";
import { isInside as within } from "../workspace_dir.ts";
import type { ActiveSandboxMode, HiddenPath, SandboxSpec } from "./types.ts";
import type { SandboxLimits } from "./limits.ts";

/** The sandbox settings of the configuration, with `~` and scv's own directories resolved. */
export interface SandboxSettings {
  mode: SandboxMode;
  /** `sandbox_network` true (the host's network); a list is {@link hosts}. */
  network: boolean;
  /** `sandbox_network`'s host patterns: reached through scv's proxy only. */
  hosts?: readonly string[];
  writableRoots: readonly string[];
  /** `sandbox_deny_read` with `~` expanded (entries needing an unknown home are dropped). */
  denyRead: readonly string[];
  /** scv's config and state directories: always hidden. */
  scvDirs: readonly string[];
  /**
   * The directory of scv's own build (`dist/` of the checkout scv runs from, see cli/dist.ts),
   * which the next start would run: read-only to commands where a writable directory holds it.
   */
  scvBuild?: string | undefined;
  /** `sandbox_readable_roots` with `~` expanded: readable under a scoped `--allow-read`. */
  readableRoots?: readonly string[];
  /** `HOME`, to bind when scv may read it under a scoped `--allow-read`. */
  home?: string | undefined;
  /** `sandbox_limits`. */
  limits?: SandboxLimits;
}

/**
 * What a shell needs to run: bound read-only (when they exist) under a scoped `--allow-read`,
 * where nothing else of the host's root is shown.
 */
export const SYSTEM_READ_DIRS: readonly string[] = Object.freeze([
  "/usr",
  "/bin",
  "/sbin",
  "/lib",
  "/lib32",
  "/lib64",
  "/libx32",
  "/etc",
  "/opt",
]);

/** What scv itself may do, as Deno's permissions say (injectable for tests). */
export interface PermissionView {
  /** Whether scv may read `path` (and below). */
  canRead(path: string): boolean;
  /** Whether scv may write `path` (and below). */
  canWrite(path: string): boolean;
  /** Whether scv's `--allow-net` is granted for every host (not scoped, not absent). */
  netUnscoped(): boolean;
  /** Whether scv's `--allow-read` is granted for every path (absent: as if it were). */
  readUnscoped?(): boolean;
}

/** The permission view of the running process. */
export const denoPermissions: PermissionView = {
  canRead: (p) => Deno.permissions.querySync({ name: "read", path: p }).state === "granted",
  canWrite: (p) => Deno.permissions.querySync({ name: "write", path: p }).state === "granted",
  netUnscoped: () => Deno.permissions.querySync({ name: "net" }).state === "granted",
  readUnscoped: () => Deno.permissions.querySync({ name: "read" }).state === "granted",
};

/**
 * Expands `~` and `~/...` with `home`; undefined when the path needs a home that is unknown.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { expandHome } from "./policy.ts";
 * assert(expandHome("~/.ssh", "/home/u") === "/home/u/.ssh");
 * assert(expandHome("~/.ssh", undefined) === undefined);
 * ```
 */
export function expandHome(p: string, home: string | undefined): string | undefined {
  if (p !== "~" && !p.startsWith("~/")) return p;
  if (!home?.startsWith("/")) return undefined;
  return p === "~" ? home : path.join(home, p.slice(2));
}

/**
 * scv's config and state directories: `$XDG_CONFIG_HOME/scv` (else `~/.config/scv`) and
 * `$XDG_STATE_HOME/scv` (else `~/.local/state/scv`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { scvDirectories } from "./policy.ts";
 * const env: Record<string, string> = { HOME: "/h", XDG_STATE_HOME: "/s" };
 * assert.deepEqual(scvDirectories((n) => env[n]), ["/h/.config/scv", "/s/scv"]);
 * ```
 */
export function scvDirectories(env: (name: string) => string | undefined): string[] {
  const home = env("HOME");
  const dirs: string[] = [];
  for (
    const [xdg, fallback] of [["XDG_CONFIG_HOME", ".config"], ["XDG_STATE_HOME", ".local/state"]]
  ) {
    const base = env(xdg!);
    if (base?.startsWith("/")) dirs.push(path.join(base, "scv"));
    else if (home?.startsWith("/")) dirs.push(path.join(home, fallback!, "scv"));
  }
  return dirs;
}

/**
 * The build directory of the scv checkout that `mainModule` (its `main.ts`) starts: `dist/`
 * beside it, when that is a checkout with `deno task build` (cli/build_dist.ts); undefined
 * otherwise (a compiled binary, a module from a registry).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { scvBuildDir } from "./policy.ts";
 * assert.equal(scvBuildDir("https://jsr.io/@scv/scv/0.3.0/main.ts"), undefined);
 * ```
 */
export function scvBuildDir(mainModule: string = Deno.mainModule): string | undefined {
  if (!mainModule.startsWith("file:")) return undefined;
  const root = path.dirname(decodeURIComponent(new URL(mainModule).pathname));
  try {
    if (!Deno.statSync(path.join(root, "cli", "build_dist.ts")).isFile) return undefined;
  } catch {
    return undefined;
  }
  return path.join(root, "dist");
}

/** The physical path of `p`, or undefined when nothing is there (or it cannot be seen). */
async function real(p: string): Promise<string | undefined> {
  try {
    return await Deno.realPath(p);
  } catch {
    return undefined;
  }
}

/** The effective mode and network of a workspace, with the reason when less than asked. */
export interface EffectiveSandbox {
  mode: ActiveSandboxMode;
  network: boolean;
  /** Why the sandbox is narrower than the settings ask, when it is. */
  notes: string[];
}

/**
 * The mode and network a workspace gets: `workspace-write` becomes `read-only` when scv may
 * not write the workspace, and the network stays off unless scv's `--allow-net` is unscoped.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { effectiveSandbox } from "./policy.ts";
 * const e = effectiveSandbox("workspace-write", true, "/w", {
 *   canRead: () => true, canWrite: () => false, netUnscoped: () => false,
 * });
 * assert(e.mode === "read-only" && e.network === false && e.notes.length === 2);
 * ```
 */
export function effectiveSandbox(
  mode: ActiveSandboxMode,
  network: boolean,
  workspace: string,
  perms: PermissionView,
): EffectiveSandbox {
  const notes: string[] = [];
  let effective = mode;
  if (mode === "workspace-write" && !perms.canWrite(workspace)) {
    effective = "read-only";
    notes.push("scv may not write the workspace (--allow-write), so commands may not either");
  }
  let net = network;
  if (network && !perms.netUnscoped()) {
    net = false;
    notes.push("scv's --allow-net is scoped or absent, so sandboxed commands get no network");
  }
  return { mode: effective, network: net, notes };
}

/**
 * Finds what is at paths scv may not read itself (a locked-down run still hides `~/.ssh`): the
 * physical path and kind of each that exists. The bubblewrap implementation asks a read-only
 * sandbox; the answer reveals existence, never content.
 */
export type LookupUnreadable = (paths: readonly string[]) => Promise<HiddenPath[]>;

/**
 * The spec of one command in `workspace` (physical): the writable directories scv may write
 * itself, `.git/hooks` and `.git/config` of each read-only (a missing `.git/hooks` is created
 * first, so a command cannot plant one), and the hidden paths that exist and hold none of the
 * writable directories.
 */
export async function buildSpec(
  settings: SandboxSettings,
  workspace: string,
  perms: PermissionView,
  lookup: LookupUnreadable,
): Promise<SandboxSpec> {
  const configured: ActiveSandboxMode = settings.mode === "read-only"
    ? "read-only"
    : "workspace-write";
  const eff = effectiveSandbox(configured, settings.network, workspace, perms);
  const writable: string[] = [];
  if (eff.mode === "workspace-write") {
    writable.push(workspace);
    for (const root of settings.writableRoots) {
      const r = await real(root);
      if (r === undefined || !perms.canWrite(r)) continue;
      try {
        if (!(await Deno.stat(r)).isDirectory) continue;
      } catch {
        continue;
      }
      if (!writable.some((w) => within(w, r))) writable.push(r);
    }
  }
  const readOnly: string[] = [];
  for (const dir of writable) {
    const git = path.join(dir, ".git");
    try {
      if (!(await Deno.lstat(git)).isDirectory) continue;
    } catch {
      continue;
    }
    await Deno.mkdir(path.join(git, "hooks")).catch(() => {});
    for (const name of ["hooks", "config"]) {
      const r = await real(path.join(git, name));
      if (r !== undefined && writable.some((w) => within(w, r))) readOnly.push(r);
    }
  }
  // scv's own build runs at scv's next start, outside any sandbox: like a git hook, a command
  // may not plant one (a missing dist/ is made first, empty, which is no build).
  const build = settings.scvBuild;
  const buildParent = build === undefined ? undefined : await real(path.dirname(build));
  if (
    build !== undefined && buildParent !== undefined && writable.some((w) => within(w, buildParent))
  ) {
    await Deno.mkdir(build).catch(() => {});
    const r = await real(build);
    if (r !== undefined && writable.some((w) => within(w, r))) readOnly.push(r);
  }
  const found: HiddenPath[] = [];
  const unreadable: string[] = [];
  for (const p of [...settings.denyRead, ...settings.scvDirs]) {
    if (!perms.canRead(p)) {
      unreadable.push(p);
      continue;
    }
    const r = await real(p);
    if (r === undefined) continue;
    try {
      found.push({ path: r, directory: (await Deno.stat(r)).isDirectory });
    } catch {
      continue;
    }
  }
  if (unreadable.length > 0) found.push(...await lookup(unreadable));
  const readable = perms.readUnscoped?.() === false
    ? await scopedReadable(settings, workspace, writable, perms)
    : undefined;
  const hidden: HiddenPath[] = [];
  for (const h of found.sort((a, b) => a.path.length - b.path.length)) {
    if (h.path === "/" || !h.path.startsWith("/")) continue;
    // Hiding a directory that holds the workspace would hide the workspace too.
    if (writable.some((w) => within(h.path, w)) || within(h.path, workspace)) continue;
    if (hidden.some((x) => within(x.path, h.path))) continue;
    // Under scoped reads a path outside every bound directory is not there to hide.
    if (readable && ![...readable, ...writable].some((r) => within(r, h.path))) continue;
    hidden.push(h);
  }
  const spec: SandboxSpec = {
    mode: eff.mode,
    workspace,
    writable,
    readOnly,
    hidden,
    network: eff.network,
  };
  if (readable) spec.readable = readable;
  return spec;
}

/**
 * What a command may read under a scoped `--allow-read` besides the writable directories: the
 * {@link SYSTEM_READ_DIRS}, the `sandbox_readable_roots` (the user's own grant, as for
 * toolchains under `HOME`), the workspace, and of `HOME` and the writable roots those scv may
 * read itself (Deno cannot list its grants, so each candidate is asked).
 */
async function scopedReadable(
  settings: SandboxSettings,
  workspace: string,
  writable: readonly string[],
  perms: PermissionView,
): Promise<string[]> {
  const out: string[] = [...SYSTEM_READ_DIRS];
  const add = (p: string | undefined) => {
    if (p === undefined || !p.startsWith("/") || p === "/") return;
    if (out.some((o) => within(o, p)) || writable.some((w) => within(w, p))) return;
    out.push(p);
  };
  // Bound where the user named it (a symlinked toolchain is found at its usual path).
  for (const root of settings.readableRoots ?? []) add(root);
  add(workspace);
  for (const p of [settings.home, ...settings.writableRoots]) {
    if (p === undefined || !perms.canRead(p)) continue;
    add(await real(p));
  }
  return out;
}

/**
 * The sandbox scv's own helper commands run in (the probe, the path lookups): the whole
 * filesystem read-only, nothing writable or hidden, no network. A fresh object each time.
 */
export function helperSpec(): SandboxSpec {
  return {
    mode: "read-only",
    workspace: "/",
    writable: [],
    readOnly: [],
    hidden: [],
    network: false,
  };
}
