/**
 * `scv` / `scv tui`: loads the configuration and opens the TUI.
 *
 * @module
 */
import type { TuiOptions } from "./command_line.ts";
import { loadConfigOrReport, readEnv } from "../server/config.ts";
import { signalGroup } from "../server/process_group.ts";

/** Opens the TUI; resolves with the exit status. */
export async function runTuiCommand(options: TuiOptions): Promise<number> {
  const config = loadConfigOrReport(options.flags, console.error);
  if (!config) return 2;
  const { runTui } = await import("../tui/main.ts");
  return await runTui({
    config,
    cwd: options.cwd ?? Deno.cwd(),
    ...(options.serverCommand !== undefined ? { serverCommand: options.serverCommand } : {}),
    env: readEnv,
    session: options.session,
    server: {
      loadServe: async () => {
        const { serve } = await import("../server/peon/serve.ts");
        return (io) => serve({ ...io, config });
      },
      signalGroup,
    },
  });
}
