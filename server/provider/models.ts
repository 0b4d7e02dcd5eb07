/**
 * The provider's model list (`GET {base_url}/models`, the OpenAI-compatible list, which
 * Anthropic's API and Ollama answer in the same shape), for Peon's `models.list`: asked with the
 * provider's own authentication and `provider_headers` (expanded once, by `expandHeaders`),
 * bounded in time and size, and never with a secret in what it says.
 *
 * @module
 */
import type { Config } from "../config.ts";
import { errorText } from "../error_text.ts";
import { ProviderConfigError } from "./config_error.ts";
import { expandHeaders } from "./from_config.ts";
import { endpointUrl } from "./http.ts";
import { ANTHROPIC_VERSION } from "./anthropic.ts";
import { readBoundedText } from "./bounded_body.ts";
import { keyHeader, mergeHeaders } from "./request_headers.ts";
import { Redactor, urlSecrets } from "./redact.ts";

/** How long the list may take. */
export const MODELS_TIMEOUT_MS = 5000;
/** The largest answer read. */
export const MAX_MODELS_BYTES = 1024 * 1024;
/** Most model names kept from an answer. */
export const MAX_MODELS = 1000;

/** The model ids, or why there are none. */
export type ModelsAnswer = { models: string[] } | { error: string };

/**
 * The model ids of a `/models` answer (`{"data": [{"id": …}]}`, or `{"models": [{"name": …}]}`
 * as Ollama's native API words it), sorted, once each, at most {@link MAX_MODELS}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseModels } from "./models.ts";
 * assert.deepEqual(parseModels('{"data":[{"id":"b"},{"id":"a"},{"id":"b"}]}'), ["a", "b"]);
 * assert.deepEqual(parseModels('{"models":[{"name":"llama3"}]}'), ["llama3"]);
 * ```
 */
export function parseModels(text: string): string[] {
  const body = JSON.parse(text) as unknown;
  const list = typeof body === "object" && body !== null
    ? (body as Record<string, unknown>).data ?? (body as Record<string, unknown>).models
    : undefined;
  if (!Array.isArray(list)) throw new TypeError('the answer has no "data" list');
  const ids = list.flatMap((m) => {
    const r = typeof m === "object" && m !== null ? m as Record<string, unknown> : {};
    const id = typeof r.id === "string" ? r.id : typeof r.name === "string" ? r.name : undefined;
    return id === undefined ? [] : [id];
  });
  return [...new Set(ids)].sort().slice(0, MAX_MODELS);
}

/** At most `max` bytes of a body as text; past that, the body is cancelled and this throws. */
async function readAtMost(res: Response, max: number, signal: AbortSignal): Promise<string> {
  const text = await readBoundedText(res.body, {
    maxBytes: max + 1,
    waitMs: MODELS_TIMEOUT_MS,
    signal,
  });
  if (new TextEncoder().encode(text).length > max) {
    throw new RangeError(`the answer is over ${max / 1024 / 1024} MiB`);
  }
  return text;
}

/** The list's URL as a message may show it: without credentials. */
function shownUrl(url: string): string {
  try {
    const u = new URL(url);
    u.username = "";
    u.password = "";
    return u.href;
  } catch {
    return "(the configured base_url)";
  }
}

/**
 * Asks the configured provider for its models. Failures are an answer with a message, never a
 * throw; no message carries the key, a header's value or URL credentials.
 */
export async function listModels(
  config: Config,
  env: (name: string) => string | undefined,
  signal?: AbortSignal,
): Promise<ModelsAnswer> {
  const url = endpointUrl(config.base_url, "/models");
  const key = env(config.api_key_env);
  let expanded;
  try {
    expanded = expandHeaders(config.provider_headers ?? {}, env);
  } catch (e) {
    if (e instanceof ProviderConfigError) return { error: e.message };
    throw e;
  }
  const headers = mergeHeaders(
    config.provider === "anthropic" ? { "anthropic-version": ANTHROPIC_VERSION } : {},
    expanded.headers,
    keyHeader(config.provider, key),
  );
  const redactor = new Redactor([key, ...expanded.secrets, ...urlSecrets(config.base_url)]);
  const timeout = AbortSignal.timeout(MODELS_TIMEOUT_MS);
  try {
    const both = signal ? AbortSignal.any([signal, timeout]) : timeout;
    const res = await fetch(url, { headers, signal: both });
    if (!res.ok) {
      await res.body?.cancel().catch(() => {});
      return { error: `${shownUrl(url)} answered HTTP ${res.status}` };
    }
    return { models: parseModels(await readAtMost(res, MAX_MODELS_BYTES, both)) };
  } catch (e) {
    const why = timeout.aborted
      ? `no answer within ${MODELS_TIMEOUT_MS / 1000} s`
      : redactor.redact(errorText(e));
    return { error: `${shownUrl(url)}: ${why}` };
  }
}
