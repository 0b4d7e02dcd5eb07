/**
 * What a session store calls when retention deleted sessions: their checkpoints go too. Small
 * on purpose, and loading the rest only when something was deleted, so that opening a store at
 * startup costs nothing; the store's opener (a face, a command) hands it over, since the
 * sessions folder does not import this one.
 *
 * @module
 */

/** The deletion observer for a store in this environment. */
export function followSessions(
  env: (name: string) => string | undefined,
  log: (line: string) => void,
): (ids: readonly string[]) => Promise<void> {
  return async (ids) => {
    const { checkpointsDir } = await import("./open.ts");
    const { removeSessionCheckpoints } = await import("./retention.ts");
    const dir = checkpointsDir(env);
    if (dir !== undefined) await removeSessionCheckpoints(dir, ids, log);
  };
}
