/**
 * Resource limits of sandboxed commands (`sandbox_limits`): memory, process count, file size and
 * optional CPU seconds, set with `prlimit` (util-linux) on the command inside the sandbox, and the
 * process count also by a `pids` cgroup where one can be made (the only bound that holds for a
 * root user, whom the kernel exempts from `RLIMIT_NPROC`). Which limit a failed command hit is
 * read from its output and exit status, in one line for the model. Pure.
 *
 * @module
 */

import type { SandboxLimits } from "../sandbox_limits.ts";

export {
  DEFAULT_SANDBOX_LIMITS,
  type SandboxLimits,
  validateSandboxLimits,
} from "../sandbox_limits.ts";

const MIB = 1024 * 1024;

/**
 * The `prlimit` command line that runs `argv` under `limits` (soft and hard limit alike).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { prlimitArgv, DEFAULT_SANDBOX_LIMITS } from "./limits.ts";
 * assert.deepEqual(prlimitArgv(DEFAULT_SANDBOX_LIMITS, ["true"]), [
 *   "prlimit", "--data=4294967296", "--nproc=512", "--fsize=1073741824", "--", "true",
 * ]);
 * ```
 */
export function prlimitArgv(limits: SandboxLimits, argv: readonly string[]): string[] {
  const out = [
    "prlimit",
    `--data=${limits.memory_mb * MIB}`,
    `--nproc=${limits.processes}`,
    `--fsize=${limits.file_size_mb * MIB}`,
  ];
  if (limits.cpu_seconds !== null) out.push(`--cpu=${limits.cpu_seconds}`);
  out.push("--", ...argv);
  return out;
}

/** How a command ended, as far as the limit hint needs it. */
export interface Ending {
  code: number;
  signal: string | null;
}

const OUT_OF_MEMORY = new RegExp(
  [
    "MemoryError",
    "Cannot allocate memory",
    "out of memory",
    "bad_alloc",
    "ENOMEM",
    "memory allocation of \\d+ bytes failed",
    "Allocation failed",
  ].join("|"),
  "i",
);
const NO_FORK =
  /fork: (retry: )?Resource temporarily unavailable|BlockingIOError|EAGAIN.*fork|fork.*EAGAIN|Cannot fork|can't fork/i;

/**
 * The line naming the limit a failed command hit, or undefined when it shows none: a refused
 * fork (the cgroup's count or the output), a failed allocation, `SIGXFSZ`/"File too large",
 * `SIGXCPU`/"CPU time limit exceeded".
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { limitHint, DEFAULT_SANDBOX_LIMITS } from "./limits.ts";
 * const hint = limitHint("MemoryError", { code: 1, signal: null }, DEFAULT_SANDBOX_LIMITS);
 * assert(hint?.includes('"memory_mb"'));
 * ```
 */
export function limitHint(
  output: string,
  ending: Ending,
  limits: SandboxLimits,
): string | undefined {
  const line = (what: string, key: keyof SandboxLimits, value: string) =>
    `[sandbox: the command hit its ${what} limit (${value}); raise "sandbox_limits"."${key}" ` +
    "to allow more]";
  if (NO_FORK.test(output)) {
    return line("process", "processes", `${limits.processes} processes`);
  }
  // bash reports a child killed by a signal as 128 + its number (SIGXCPU 24, SIGXFSZ 25).
  if (
    ending.signal === "SIGXFSZ" || ending.code === 153 || /File too large|EFBIG/i.test(output)
  ) {
    return line("file size", "file_size_mb", `${limits.file_size_mb} MiB per file`);
  }
  if (
    limits.cpu_seconds !== null &&
    (ending.signal === "SIGXCPU" || ending.code === 152 || /CPU time limit exceeded/i.test(output))
  ) {
    return line("CPU time", "cpu_seconds", `${limits.cpu_seconds} s`);
  }
  if (OUT_OF_MEMORY.test(output)) {
    return line("memory", "memory_mb", `${limits.memory_mb} MiB per process`);
  }
  return undefined;
}

/**
 * The shell script that bounds a call's processes with a `pids` cgroup: it makes
 * `scv-<owner>-<id>` (`owner` is scv's pid) under cgroup v1's `pids` hierarchy (or v2's root),
 * writes `pids.max`, joins it, runs the sandbox (`$4...`) as its child, then leaves the cgroup
 * and removes it. It runs as a shell because Deno 2.9 lets only `--allow-all` touch `/sys`.
 * Where no cgroup can be made it just becomes the sandbox. A call killed outright leaves its
 * empty cgroup to {@link CGROUP_CLEANUP}, which scv runs when the call ends and when it closes;
 * the cgroups of an scv that no longer runs (killed with SIGKILL) are removed by the next
 * launch of any scv. With `$2` = `probe` it says `pids-cgroup` when it could join.
 */
