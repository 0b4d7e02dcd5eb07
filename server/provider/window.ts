/**
 * The context window a local model server runs with, asked of the server itself: llama.cpp
 * (`/v1/models` `meta.n_ctx`, `/props`), vLLM (`/v1/models` `max_model_len`), LM Studio
 * (`/api/v0/models` `loaded_context_length`, else `max_context_length`) and Ollama
 * (`/api/show`: `num_ctx` among the parameters, else the model's `context_length`). The parsers
 * are pure; the probe asks with bounded time and size and never throws.
 *
 * Only servers on this machine or the local network are asked (loopback, private and link-local
 * addresses, `localhost`, `*.local`): a hosted API is never sent requests it has no use for.
 * Everywhere, an overflow answer names the window too (see `overflow.ts`).
 *
 * @module
 */
import { readBoundedText } from "./bounded_body.ts";
import { endpointUrl } from "./http.ts";
import { isLocalServer } from "./local_server.ts";

/** A window the server reported, and where it said so. */
export interface ServerWindow {
  /** The window in tokens. */
  tokens: number;
  /** Which answer said it, e.g. `llama.cpp /v1/models meta.n_ctx`. */
  source: string;
}

/** Bytes read of one probe answer at most (Ollama's `/api/show` carries the license text). */
export const MAX_PROBE_BYTES = 512 * 1024;
/** How long one probe request may take. */
export const PROBE_TIMEOUT_MS = 1500;

type Json = Record<string, unknown>;

function obj(v: unknown): Json | undefined {
  return typeof v === "object" && v !== null && !Array.isArray(v) ? v as Json : undefined;
}

function positive(v: unknown): number | undefined {
  return typeof v === "number" && Number.isSafeInteger(v) && v > 0 ? v : undefined;
}

/** Whether a model list's entry names `model` (`id`, `model` or `name`). */
function namesModel(e: Json, model: string): boolean {
  return e.id === model || e.model === model || e.name === model;
}

/** The entries of a model list (`data`), those that are objects. */
function entriesOf(list: unknown): Json[] {
  return Array.isArray(list) ? list.map(obj).filter((e): e is Json => e !== undefined) : [];
}

/** The entry of a model list that is `model`, or the only one when the list has one. */
function entryFor(list: unknown, model: string): Json | undefined {
  const entries = entriesOf(list);
  return entries.find((e) => namesModel(e, model)) ??
    (entries.length === 1 ? entries[0] : undefined);
}

/**
 * The window in an OpenAI-style `/v1/models` answer: llama.cpp's `meta.n_ctx`, vLLM's
 * `max_model_len`, LM Studio's `/api/v0/models` `loaded_context_length` (the loaded instance)
 * or `max_context_length`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { windowFromModels } from "./window.ts";
 * const llama = { data: [{ id: "m.gguf", meta: { n_ctx: 2048, n_ctx_train: 32768 } }] };
 * assert.deepEqual(windowFromModels(llama, "local"), { tokens: 2048, source: "meta.n_ctx" });
 * const vllm = { data: [{ id: "Qwen/Qwen3-8B", max_model_len: 8192 }] };
 * assert.deepEqual(windowFromModels(vllm, "Qwen/Qwen3-8B"), { tokens: 8192, source: "max_model_len" });
 * assert.equal(windowFromModels({ data: [{ id: "gpt-4.1" }] }, "gpt-4.1"), undefined);
 * ```
 */
export function windowFromModels(json: unknown, model: string): ServerWindow | undefined {
  const entry = entryFor(obj(json)?.data, model);
  if (!entry) return undefined;
  const meta = positive(obj(entry.meta)?.n_ctx);
  if (meta) return { tokens: meta, source: "meta.n_ctx" };
  const vllm = positive(entry.max_model_len);
  if (vllm) return { tokens: vllm, source: "max_model_len" };
  const loaded = positive(entry.loaded_context_length);
  if (loaded) return { tokens: loaded, source: "loaded_context_length" };
  const max = positive(entry.max_context_length);
  if (max) return { tokens: max, source: "max_context_length" };
  return undefined;
}

/**
 * The window in llama.cpp's `/props`: `default_generation_settings.n_ctx` (older builds put
 * `n_ctx` at the top).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { windowFromProps } from "./window.ts";
 * assert.deepEqual(windowFromProps({ default_generation_settings: { n_ctx: 4096 } }),
 *   { tokens: 4096, source: "default_generation_settings.n_ctx" });
 * ```
 */
export function windowFromProps(json: unknown): ServerWindow | undefined {
  const settings = positive(obj(obj(json)?.default_generation_settings)?.n_ctx);
  if (settings) return { tokens: settings, source: "default_generation_settings.n_ctx" };
  const top = positive(obj(json)?.n_ctx);
  return top ? { tokens: top, source: "n_ctx" } : undefined;
}

