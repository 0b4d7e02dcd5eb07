/**
 * `scv server`: the Peon protocol on stdin/stdout, diagnostics on stderr only.
 *
 * @module
 */
import { type ConfigFlags, loadConfigOrReport, readEnv } from "../server/config.ts";
import { userRulesProblem } from "../server/core/rules/load.ts";
import { serve } from "../server/peon/serve.ts";
import { stdinUntilSignal } from "./stdin_input.ts";

/** Runs the headless server until stdin ends; resolves with the exit status. */
export async function runServer(flags: ConfigFlags): Promise<number> {
  const config = loadConfigOrReport(flags, console.error);
  if (!config) return 2;
  const rules = await userRulesProblem(readEnv);
  if (rules !== undefined) {
    console.error(`scv: ${rules}`);
    return 2;
  }
  return await serve({ readable: stdinUntilSignal(), writable: Deno.stdout.writable, config });
}
