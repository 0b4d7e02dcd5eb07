/**
 * The session store a process records into, from its configuration: none when
 * `persist_sessions` is off or no state directory can be named (said once in the log). One store
 * per directory per process, so retention runs once at startup. In the core because it ties two
 * lower folders together: the session records and the checkpoints a deleted session leaves.
 *
 * @module
 */
import type { Config } from "../config.ts";
import { sessionsDir } from "../sessions/paths.ts";
import { configSecrets } from "../sessions/redact.ts";
import { SessionStore } from "../sessions/store.ts";

const stores = new Map<string, SessionStore>();

/** The store for `config`, or undefined when sessions are not recorded. */
export function openSessionStore(
  config: Config,
  env: (name: string) => string | undefined,
  log: (line: string) => void,
  /** Told which sessions retention deleted (checkpoints follow them). */
  onDeleted?: (ids: readonly string[]) => Promise<void>,
): SessionStore | undefined {
  if (!config.persist_sessions) return undefined;
  const dir = sessionsDir(env);
  if (dir === undefined) {
    log("scv: sessions are not recorded: neither XDG_STATE_HOME nor HOME names a directory");
    return undefined;
  }
  // provider_headers arrives with the providers work; read it if this build has it.
  const headers = (config as { provider_headers?: Record<string, string> }).provider_headers;
  const secrets = configSecrets(
    { api_key_env: config.api_key_env, provider_headers: headers },
    env,
  );
  const key = `${dir}\u0000${secrets.join("\u0000")}`;
  let store = stores.get(key);
  if (!store) {
    store = new SessionStore({
      dir,
      secrets,
      retentionDays: config.session_retention_days,
      maxSessions: config.max_sessions,
      maxImageBytes: config.max_image_bytes,
      log,
      ...(onDeleted ? { onDeleted } : {}),
    });
    store.ready.catch((e) =>
      log(
        `scv: sessions are not recorded: cannot use ${dir}: ${e instanceof Error ? e.message : e}`,
      )
    );
    stores.set(key, store);
  }
  return store;
}
