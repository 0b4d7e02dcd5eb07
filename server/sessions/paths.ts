/**
 * Where recorded sessions live: `$XDG_STATE_HOME/scv/sessions/` (an absolute XDG_STATE_HOME
 * only, as the XDG spec says), else `~/.local/state/scv/sessions/`.
 *
 * @module
 */
import { stateDir } from "../state_dir.ts";

/** scv's state directory; its one definition is in `server/state_dir.ts`. */
export { stateDir };

/**
 * The sessions directory for an environment, or undefined when neither an absolute
 * `XDG_STATE_HOME` nor `HOME` is set.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sessionsDir } from "./paths.ts";
 * const env = (vars: Record<string, string>) => (n: string) => vars[n];
 * assert.equal(sessionsDir(env({ XDG_STATE_HOME: "/s", HOME: "/h" })), "/s/scv/sessions");
 * assert.equal(sessionsDir(env({ XDG_STATE_HOME: "rel", HOME: "/h" })), "/h/.local/state/scv/sessions");
 * assert.equal(sessionsDir(env({})), undefined);
 * ```
 */
export function sessionsDir(env: (name: string) => string | undefined): string | undefined {
  const state = stateDir(env);
  return state === undefined ? undefined : `${state}/sessions`;
}

/** Session ids scv creates (UUIDs); anything else names no recorded session. */
const SESSION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * Whether `id` has the shape of a session id, so it can be a file name without escaping the
 * directory (`../x`, `/etc/passwd` and the like never are).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isSessionId } from "./paths.ts";
 * assert(isSessionId(crypto.randomUUID()));
 * assert(!isSessionId("../index"));
 * ```
 */
export function isSessionId(id: string): boolean {
  return SESSION_ID.test(id);
}

/** The file a session is recorded in. */
export function sessionFileName(id: string): string {
  return `${id}.jsonl`;
}

/** The session id a directory entry records, or undefined for any other file. */
export function sessionIdOfFile(name: string): string | undefined {
  if (!name.endsWith(".jsonl")) return undefined;
  const id = name.slice(0, -".jsonl".length);
  return isSessionId(id) ? id : undefined;
}
