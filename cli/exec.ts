/**
 * `scv exec`: one turn without a terminal.
 *
 * @module
 */
import type { ExecOptions } from "./command_line.ts";

/** Runs one turn; resolves with the exit status (0 completed, 1 failed, 130 cancelled). */
export function runExec(_options: ExecOptions): Promise<number> {
  console.error("scv exec: not implemented yet");
  return Promise.resolve(1);
}
