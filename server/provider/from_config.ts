/**
 * Builds the configured provider: the wire API `provider` names, its key from `api_key_env`,
 * and `provider_headers` with `${VAR}` replaced from the environment (those values are secrets:
 * redacted like the key, and their variables kept from tools).
 *
 * @module
 */
import type { Config } from "../config.ts";
import { expandEnvReferences } from "../env_refs.ts";
import { ProviderConfigError } from "./config_error.ts";
import type { ProviderMemory } from "./memory.ts";
import type { ProviderOptions } from "./options.ts";
import type { Provider } from "./types.ts";

/** `provider_headers` after expansion. */
export interface ExpandedHeaders {
  headers: Record<string, string>;
  /** Values that came from the environment, to redact. */
  secrets: string[];
  /** The variables named, to keep from tool environments. */
  vars: string[];
}

/**
 * Replaces each `${VAR}` in the header values from `env`. A variable that is not set is a
 * clear error (a header sent with a hole in it would fail obscurely at the provider).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { expandHeaders } from "./from_config.ts";
 * const r = expandHeaders({ "api-key": "${AZ_KEY}", "x-app": "scv" }, (n) => n === "AZ_KEY" ? "s3cret" : undefined);
 * assert.deepEqual(r, { headers: { "api-key": "s3cret", "x-app": "scv" }, secrets: ["s3cret"], vars: ["AZ_KEY"] });
 * ```
 */
export function expandHeaders(
  headers: Readonly<Record<string, string>>,
  env: (name: string) => string | undefined,
): ExpandedHeaders {
  const out: ExpandedHeaders = { headers: {}, secrets: [], vars: [] };
  for (const [name, template] of Object.entries(headers)) {
    let expanded = false;
    const value = expandEnvReferences(template, (v) => {
      const got = env(v);
      if (got === undefined) {
        throw new ProviderConfigError(
          `Cannot send provider_headers "${name}": environment variable ${v} is not set`,
        );
      }
      if (/[\r\n\0]/.test(got)) {
        throw new ProviderConfigError(
          `Cannot send provider_headers "${name}": environment variable ${v} holds a line break`,
        );
      }
      expanded = true;
      if (!out.vars.includes(v)) out.vars.push(v);
      return got;
    });
    out.headers[name] = value;
    if (expanded) out.secrets.push(value, ...out.vars.map(env).filter((s) => s !== undefined));
  }
  out.secrets = [...new Set(out.secrets)];
  return out;
}

/** The provider `config` describes, loading only its own module. */
export async function providerFromConfig(
  config: Config,
  env: (name: string) => string | undefined,
  memory?: ProviderMemory,
): Promise<Provider> {
  const expanded = expandHeaders(config.provider_headers, env);
  const options: ProviderOptions = {
    baseUrl: config.base_url,
    apiKey: env(config.api_key_env) || undefined,
    headers: expanded.headers,
    secrets: expanded.secrets,
    idleTimeoutMs: config.provider_timeout_ms,
    startupTimeoutMs: config.provider_startup_timeout_ms,
    ...(memory ? { memory } : {}),
  };
  switch (config.provider) {
    case "anthropic": {
      const { AnthropicProvider } = await import("./anthropic.ts");
      return new AnthropicProvider(options);
    }
    case "openai-responses": {
      const { OpenAIResponsesProvider } = await import("./openai_responses.ts");
      return new OpenAIResponsesProvider(options);
    }
    default: {
      const { OpenAIProvider } = await import("./openai.ts");
      return new OpenAIProvider(options);
    }
  }
}
