/**
 * Whether the OS sandbox works here, found out once per process and remembered with its reason:
 * a missing binary, a refused namespace or a missing `--allow-run` does not change while scv runs.
 *
 * @module
 */
import type { ProbeResult, SandboxBackend } from "./types.ts";
import { forget, probeKey, remember, remembered } from "./probe_memory.ts";
import { scvPath } from "../core_env.ts";

const cache = new Map<SandboxBackend, Promise<ProbeResult>>();

/** Where a success is remembered across processes (probe_memory.ts). */
export interface ProbeMemory {
  /** The memory file. */
  file: string;
  /** Probe whatever is remembered, and remember (or forget) what this probe finds. */
  fresh?: boolean;
}

/** The `detail` of a success taken from the memory rather than from a trial run. */
export const REMEMBERED_DETAIL = "bubblewrap worked in a trial run within the last day";

/**
 * The backend's probe result, computed on the first call and shared by every later one. With
 * `memory`, a success remembered there for the same conditions stands for the trial run, and a
 * new success is remembered.
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
export function probeOnce(backend: SandboxBackend, memory?: ProbeMemory): Promise<ProbeResult> {
  let result = cache.get(backend);
  if (!result) {
    result = (async (): Promise<ProbeResult> => {
      const key = memory ? probeKey(backend.executable, scvPath()) : undefined;
      if (memory && key && !memory.fresh && remembered(memory.file, key)) {
        return { ok: true, detail: REMEMBERED_DETAIL, remembered: true };
      }
      const found = await backend.probe();
      if (memory && key && found.ok) remember(memory.file, key);
      else if (memory?.fresh) forget(memory.file);
      return found;
    })().catch((err): ProbeResult => ({
      ok: false,
      reason: `the sandbox probe failed: ${String(err)}`,
      fix: 'set "sandbox": "off"',
    }));
    cache.set(backend, result);
  }
  return result;
}