export const PIDS_LAUNCHER = String.raw`
max=$1 id=$2 owner=$3; shift 3
base=/sys/fs/cgroup/pids; [ -f "$base/cgroup.procs" ] || base=/sys/fs/cgroup
for d in "$base"/scv-[0-9]*-*; do
  [ -d "$d" ] || continue; p=$(basename "$d" | cut -d- -f2)
  # Kept while its scv runs (kill -0, or /proc for another user's); removed once it is gone.
  kill -0 "$p" 2>/dev/null || [ "$(cat /proc/$p/comm 2>/dev/null)" != "" ] || rmdir "$d" 2>/dev/null
done
cg="$base/scv-$owner-$id"
if mkdir "$cg" 2>/dev/null && [ -f "$cg/pids.max" ] && echo "$max" > "$cg/pids.max" &&
  echo $$ > "$cg/cgroup.procs"; then
  if [ "$id" = probe ]; then echo pids-cgroup; rc=0; else "$@"; rc=$?; fi
  echo $$ > "$base/cgroup.procs"
  for i in 1 2 3 4 5 6 7 8 9 10; do rmdir "$cg" 2>/dev/null && break; sleep 0.05; done
  exit $rc
fi
[ -d "$cg" ] && rmdir "$cg" 2>/dev/null
[ "$id" = probe ] && exit 0
exec "$@"
`;

/**
 * {@link PIDS_LAUNCHER} started before its call is known, in bash: it makes and joins the call's
 * cgroup at once, then reads the call from its stdin ({@link standbyInput}: a count of
 * environment entries, the entries, the command line, each ended by NUL) and runs it as its
 * child, with exactly that environment and no stdin. Joining a cgroup waits for an RCU grace
 * period (10-17 ms on this project's machines, cgroup v1), which so passes while the call is
 * being made ready (its checkpoint snapshot) instead of after. Leaving it would wait as long
 * again, after the call: the launcher exits in it instead, and its empty cgroup is removed by the
 * next standby launcher (the ids after `$3`, this scv's calls that ended) or by scv's cleanup
 * when the sandbox closes. A stdin closed before a whole call came (scv did not need it) runs
 * nothing. Where no cgroup can be made, the call runs without one.
 */
export const STANDBY_LAUNCHER = String.raw`
max=$1 id=$2 owner=$3; shift 3
base=/sys/fs/cgroup/pids; [ -f "$base/cgroup.procs" ] || base=/sys/fs/cgroup
for d in "$base"/scv-[0-9]*-*; do
  [ -d "$d" ] || continue; p=$(basename "$d" | cut -d- -f2)
  kill -0 "$p" 2>/dev/null || [ "$(cat /proc/$p/comm 2>/dev/null)" != "" ] || rmdir "$d" 2>/dev/null
done
for ended; do rmdir "$base/scv-$owner-$ended" 2>/dev/null; done
set --
cg="$base/scv-$owner-$id"
if ! { mkdir "$cg" 2>/dev/null && [ -f "$cg/pids.max" ] &&
  echo "$max" 2>/dev/null > "$cg/pids.max" && echo $$ 2>/dev/null > "$cg/cgroup.procs"; }; then
  [ -d "$cg" ] && rmdir "$cg" 2>/dev/null
fi
if ! IFS= read -r -d '' n || ! [[ $n =~ ^[0-9]{1,4}$ ]]; then exit 0; fi
i=0
while [ "$i" -lt "$n" ]; do
  IFS= read -r -d '' kv || exit 0; set -- "$@" "$kv"; i=$((i + 1))
done
IFS= read -r -d '' cmd || exit 0
found=$(command -v -- "$cmd") && cmd=$found
while IFS= read -r -d '' a; do set -- "$@" "$a"; done
(
  for v in $(compgen -e); do unset "$v" 2>/dev/null; done
  while [ "$n" -gt 0 ]; do export "$1"; shift; n=$((n - 1)); done
  exec "$cmd" "$@" </dev/null
)
`;

/**
 * The command line of {@link STANDBY_LAUNCHER} for call `id` of scv `owner` with at most `max`
 * processes, removing the cgroups of the `ended` calls: in bash, killed when scv dies.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { standbyLauncher } from "./limits.ts";
 * const l = standbyLauncher(64, "3", 4242);
 * assert.equal(l.command, "bash");
 * assert.deepEqual(l.args.slice(-3), ["64", "3", "4242"]);
 * ```
 */
export function standbyLauncher(
  max: number,
  id: string,
  owner: number = Deno.pid,
  ended: readonly string[] = [],
): { command: string; args: string[] } {
  return shellLine(STANDBY_LAUNCHER, [String(max), id, String(owner), ...ended], true, true);
}

