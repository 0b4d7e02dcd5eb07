/**
 * Which environment variables hold provider secrets, so tools never see them. Kept apart from
 * the provider modules: the server needs it before any of them has loaded.
 *
 * @module
 */
import type { Config } from "../config.ts";
import { envReferenceNames } from "../env_refs.ts";

/**
 * The variables whose values must not reach tools: `api_key_env` and each `${VAR}` of
 * `provider_headers`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { providerSecretEnv } from "./secret_env.ts";
 * import { DEFAULT_CONFIG } from "../config.ts";
 * const config = { ...DEFAULT_CONFIG, provider_headers: { "api-key": "${AZURE_KEY}" } };
 * assert.deepEqual(providerSecretEnv(config), ["OPENAI_API_KEY", "AZURE_KEY"]);
 * ```
 */
export function providerSecretEnv(config: Config): string[] {
  const names = new Set([config.api_key_env]);
  for (const v of Object.values(config.provider_headers)) {
    for (const name of envReferenceNames(v)) names.add(name);
  }
  return [...names];
}
