/**
 * The entry point of the interactive TUI (`scv`, `scv tui`).
 *
 * @module
 */
import type { TuiConfig } from "./tui_config.ts";
import type { ServerParts, SessionChoice } from "./server_link.ts";

/** Options of {@link runTui}. */
export interface TuiOptions {
  config: TuiConfig;
  /** The workspace directory; made absolute here. */
  cwd: string;
  /** Spawn this shell command as the Peon server instead of serving in-process. */
  serverCommand?: string;
  /** Reads an environment variable; undefined when unset or not permitted. */
  env: (name: string) => string | undefined;
  /** The server side's parts the TUI uses (see {@link ServerParts}). */
  server: ServerParts;
  /** Which session to open (default: a new one). */
  session?: SessionChoice;
}

/** The message printed when stdin or stdout is not a terminal. */
export const NOT_A_TTY_MESSAGE =
  'scv: the TUI needs a terminal (stdin and stdout must be a TTY); use "scv exec PROMPT" for scripts';

/**
 * Runs the TUI and resolves with the process exit status: 0 after the user quits, 1 when the
 * server fails or goes away, 2 when there is no terminal, 128+n after signal n.
 */
export async function runTui(options: TuiOptions): Promise<number> {
  if (!Deno.stdin.isTerminal() || !Deno.stdout.isTerminal()) {
    console.error(NOT_A_TTY_MESSAGE);
    return 2;
  }
  let cwd = options.cwd;
  try {
    cwd = Deno.realPathSync(cwd);
  } catch {
    // The server reports a missing workspace in its own words.
    if (!cwd.startsWith("/")) cwd = `${Deno.cwd()}/${cwd}`;
  }
  const { runApp } = await import("./app.ts");
  return await runApp({ ...options, cwd });
}
