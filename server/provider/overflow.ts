/**
 * A provider's answer that the prompt does not fit its context window, recognised by the shapes
 * and wordings the servers really send (read from their sources), with the window and the
 * prompt's size when the answer names them. The turn then compacts to that window and retries
 * once, instead of failing with `provider_error`.
 *
 * @module
 */
import { errorTextOf } from "./error_body.ts";

/** What an overflow answer said; a number is absent when the answer did not name it. */
export interface ContextOverflow {
  /** The server's context window in tokens. */
  window?: number;
  /** The prompt's size in tokens as the server counted it. */
  promptTokens?: number;
}

/** A count in an error body, when it is a sane positive integer. */
function count(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text.replaceAll(",", ""));
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

/** A field of a parsed JSON body, one level down in `error` or at the top. */
function numberField(json: unknown, key: string): number | undefined {
  if (typeof json !== "object" || json === null) return undefined;
  const obj = json as Record<string, unknown>;
  const inner = typeof obj.error === "object" && obj.error !== null
    ? (obj.error as Record<string, unknown>)[key]
    : undefined;
  const v = inner ?? obj[key];
  return typeof v === "number" && Number.isSafeInteger(v) && v > 0 ? v : undefined;
}

/** The parsed body, or undefined when it is not JSON. */
function parsed(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}

/**
 * Each server's wording, with where its numbers are. Sources:
 * - llama.cpp `tools/server/server-context.cpp`: `request (2477 tokens) exceeds the available
 *   context size (2048 tokens), try increasing it`, type `exceed_context_size_error`, with
 *   `n_prompt_tokens` and `n_ctx` fields;
 * - OpenAI, code `context_length_exceeded`: `This model's maximum context length is 128000
 *   tokens. However, your messages resulted in 130123 tokens.`;
 * - vLLM (`vllm/entrypoints/openai/serving_engine.py`): `This model's maximum context length is
 *   2048 tokens. However, you requested 2100 tokens (1600 in the messages, 500 in the
 *   completion).` and the newer `... maximum context length is 2048 tokens and your request has
 *   2100 input tokens`;
 * - Anthropic: `prompt is too long: 208310 tokens > 200000 maximum`;
 * - Ollama: `the input length exceeds the context length` (no numbers);
 * - LM Studio: `Trying to keep the first 2500 tokens when context the overflows. However, the
 *   model is loaded with context length of only 2048 tokens, which is not enough.` and
 *   `Context length exceeded`.
 */
const WORDINGS: ReadonlyArray<{ re: RegExp; window?: number; prompt?: number }> = [
  {
    re: /request \((\d[\d,]*) tokens\) exceeds the available context size \((\d[\d,]*) tokens\)/i,
    prompt: 1,
    window: 2,
  },
  {
    re:
      /maximum context length is (\d[\d,]*) tokens?\. However, (?:your messages resulted in|you requested) (\d[\d,]*) tokens/i,
    window: 1,
    prompt: 2,
  },
  {
    re:
      /maximum context length is (\d[\d,]*) tokens? and your request has (\d[\d,]*) input tokens/i,
    window: 1,
    prompt: 2,
  },
  { re: /prompt is too long: (\d[\d,]*) tokens > (\d[\d,]*) maximum/i, prompt: 1, window: 2 },
  {
    re:
      /keep the first (\d[\d,]*) tokens when context the overflows.*context length of only (\d[\d,]*) tokens/is,
    prompt: 1,
    window: 2,
  },
  { re: /maximum context length is (\d[\d,]*) tokens?/i, window: 1 },
  { re: /input length exceeds the (?:maximum )?context length/i },
  { re: /context length exceeded|context_length_exceeded|exceed_context_size_error/i },
  { re: /prompt is too long/i },
];

/**
 * Whether an error answer says the prompt overflows the context, and what it said of the sizes.
 * Only client errors count (400, 413, 422; llama.cpp and vLLM answer 400): a 5xx or 429 is
 * something else even when it quotes a size.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { contextOverflowOf } from "./overflow.ts";
 * const body = JSON.stringify({ error: { code: 400, type: "exceed_context_size_error",
 *   message: "request (2477 tokens) exceeds the available context size (2048 tokens), try increasing it",
 *   n_prompt_tokens: 2477, n_ctx: 2048 } });
 * assert.deepEqual(contextOverflowOf(400, body), { window: 2048, promptTokens: 2477 });
 * assert.deepEqual(contextOverflowOf(400, '{"error":{"message":"prompt is too long: 210 tokens > 200 maximum"}}'),
 *   { window: 200, promptTokens: 210 });
 * assert.equal(contextOverflowOf(400, '{"error":"model not found"}'), undefined);
 * assert.equal(contextOverflowOf(500, "request (9 tokens) exceeds the available context size (8 tokens)"), undefined);
 * ```
 */
export function contextOverflowOf(status: number, body: string): ContextOverflow | undefined {
  if (status !== 400 && status !== 413 && status !== 422) return undefined;
  const json = parsed(body.trim());
  const text = json === undefined ? body : `${errorTextOf(body)}\n${body}`;
  for (const w of WORDINGS) {
    const m = w.re.exec(text);
    if (!m) continue;
    const out: ContextOverflow = {};
    const window = numberField(json, "n_ctx") ?? (w.window ? count(m[w.window]) : undefined);
    const prompt = numberField(json, "n_prompt_tokens") ??
      (w.prompt ? count(m[w.prompt]) : undefined);
    if (window !== undefined) out.window = window;
    if (prompt !== undefined) out.promptTokens = prompt;
    return out;
  }
  return undefined;
}

/**
 * Whether an answer says the model is still loading: llama.cpp's `503 {"error":{"message":
 * "Loading model","type":"unavailable_error"}}` (`server-http.cpp`), its router's "model is
 * loading, retry later", and LM Studio's and Ollama's "loading model" wordings.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isModelLoading } from "./overflow.ts";
 * assert.equal(isModelLoading(503, '{"error":{"message":"Loading model","type":"unavailable_error","code":503}}'), true);
 * assert.equal(isModelLoading(503, '{"error":{"message":"no slot available"}}'), false);
 * assert.equal(isModelLoading(400, "Loading model"), false);
 * ```
 */
export function isModelLoading(status: number, body: string): boolean {
  if (status !== 503) return false;
  return /\bloading model\b|model is loading|model is being loaded|model (?:is )?still loading/i
    .test(errorTextOf(body));
}