/**
 * The window in Ollama's `/api/show`: `num_ctx` when the model's parameters set it (what the
 * runner is started with), else the model's own `<arch>.context_length`. Ollama runs a model
 * with its default `num_ctx` (4096 in current releases) when none is set, and does not report
 * that default; overflow answers still correct the estimate then.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { windowFromOllamaShow } from "./window.ts";
 * assert.deepEqual(windowFromOllamaShow({ parameters: "stop \"<|im_end|>\"\nnum_ctx 8192", model_info: { "qwen2.context_length": 32768 } }),
 *   { tokens: 8192, source: "parameters num_ctx" });
 * assert.deepEqual(windowFromOllamaShow({ model_info: { "general.architecture": "qwen2", "qwen2.context_length": 32768 } }),
 *   { tokens: 32768, source: "model_info qwen2.context_length" });
 * ```
 */
export function windowFromOllamaShow(json: unknown): ServerWindow | undefined {
  const o = obj(json);
  if (!o) return undefined;
  if (typeof o.parameters === "string") {
    const m = /^\s*num_ctx\s+(\d+)\s*$/m.exec(o.parameters);
    const n = m ? positive(Number(m[1])) : undefined;
    if (n) return { tokens: n, source: "parameters num_ctx" };
  }
  const info = obj(o.model_info);
  if (info) {
    for (const [k, v] of Object.entries(info)) {
      const n = k.endsWith(".context_length") ? positive(v) : undefined;
      if (n) return { tokens: n, source: `model_info ${k}` };
    }
  }
  return undefined;
}

/** What {@link probeServerWindow} needs. */
export interface ProbeOptions {
  /** The provider's `base_url` (e.g. `http://127.0.0.1:8080/v1`). */
  baseUrl: string;
  /** The configured model. */
  model: string;
  /** Headers for the server (its key, when it has one). */
  headers: Readonly<Record<string, string>>;
  /** Ends the probe early. */
  signal?: AbortSignal;
  /** Per-request time bound; {@link PROBE_TIMEOUT_MS} by default. */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

/** What {@link probeServerWindow} learnt. */
export interface ProbeResult {
  /** The window the server reported, when one of its answers named it. */
  window?: ServerWindow;
  /**
   * Whether the server's `/v1/models` listed the configured model by name: a server that lists
   * it and names no window is one that does not say (a proxy, LocalAI), not one that lacks the
   * model (Ollama before `ollama pull`).
   */
  listed: boolean;
}

/**
 * Asks a local server for its context window: `GET {base}/models` first (llama.cpp, vLLM),
 * then, at the server's root, llama.cpp's `/props`, LM Studio's `/api/v0/models` and Ollama's
 * `/api/show`, together. No window when the server is not local (nothing is asked), says nothing
 * usable, or does not answer in time; never rejects.
 */
export async function probeServerWindow(options: ProbeOptions): Promise<ProbeResult> {
  if (!isLocalServer(options.baseUrl)) return { listed: false };
  const root = options.baseUrl.replace(/[?#].*$/, "").replace(/\/+$/, "").replace(/\/v1$/, "");
  const ask = async (
    url: string,
    parse: (json: unknown) => ServerWindow | undefined,
    label: string,
    body?: string,
  ): Promise<ServerWindow | undefined> => {
    const timeout = AbortSignal.timeout(options.timeoutMs ?? PROBE_TIMEOUT_MS);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    try {
      const res = await (options.fetch ?? fetch)(url, {
        method: body === undefined ? "GET" : "POST",
        headers: { ...options.headers, accept: "application/json" },
        ...(body === undefined ? {} : { body }),
        signal,
      });
      if (!res.ok) {
        await res.body?.cancel().catch(() => {});
        return undefined;
      }
      const text = await readBoundedText(res.body, {
        maxBytes: MAX_PROBE_BYTES,
        waitMs: options.timeoutMs ?? PROBE_TIMEOUT_MS,
        signal,
      });
      const w = parse(JSON.parse(text));
      return w ? { tokens: w.tokens, source: `${label} ${w.source}` } : undefined;
    } catch {
      return undefined; // not this server's shape, or no answer: another probe may know
    }
  };
  let listed = false;
  const models = await ask(endpointUrl(options.baseUrl, "/models"), (j) => {
    listed = entriesOf(obj(j)?.data).some((e) => namesModel(e, options.model));
    return windowFromModels(j, options.model);
  }, "/v1/models");
  if (models) return { window: models, listed };
  const found = await Promise.all([
    ask(`${root}/props`, windowFromProps, "/props"),
    ask(`${root}/api/v0/models`, (j) => windowFromModels(j, options.model), "/api/v0/models"),
    ask(
      `${root}/api/show`,
      windowFromOllamaShow,
      "/api/show",
      JSON.stringify({ model: options.model }),
    ),
  ]);
  const window = found.find((w) => w !== undefined);
  return window ? { window, listed } : { listed };
}
