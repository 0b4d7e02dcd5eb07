/**
 * The environment a stdio MCP server starts with: the core set of scv's own variables plus the
 * server's configured `env`, nothing else, so the provider's key and other credentials in scv's
 * environment never reach a server that was not given them explicitly.
 *
 * @module
 */
import { CORE_ENV, isCoreEnvName } from "../core_env.ts";

/**
 * The server's environment: the core set (and `LC_*`) read through `env`, then `configured`
 * (already expanded) on top; `secret` names (the provider's key) are dropped unless configured
 * explicitly for this server.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { serverEnv } from "./env.ts";
 * const scv: Record<string, string> = { PATH: "/bin", OPENAI_API_KEY: "k", LC_ALL: "C", X: "1" };
 * const env = serverEnv({ A: "b" }, (n) => scv[n], Object.keys(scv), ["OPENAI_API_KEY"]);
 * assert.deepEqual(env, { PATH: "/bin", LC_ALL: "C", A: "b" });
 * ```
 */
export function serverEnv(
  configured: Readonly<Record<string, string>>,
  env: (name: string) => string | undefined,
  names: readonly string[],
  secret: readonly string[],
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of names) {
    if (!isCoreEnvName(name)) continue;
    if (secret.includes(name)) continue;
    const v = env(name);
    if (v !== undefined) out[name] = v;
  }
  return { ...out, ...configured };
}

/**
 * The names of scv's environment variables, or just the core names when scv may not list its
 * environment (a scoped `--allow-env`).
 */
export function environmentNames(): string[] {
  try {
    return Object.keys(Deno.env.toObject());
  } catch {
    return [...CORE_ENV];
  }
}
