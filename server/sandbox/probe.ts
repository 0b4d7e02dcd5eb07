/**
 * Whether the OS sandbox works here, found out once per process and remembered with its reason:
 * a missing binary, a refused namespace or a missing `--allow-run` does not change while scv runs.
 *
 * @module
 */
import type { ProbeResult, SandboxBackend } from "./types.ts";

const cache = new Map<SandboxBackend, Promise<ProbeResult>>();

/**
 * The backend's probe result, computed on the first call and shared by every later one.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { probeOnce } from "./probe.ts";
 * let runs = 0;
 * const backend = {
 *   name: "x", executable: "x", command: () => ({ command: "x", args: [] }),
 *   probe: () => { runs++; return Promise.resolve({ ok: true as const, detail: "" }); },
 * };
 * await probeOnce(backend);
 * await probeOnce(backend);
 * assert(runs === 1);
 * ```
 */
export function probeOnce(backend: SandboxBackend): Promise<ProbeResult> {
  let result = cache.get(backend);
  if (!result) {
    result = backend.probe().catch((err): ProbeResult => ({
      ok: false,
      reason: `the sandbox probe failed: ${String(err)}`,
      fix: 'set "sandbox": "off"',
    }));
    cache.set(backend, result);
  }
  return result;
}
