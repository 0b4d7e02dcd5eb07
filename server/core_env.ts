/**
 * The core environment set: the variables of scv's own environment that every `bash` call and
 * every stdio MCP server gets when scv has them (CONTRACT.md "Environment"). One definition, so
 * the two cannot drift apart. And scv's own PATH, where its helper commands are looked up.
 *
 * @module
 */

/** The core names (with every `LC_*`, see {@link isCoreEnvName}). */
export const CORE_ENV: readonly string[] = [
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "LANG",
  "TERM",
  "TZ",
  "TMPDIR",
];

/**
 * The POSIX and glibc locale categories: what `LC_*` can be read as without enumerating the
 * environment (which a scoped `--allow-env` refuses).
 */
export const LC_NAMES: readonly string[] = [
  "LC_ALL",
  "LC_CTYPE",
  "LC_COLLATE",
  "LC_MESSAGES",
  "LC_MONETARY",
  "LC_NUMERIC",
  "LC_TIME",
  "LC_ADDRESS",
  "LC_IDENTIFICATION",
  "LC_MEASUREMENT",
  "LC_NAME",
  "LC_PAPER",
  "LC_TELEPHONE",
];

/**
 * Whether `name` is in the core set: one of {@link CORE_ENV} or any `LC_*`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isCoreEnvName } from "./core_env.ts";
 * assert.equal(isCoreEnvName("PATH"), true);
 * assert.equal(isCoreEnvName("LC_ALL"), true);
 * assert.equal(isCoreEnvName("OPENAI_API_KEY"), false);
 * ```
 */
export function isCoreEnvName(name: string): boolean {
  return CORE_ENV.includes(name) || name.startsWith("LC_");
}

/** The PATH a call gets when scv has none (or may not read it). */
export const DEFAULT_PATH = "/usr/local/bin:/usr/bin:/bin";

/** The PATH scv's own helper processes (the kill and rename helpers) get when scv has none. */
export const SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin";

/**
 * scv's own PATH (else `fallback`, by default {@link DEFAULT_PATH}): where helper commands are
 * looked up, the way a bash call's PATH finds them (Deno resolves a command with the PATH given
 * to the child). Without --allow-env the fallback does.
 */
export function scvPath(fallback: string = DEFAULT_PATH): string {
  try {
    return Deno.env.get("PATH") || fallback;
  } catch {
    return fallback;
  }
}

/**
 * The executable `name` found on `path` (a `PATH` value), with its stat, looked up without
 * spawning anything (a spawn blocks the event loop for milliseconds; a few synchronous stats cost
 * microseconds), when scv may run it (`--allow-run`); `undefined` otherwise, or when it cannot be
 * told (the lookup is not allowed, or the executable is elsewhere).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { runnableOnPath } from "./core_env.ts";
 * assert.equal(runnableOnPath("no-such-binary-here", "/usr/bin:/bin"), undefined);
 * ```
 */
export function runnableOnPath(
  name: string,
  path: string,
): { file: string; stat: Deno.FileInfo } | undefined {
  for (const dir of path.split(":")) {
    if (!dir.startsWith("/")) continue;
    const file = `${dir.replace(/\/+$/, "")}/${name}`;
    try {
      const stat = Deno.statSync(file);
      if (!stat.isFile || ((stat.mode ?? 0) & 0o111) === 0) continue;
      if (Deno.permissions.querySync({ name: "run", command: file }).state !== "granted") {
        return undefined;
      }
      return { file, stat };
    } catch {
      continue;
    }
  }
  return undefined;
}
