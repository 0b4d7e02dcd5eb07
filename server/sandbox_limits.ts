/**
 * The `sandbox_limits` config key: its shape, defaults and validation, beside the config it is
 * part of (the sandbox applies them: `sandbox/limits.ts`).
 *
 * @module
 */

/** `sandbox_limits` as configured. */
export interface SandboxLimits {
  /** Heap (`RLIMIT_DATA`: private writable memory) per process, in MiB. */
  memory_mb: number;
  /** Processes (`RLIMIT_NPROC`, and the cgroup's `pids.max` where there is one). */
  processes: number;
  /** Largest file a command may write (`RLIMIT_FSIZE`), in MiB. */
  file_size_mb: number;
  /** CPU seconds per process (`RLIMIT_CPU`); null: none. */
  cpu_seconds: number | null;
}

/** The contract's defaults. */
export const DEFAULT_SANDBOX_LIMITS: Readonly<SandboxLimits> = Object.freeze({
  memory_mb: 4096,
  processes: 512,
  file_size_mb: 1024,
  cpu_seconds: null,
});

/**
 * `sandbox_limits` from a config value: each key a positive integer (`cpu_seconds` also null),
 * missing keys taking the defaults; a RangeError naming the key otherwise.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { validateSandboxLimits } from "./sandbox_limits.ts";
 * assert.equal(validateSandboxLimits({ processes: 64 }).memory_mb, 4096);
 * assert.throws(() => validateSandboxLimits({ memory_mb: 0 }), /"sandbox_limits.memory_mb"/);
 * ```
 */
export function validateSandboxLimits(value: unknown): SandboxLimits {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new RangeError('"sandbox_limits" must be an object');
  }
  const out: SandboxLimits = { ...DEFAULT_SANDBOX_LIMITS };
  for (const [key, v] of Object.entries(value)) {
    if (!Object.hasOwn(DEFAULT_SANDBOX_LIMITS, key)) {
      throw new RangeError(
        `"sandbox_limits" has an unknown key "${key.slice(0, 40)}"; known keys are ` +
          Object.keys(DEFAULT_SANDBOX_LIMITS).join(", "),
      );
    }
    const ok = typeof v === "number" && Number.isSafeInteger(v) && v > 0 &&
      v <= (key === "processes" ? 1_000_000 : 1_048_576);
    if (!ok && !(key === "cpu_seconds" && v === null)) {
      throw new RangeError(
        `"sandbox_limits.${key}" must be a positive integer` +
          (key === "cpu_seconds" ? " or null" : "") + `, got ${JSON.stringify(v)}`,
      );
    }
    (out as unknown as Record<string, unknown>)[key] = v;
  }
  return out;
}
