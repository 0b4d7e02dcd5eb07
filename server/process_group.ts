/**
 * Signalling a whole process group, under the narrow permissions scv runs with.
 *
 * @module
 */

/** A signal scv sends to a process group. */
export type GroupSignal = "SIGTERM" | "SIGKILL";

/**
 * Signals every process of the group `pgid` (a child spawned with `detached: true` leads its
 * own group, whose id is its pid). Under `--allow-run=bash` Deno refuses `Deno.kill`, but may
 * run bash, whose `kill` builtin does the same. Never throws: a group that is already gone is
 * the goal.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { signalGroup } from "./process_group.ts";
 * const child = new Deno.Command("sleep", { args: ["30"], detached: true }).spawn();
 * await signalGroup(child.pid, "SIGKILL");
 * assert.equal((await child.status).signal, "SIGKILL");
 * ```
 */
export async function signalGroup(pgid: number, signal: GroupSignal): Promise<void> {
  try {
    Deno.kill(-pgid, signal);
    return;
  } catch (e) {
    if (!(e instanceof Deno.errors.NotCapable)) return;
  }
  try {
    await new Deno.Command("bash", {
      args: [
        "-c",
        'kill -s "$1" -- "-$2" 2>/dev/null; exit 0',
        "scv-kill",
        signal.slice(3),
        String(pgid),
      ],
      cwd: "/",
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).output();
  } catch {
    // Neither may signal: nothing left to try.
  }
}
