/**
 * scv's state directory: `$XDG_STATE_HOME/scv` (an absolute XDG_STATE_HOME only, as the XDG
 * spec says), else `~/.local/state/scv`. Recorded sessions, checkpoints and what scv learnt of
 * providers live under it.
 *
 * @module
 */

/**
 * The state directory for an environment, or undefined when neither an absolute
 * `XDG_STATE_HOME` nor `HOME` is set.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { stateDir } from "./state_dir.ts";
 * const env = (vars: Record<string, string>) => (n: string) => vars[n];
 * assert.equal(stateDir(env({ XDG_STATE_HOME: "/s/", HOME: "/h" })), "/s/scv");
 * assert.equal(stateDir(env({ XDG_STATE_HOME: "rel", HOME: "/h" })), "/h/.local/state/scv");
 * assert.equal(stateDir(env({})), undefined);
 * ```
 */
export function stateDir(env: (name: string) => string | undefined): string | undefined {
  const xdg = env("XDG_STATE_HOME");
  if (xdg?.startsWith("/")) return `${xdg.replace(/\/+$/, "")}/scv`;
  const home = env("HOME");
  return home?.startsWith("/") ? `${home.replace(/\/+$/, "")}/.local/state/scv` : undefined;
}
