/**
 * The locked-down permission flags the README documents (section "Locked-down runs"), built for
 * a workspace, a home and a provider host, so tests run scv exactly as a careful user would.
 *
 * @module
 */

/** The environment variables the README's locked-down lines allow (`--allow-env=...`). */
export const LOCKED_DOWN_ENV =
  "HOME,USER,LOGNAME,PATH,SHELL,LANG,LC_*,TERM,TZ,TMPDIR,NO_COLOR,XDG_CONFIG_HOME," +
  "XDG_STATE_HOME,SCV_CONFIG,SCV_MODEL,OPENAI_BASE_URL,OPENAI_API_KEY," +
  // The TUI's terminal libraries (ansi-escapes, supports-color) look at these.
  "COLORTERM,FORCE_COLOR,TERM_PROGRAM,TERM_PROGRAM_VERSION,TMUX,CI,TEAMCITY_VERSION";

/** The checkout's directory: scv reads its own code from it (main.ts loads each command). */
export const SCV_DIR = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");

/**
 * `--allow-read` scoped to scv's own directory, the workspace and scv's config and state
 * directories, `--allow-write` to the workspace and the state directory, `--allow-net` to the
 * provider's host, `--allow-env` to {@link LOCKED_DOWN_ENV}, `--allow-run=bwrap,git` (git for
 * checkpoints).
 */
export function lockedDownFlags(o: {
  workspace: string;
  configDir: string;
  stateDir: string;
  providerHost: string;
}): string[] {
  return [
    "--no-prompt",
    `--allow-read=${SCV_DIR},${o.workspace},${o.configDir},${o.stateDir}`,
    `--allow-write=${o.workspace},${o.stateDir}`,
    `--allow-net=${o.providerHost}`,
    `--allow-env=${LOCKED_DOWN_ENV}`,
    "--allow-run=bwrap,git",
  ];
}
