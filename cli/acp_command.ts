/**
 * `scv acp`: an ACP v1 agent on stdin/stdout for editors, diagnostics on stderr only. The ACP
 * SDK is loaded here and nowhere else.
 *
 * @module
 */
import { type ConfigFlags, loadConfigOrReport, readEnv } from "../server/config.ts";
import { userRulesProblem } from "../server/core/rules/load.ts";
import { stdinUntilSignal } from "./stdin_input.ts";

/** Runs the ACP agent until stdin ends; resolves with the exit status. */
export async function runAcp(flags: ConfigFlags): Promise<number> {
  // stdout carries JSON-RPC only: anything that would print to it goes to stderr instead.
  for (const name of ["log", "info", "debug"] as const) console[name] = console.error;
  const config = loadConfigOrReport(flags, console.error);
  if (!config) return 2;
  const rules = await userRulesProblem(readEnv);
  if (rules !== undefined) {
    console.error(`scv: ${rules}`);
    return 2;
  }
  const { serveAcp } = await import("../server/acp/agent.ts");
  return await serveAcp({ readable: stdinUntilSignal(), writable: Deno.stdout.writable, config });
}
