/**
 * `/model` without a name: the provider's models from `GET {base_url}/models` (the
 * OpenAI-compatible list, which Anthropic's API and Ollama answer in the same shape), bounded
 * in time and size. The key is sent as the provider expects it and never appears in a message.
 *
 * @module
 */
import type { Config } from "../../mod.ts";
import type { ModelList } from "../state/mod.ts";
import { errorText } from "../text.ts";

/** How long the list may take. */
export const MODELS_TIMEOUT_MS = 5000;
/** The largest answer read. */
export const MAX_MODELS_BYTES = 1024 * 1024;
/** Most model names kept from an answer. */
export const MAX_MODELS = 1000;

/** `url` without credentials, for messages. */
function safeUrl(url: string): string {
  try {
    const u = new URL(url);
    u.username = "";
    u.password = "";
    return u.href;
  } catch {
    return "(the configured base_url)";
  }
}

async function readBounded(res: Response, max: number): Promise<string> {
  const reader = res.body?.getReader();
  if (!reader) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > max) {
      await reader.cancel().catch(() => {});
      throw new RangeError(`the answer is over ${max / 1024 / 1024} MiB`);
    }
    chunks.push(value);
  }
  const all = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    all.set(c, at);
    at += c.length;
  }
  return new TextDecoder().decode(all);
}

/**
 * The model ids of a `/models` answer (`{"data": [{"id": …}]}`, or `{"models": [{"name": …}]}`
 * as Ollama's native API words it).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseModels } from "./models.ts";
 * assert.deepEqual(parseModels('{"data":[{"id":"b"},{"id":"a"}]}'), ["a", "b"]);
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

/** Fetches the provider's model list; failures are a value with a message, never a throw. */
export async function fetchModels(
  config: Config,
  env: (name: string) => string | undefined,
): Promise<ModelList> {
  const base = config.base_url.replace(/\/+$/, "");
  const url = `${base}/models`;
  const provider = (config as { provider?: string }).provider;
  const key = env(config.api_key_env);
  // The configured headers go too (Azure's `api-key`, a gateway's token), expanded as the
  // provider expands them; their values are secrets like the key.
  const headers: Record<string, string> = {};
  const secrets: string[] = key ? [key] : [];
  for (const [name, template] of Object.entries(config.provider_headers ?? {})) {
    let missing: string | undefined;
    const value = template.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, v: string) => {
      const got = env(v);
      if (got === undefined || /[\r\n\0]/.test(got)) missing ??= v;
      else secrets.push(got);
      return got ?? "";
    });
    if (missing !== undefined) {
      return {
        error: `cannot send provider_headers "${name}": environment variable ${missing} is ` +
          `not set or holds a line break`,
      };
    }
    headers[name] = value;
    if (value !== template) secrets.push(value);
  }
  if (key) {
    if (provider === "anthropic") {
      headers["x-api-key"] = key;
      headers["anthropic-version"] = "2023-06-01";
    } else headers["authorization"] = `Bearer ${key}`;
  }
  try {
    const res = await fetch(url, { headers, signal: AbortSignal.timeout(MODELS_TIMEOUT_MS) });
    if (!res.ok) {
      await res.body?.cancel().catch(() => {});
      return { error: `${safeUrl(url)} answered HTTP ${res.status}` };
    }
    return { models: parseModels(await readBounded(res, MAX_MODELS_BYTES)) };
  } catch (e) {
    const why = e instanceof DOMException && e.name === "TimeoutError"
      ? `no answer within ${MODELS_TIMEOUT_MS / 1000} s`
      : errorText(e);
    // A message may quote the URL; never the key or a header's value (they are only in headers).
    const safe = secrets.filter((x) => x !== "").reduce((t, x) => t.split(x).join("…"), why);
    return { error: `${safeUrl(url)}: ${safe}` };
  }
}
