/**
 * A sandbox probe that succeeded, remembered across processes in scv's state directory
 * (`sandbox-probe.json`), so that a start need not spawn bubblewrap before `session.started`:
 * the probe's spawn was the text turn's only process, ~7-15 ms of its start (the first spawn of
 * a process blocks the event loop; docs/performance.md).
 *
 * Only a success is remembered, and only for the same scv version, kernel release, user, the
 * kernel's settings for unprivileged user namespaces (the sysctls and the AppArmor switch bwrap's
 * own failure names) and bwrap binary (its path, size, modification time and inode on scv's
 * PATH), for a day at most. The file lives in the user's state directory; what scv may not read
 * (the user id and kernel release need `--allow-sys`, and Deno lets only `--allow-all` read
 * `/proc`) is left out of the key, asked first so that nothing prompts.
 * A failure is asked again by the next process: a sandbox that starts working is used at once.
 * A remembered success that no longer holds fails closed: the sandboxed call fails with bwrap's
 * own error, which makes the sandbox forget the memory (`Sandbox.setupFailed`), so the next
 * process probes afresh.
 *
 * Beside the success, what the sandbox's limits found out with processes of their own, once per
 * process before (a bwrap looking for `prlimit` inside, a trial launch in a `pids` cgroup; ~10
 * ms of processes at every tool turn's first call): {@link SandboxFacts}, kept as long as the
 * success is, under the same key. A stale one fails as the success does: a `prlimit` gone fails
 * the call with bwrap's own error (forgotten with the rest); a `pids` cgroup that can no longer
 * be made leaves the launcher running the sandbox without one, as it does wherever none can.
 *
 * @module
 */
import { SCV_VERSION } from "../../protocol/constants.ts";
import { runnableOnPath } from "../core_env.ts";

/** How long a remembered success holds. */
export const PROBE_MEMORY_MS = 24 * 60 * 60 * 1000;

/** The memory file's name in the state directory. */
export const PROBE_MEMORY_FILE = "sandbox-probe.json";

/** The memory file's largest size read; a larger one is not scv's. */
const MAX_MEMORY_BYTES = 4096;

/**
 * What identifies the probe's conditions: `executable` as found on `path` (a `PATH` value) by
 * `stat`, with scv's version, the kernel release and the user. `undefined` when the executable
 * is not found there, cannot be looked at, or scv may not run it (`--allow-run`): then nothing
 * is remembered, and the probe says why the sandbox cannot start.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { probeKey } from "./probe_memory.ts";
 * assert.equal(probeKey("no-such-binary-here", "/usr/bin:/bin"), undefined);
 * ```
 */
export function probeKey(executable: string, path: string): string | undefined {
  const found = runnableOnPath(executable, path);
  if (!found) return undefined;
  const { file, stat } = found;
  return [
    SCV_VERSION,
    Deno.build.os,
    sysAllowed("osRelease") ? Deno.osRelease() : "",
    sysAllowed("uid") ? String(Deno.uid() ?? "") : "",
    ...USERNS_SETTINGS.map(readAllowed),
    file,
    stat.size,
    stat.mtime?.getTime() ?? "",
    stat.ino ?? "",
  ].join("|");
}

/** The kernel's switches for unprivileged user namespaces, where this kernel has them. */
const USERNS_SETTINGS = [
  "/proc/sys/kernel/unprivileged_userns_clone",
  "/proc/sys/user/max_user_namespaces",
  "/proc/sys/kernel/apparmor_restrict_unprivileged_userns",
];

function sysAllowed(kind: "uid" | "osRelease"): boolean {
  try {
    return Deno.permissions.querySync({ name: "sys", kind }).state === "granted";
  } catch {
    return false;
  }
}

/** A small file's text where scv may read it (asked first: no prompt), else "". */
function readAllowed(path: string): string {
  try {
    if (Deno.permissions.querySync({ name: "read", path }).state !== "granted") return "";
    return Deno.readTextFileSync(path).trim().slice(0, 100);
  } catch {
    return "";
  }
}

/** What the sandbox's limits found out, remembered beside a success. */
export interface SandboxFacts {
  /** Where `prlimit` is inside the sandbox. */
  prlimit?: string;
  /** A `pids` cgroup could be made and joined. */
  pidsCgroup?: true;
}

/** The memory under `key` in `file`, when it is from less than {@link PROBE_MEMORY_MS} ago. */
function read(
  file: string,
  key: string,
  now: number,
): { at: number; facts: SandboxFacts } | undefined {
  try {
    const st = Deno.statSync(file);
    if (!st.isFile || st.size > MAX_MEMORY_BYTES) return undefined;
    const m = JSON.parse(Deno.readTextFileSync(file)) as {
      key?: unknown;
      at?: unknown;
      facts?: { prlimit?: unknown; pidsCgroup?: unknown };
    };
    if (m.key !== key || typeof m.at !== "number" || m.at > now) return undefined;
    if (now - m.at >= PROBE_MEMORY_MS) return undefined;
    const facts: SandboxFacts = {};
    // Only an absolute path is taken: it is run inside the sandbox as it stands.
    const prlimit = m.facts?.prlimit;
    if (typeof prlimit === "string" && /^\/[^\0]{1,255}$/.test(prlimit)) facts.prlimit = prlimit;
    if (m.facts?.pidsCgroup === true) facts.pidsCgroup = true;
    return { at: m.at, facts };
  } catch {
    return undefined; // none, torn, or not readable: probe
  }
}

/** Whether `file` remembers a success under `key` from less than {@link PROBE_MEMORY_MS} ago. */
export function remembered(file: string, key: string, now: number = Date.now()): boolean {
  return read(file, key, now) !== undefined;
}

/** The facts remembered beside the success under `key` ({} without one). */
export function rememberedFacts(file: string, key: string, now: number = Date.now()): SandboxFacts {
  return read(file, key, now)?.facts ?? {};
}

/**
 * Adds `facts` to the success remembered under `key`, which keeps its time (they expire with
 * it); without one, nothing is written. Best effort, like {@link remember}.
 */
export function rememberFacts(
  file: string,
  key: string,
  facts: SandboxFacts,
  now: number = Date.now(),
): void {
  const found = read(file, key, now);
  if (found) write(file, { key, at: found.at, facts: { ...found.facts, ...facts } });
}

/**
 * Remembers a success under `key` in `file` (mode 0600, written whole through a temporary file
 * and a rename, so that a crash leaves the old memory or the new one). Best effort: a state
 * directory scv may not write leaves nothing remembered.
 */
export function remember(file: string, key: string, now: number = Date.now()): void {
  write(file, { key, at: now });
}

/** Writes a memory whole (a temporary file renamed over it); best effort. */
function write(file: string, memory: { key: string; at: number; facts?: SandboxFacts }): void {
  const dir = file.slice(0, file.lastIndexOf("/"));
  const tmp = `${file}.${Deno.pid}.tmp`;
  try {
    Deno.mkdirSync(dir, { recursive: true, mode: 0o700 });
    Deno.writeTextFileSync(tmp, JSON.stringify(memory) + "\n", { mode: 0o600 });
    Deno.renameSync(tmp, file);
  } catch {
    try {
      Deno.removeSync(tmp);
    } catch {
      // Never written.
    }
  }
}

/** Forgets what `file` remembers (a remembered success that did not hold). */
export function forget(file: string): void {
  try {
    Deno.removeSync(file);
  } catch {
    // Nothing remembered.
  }
}
