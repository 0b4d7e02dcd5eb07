/**
 * `scv` / `scv tui`: loads the configuration and opens the TUI.
 *
 * @module
 */
import type { TuiOptions } from "./command_line.ts";
import { ConfigError, loadConfig } from "../server/config.ts";

/** Opens the TUI; resolves with the exit status. */
export async function runTuiCommand(options: TuiOptions): Promise<number> {
  let config;
  try {
    config = loadConfig(options.flags);
  } catch (e) {
    if (e instanceof ConfigError) {
      console.error(`scv: ${e.message}`);
      return 2;
    }
    throw e;
  }
  const { runTui } = await import("../tui/main.ts");
  return await runTui({
    config,
    cwd: options.cwd ?? Deno.cwd(),
    ...(options.serverCommand !== undefined ? { serverCommand: options.serverCommand } : {}),
  });
}
