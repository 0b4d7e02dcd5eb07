/**
 * The environment of a `bash` call, sandboxed or not: an empty one plus the core set (`PATH`,
 * `HOME`, `USER`, `LOGNAME`, `SHELL`, `LANG`, `LC_*`, `TERM`, `TZ`, `TMPDIR`), the names and
 * `PREFIX_*` globs of `shell_env_passthrough`, and the call marker. The provider's key and any
 * variable whose name contains `KEY`, `TOKEN`, `SECRET` or `PASSWORD` pass only when named
 * exactly. Under a scoped `--allow-env` each name is read on its own, and a name scv may not
 * read is left out, so nothing here needs more than the variables it hands on.
 *
 * @module
 */
import { CORE_ENV, DEFAULT_PATH, isCoreEnvName, LC_NAMES } from "../core_env.ts";

const SECRET_NAME = /KEY|TOKEN|SECRET|PASSWORD/i;

/** Where scv's environment is read from (injectable for tests). */
export interface EnvSource {
  /** The whole environment, or undefined when it may not be listed (scoped `--allow-env`). */
  all(): Record<string, string> | undefined;
  /** One variable; undefined when unset or not readable. */
  get(name: string): string | undefined;
}

/** scv's own environment, read within its Deno permissions. */
export const denoEnv: EnvSource = {
  all: () => {
    if (Deno.permissions.querySync({ name: "env" }).state !== "granted") return undefined;
    try {
      return Deno.env.toObject();
    } catch {
      return undefined;
    }
  },
  get: (name) => {
    try {
      return Deno.env.get(name);
    } catch {
      return undefined;
    }
  },
};

/** Whether `name` matches a `shell_env_passthrough` entry (a name, or a `PREFIX_*` glob). */
function matches(entry: string, name: string): boolean {
  return entry.endsWith("*") ? name.startsWith(entry.slice(0, -1)) : name === entry;
}

/** What a call's environment is built from. */
export interface CallEnvOptions {
  /** `shell_env_passthrough`. */
  passthrough: readonly string[];
  /** Variables that pass only when named exactly (the provider's key). */
  secrets: readonly string[];
}

/**
 * The environment of one call (without its marker).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { callEnv } from "./bash_env.ts";
 * const env = { PATH: "/bin", OPENAI_API_KEY: "sk", GITHUB_TOKEN: "t", MY_A: "1", X: "2" };
 * const source = { all: () => env, get: (n: string) => env[n as keyof typeof env] };
 * assert.deepEqual(
 *   callEnv({ passthrough: ["MY_*"], secrets: ["OPENAI_API_KEY"] }, source),
 *   { PATH: "/bin", MY_A: "1" },
 * );
 * ```
 */
export function callEnv(
  options: CallEnvOptions,
  source: EnvSource = denoEnv,
): Record<string, string> {
  const out: Record<string, string> = {};
  const allowed = (name: string): boolean => {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) return false;
    const exact = options.passthrough.includes(name);
    if (exact) return true;
    // A secret-looking name, or the key itself, passes only when named exactly.
    if (SECRET_NAME.test(name) || options.secrets.includes(name)) return false;
    if (isCoreEnvName(name)) return true;
    return options.passthrough.some((e) => matches(e, name));
  };
  const all = source.all();
  if (all) {
    for (const [name, value] of Object.entries(all)) if (allowed(name)) out[name] = value;
  } else {
    const exact = options.passthrough.filter((e) => !e.endsWith("*"));
    for (const name of [...CORE_ENV, ...LC_NAMES, ...exact]) {
      const value = source.get(name);
      if (value !== undefined && allowed(name)) out[name] = value;
    }
  }
  out.PATH ??= DEFAULT_PATH;
  return out;
}
