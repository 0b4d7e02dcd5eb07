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
 * `scv-<scv's pid>-<id>` under cgroup v1's `pids` hierarchy (or v2's root), writes `pids.max`,
 * joins it, runs the sandbox (`$3...`) as its child, then leaves the cgroup and removes it. It
 * runs as a shell because Deno 2.9 lets only `--allow-all` touch `/sys`. Where no cgroup can be
 * made it just becomes the sandbox. A call killed outright leaves an empty cgroup, which the next
 * call of the same scv removes. With `$2` = `probe` it says `pids-cgroup` when it could join.
 */
export const PIDS_LAUNCHER = String.raw`
max=$1 id=$2; shift 2
base=/sys/fs/cgroup/pids; [ -f "$base/cgroup.procs" ] || base=/sys/fs/cgroup
for d in "$base"/scv-$PPID-*; do [ -d "$d" ] && rmdir "$d" 2>/dev/null; done
cg="$base/scv-$PPID-$id"
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
 * The command line that runs `argv` (the sandbox's) through {@link PIDS_LAUNCHER} with at most
 * `max` processes: in `bash` where scv may run it, else in a pass-through bwrap (the host's whole
 * file system, /dev and /sys, no namespace but its mount one) under `--allow-run=bwrap` alone.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { pidsLauncher } from "./limits.ts";
 * const l = pidsLauncher(64, "1", ["bwrap", "--", "true"], true);
 * assert.equal(l.command, "bash");
 * assert.deepEqual(l.args.slice(-5), ["64", "1", "bwrap", "--", "true"]);
 * ```
 */
export function pidsLauncher(
  max: number,
  id: string,
  argv: readonly string[],
  bash: boolean,
): { command: string; args: string[] } {
  const script = ["-c", PIDS_LAUNCHER, "scv-limits", String(max), id, ...argv];
  return bash ? { command: "bash", args: script } : {
    command: "bwrap",
    args: ["--bind", "/", "/", "--dev-bind", "/dev", "/dev", "--", "/bin/sh", ...script],
  };
}
