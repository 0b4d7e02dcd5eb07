/**
 * `scv` / `scv tui`: loads the configuration and opens the TUI.
 *
 * @module
 */
import type { TuiOptions } from "./command_line.ts";
import { loadConfigOrReport, readEnv } from "../server/config.ts";
import { signalGroup } from "../server/process_group.ts";

/**
 * The workspace's paths for the TUI's `@path` completion, walked as the tools walk it (`.git`
 * skipped, `.gitignore` honoured, symlinked directories not followed), at most `maxPaths`.
 */
export async function listFiles(
  cwd: string,
  maxPaths: number,
): Promise<{ paths: string[]; truncated: boolean }> {
  const { walk } = await import("../server/tools/walk.ts");
  const paths: string[] = [];
  for await (const e of walk(cwd, cwd, { maxDepth: 32 })) {
    if (!e.isFile && !e.isDirectory) continue;
    if (paths.length >= maxPaths) return { paths, truncated: true };
    paths.push(e.isDirectory ? `${e.rel}/` : e.rel);
  }
  return { paths, truncated: false };
}

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
      loadServe: async () => (await import("../server/peon/serve.ts")).serve,
      signalGroup,
      listFiles,
    },
  });
}