/**
 * What {@link STANDBY_LAUNCHER} reads for its call: the number of `env` entries, the entries
 * (`NAME=value`), then `argv`, each ended by NUL. Rejects what cannot be said so: a NUL in a
 * name, value or argument, a name with `=`, no command.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { standbyInput } from "./limits.ts";
 * const bytes = standbyInput({ A: "1" }, ["bwrap", "--", "true"]);
 * assert.equal(new TextDecoder().decode(bytes), "1\0A=1\0bwrap\0--\0true\0");
 * ```
 */
export function standbyInput(env: Record<string, string>, argv: readonly string[]): Uint8Array {
  const entries = Object.entries(env);
  if (argv.length === 0) throw new Error("no command");
  for (const [k, v] of entries) {
    if (k === "" || k.includes("=") || k.includes("\0") || v.includes("\0")) {
      throw new Error(`an environment entry the launcher cannot take: ${JSON.stringify(k)}`);
    }
  }
  if (argv.some((a) => a.includes("\0"))) throw new Error("an argument holds NUL");
  const fields = [String(entries.length), ...entries.map(([k, v]) => `${k}=${v}`), ...argv];
  return new TextEncoder().encode(fields.map((f) => f + "\0").join(""));
}

/**
 * The shell script that removes the cgroups {@link PIDS_LAUNCHER} made for scv `$1`: those of
 * the call ids after it, or with none, every one of that scv. A cgroup whose processes are still
 * being reaped is tried again for at most a second; one still busy then is left (it is empty
 * once they are gone, and the next launch after this scv ended removes it).
 */
export const CGROUP_CLEANUP = String.raw`
owner=$1; shift
base=/sys/fs/cgroup/pids; [ -f "$base/cgroup.procs" ] || base=/sys/fs/cgroup
if [ $# -eq 0 ]; then set -- "$base"/scv-"$owner"-*; else
  for id; do set -- "$@" "$base/scv-$owner-$id"; shift; done
fi
for cg; do
  for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
    [ -d "$cg" ] || break; rmdir "$cg" 2>/dev/null && break; sleep 0.05
  done
done
exit 0
`;

/**
 * Runs `bash -c "$@"` killed with its parent (scv): through `setpriv --pdeathsig` where it is
 * installed, so that a launcher whose scv died (SIGKILL) takes its sandbox with it (bwrap's
 * `--die-with-parent` then ends every process of the call).
 */
const WITH_PARENT =
  'command -v setpriv >/dev/null 2>&1 && exec setpriv --pdeathsig KILL -- bash -c "$@"; ' +
  'exec bash -c "$@"';

/**
 * Runs a script as {@link pidsLauncher} does: in bash, or in a pass-through bwrap; `withParent`:
 * it dies with scv.
 */
function shellLine(script: string, args: readonly string[], bash: boolean, withParent: boolean) {
  const line = ["-c", script, "scv-limits", ...args];
  if (bash) {
    return withParent
      ? { command: "bash", args: ["-c", WITH_PARENT, "scv-limits", script, "scv-limits", ...args] }
      : { command: "bash", args: line };
  }
  return {
    command: "bwrap",
    args: [
      "--bind",
      "/",
      "/",
      "--dev-bind",
      "/dev",
      "/dev",
      ...(withParent ? ["--die-with-parent"] : []),
      "--",
      "/bin/sh",
      ...line,
    ],
  };
}

/**
 * The command line that runs `argv` (the sandbox's) through {@link PIDS_LAUNCHER} with at most
 * `max` processes, in cgroup `scv-<owner>-<id>`: in `bash` where scv may run it, else in a
 * pass-through bwrap (the host's whole file system, /dev and /sys, no namespace but its mount
 * one) under `--allow-run=bwrap` alone; either way killed when scv dies.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { pidsLauncher } from "./limits.ts";
 * const l = pidsLauncher(64, "1", ["bwrap", "--", "true"], true, 4242);
 * assert.equal(l.command, "bash");
 * assert.deepEqual(l.args.slice(-6), ["64", "1", "4242", "bwrap", "--", "true"]);
 * ```
 */
export function pidsLauncher(
  max: number,
  id: string,
  argv: readonly string[],
  bash: boolean,
  owner: number = Deno.pid,
): { command: string; args: string[] } {
  return shellLine(PIDS_LAUNCHER, [String(max), id, String(owner), ...argv], bash, true);
}

/**
 * The command line of {@link CGROUP_CLEANUP} for scv `owner`'s calls `ids` (none: all of them),
 * run the way {@link pidsLauncher} runs.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { cgroupCleanup } from "./limits.ts";
 * assert.deepEqual(cgroupCleanup(["3"], true, 4242).args.slice(-2), ["4242", "3"]);
 * ```
 */
export function cgroupCleanup(
  ids: readonly string[],
  bash: boolean,
  owner: number = Deno.pid,
): { command: string; args: string[] } {
  return shellLine(CGROUP_CLEANUP, [String(owner), ...ids], bash, false);
}
