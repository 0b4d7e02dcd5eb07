/**
 * The OpenAI Chat Completions streaming provider. Works with any compatible server (OpenAI,
 * Ollama, llama.cpp, vLLM, OpenRouter): it sends only standard fields and reads only
 * `choices[0].delta`, `finish_reason`, `usage` and `error`.
 *
 * @module
 */
import { clip, errorText } from "../error_text.ts";
import { EventSourceParserStream } from "eventsource-parser/stream";
import {
  type ChatToolCall,
  type Provider,
  ProviderError,
  type ProviderRequest,
  type ProviderResponse,
  type ProviderUsage,
} from "./types.ts";
import { DEFAULT_RESPONSE_LIMITS, type ResponseLimits } from "./limits.ts";
import { utf8Length } from "../utf8.ts";

/** Settings of an {@link OpenAIProvider}. */
export interface OpenAIProviderOptions {
  /** Base URL ending before `/chat/completions`, e.g. `https://api.openai.com/v1`. */
  baseUrl: string;
  /** The API key; absent for local servers (no Authorization header is sent). */
  apiKey?: string | undefined;
  /** No byte from the provider for this long fails the call. */
  idleTimeoutMs: number;
  /** Attempts in all for 429/5xx answered before any body byte; default 3. */
  maxAttempts?: number;
  /** First backoff delay when no Retry-After is given; doubles per attempt. Default 500 ms. */
  retryBaseMs?: number;
  /** Longest wait honoured from a Retry-After header; default 60 s. */
  maxRetryAfterMs?: number;
  limits?: ResponseLimits;
  fetch?: typeof fetch;
}

const MAX_ERROR_BODY = 16 * 1024;

/**
 * Streams chat completions over `fetch` with every protocol cap enforced while reading.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { OpenAIProvider } from "./openai.ts";
 * const p = new OpenAIProvider({ baseUrl: "http://127.0.0.1:1/v1", idleTimeoutMs: 1000 });
 * assert(typeof p.complete === "function");
 * ```
 */
export class OpenAIProvider implements Provider {
  #o: OpenAIProviderOptions;
  #limits: ResponseLimits;
  #url: string;

  /** Creates a provider for one base URL. */
  constructor(options: OpenAIProviderOptions) {
    this.#o = options;
    this.#limits = options.limits ?? DEFAULT_RESPONSE_LIMITS;
    this.#url = options.baseUrl.replace(/\/+$/, "") + "/chat/completions";
  }

  /** Removes the API key from any text that might reach a user or a log. */
  #redact(text: string): string {
    const key = this.#o.apiKey;
    return key && key.length >= 4 ? text.split(key).join("[redacted]") : text;
  }

  /** Streams one completion. */
  async complete(request: ProviderRequest): Promise<ProviderResponse> {
    const body = JSON.stringify({
      model: request.model,
      messages: request.messages,
      ...(request.tools.length > 0 ? { tools: request.tools } : {}),
      stream: true,
      stream_options: { include_usage: true },
    });
    const headers: Record<string, string> = {
      "content-type": "application/json",
      "accept": "text/event-stream",
    };
    if (this.#o.apiKey) headers.authorization = `Bearer ${this.#o.apiKey}`;
    const maxAttempts = this.#o.maxAttempts ?? 3;
    for (let attempt = 1;; attempt++) {
      request.signal.throwIfAborted();
      const idle = new IdleTimer(this.#o.idleTimeoutMs, request.signal);
      let res: Response;
      try {
        res = await (this.#o.fetch ?? fetch)(this.#url, {
          method: "POST",
          headers,
          body,
          signal: idle.signal,
        });
      } catch (e) {
        idle.stop();
        request.signal.throwIfAborted();
        if (idle.fired) throw this.#idleError();
        throw new ProviderError(
          "provider_error",
          this.#redact(`Cannot reach the provider at ${this.#url}: ${errorText(e)}`),
        );
      }
      if (!res.ok) {
        const retryable = res.status === 429 || res.status >= 500;
        if (retryable && attempt < maxAttempts) {
          await res.body?.cancel().catch(() => {});
          idle.stop();
          await sleep(this.#retryDelay(res, attempt), request.signal);
          continue;
        }
        let detail: string;
        try {
          detail = await readErrorBody(res, idle);
        } finally {
          idle.stop();
        }
        request.signal.throwIfAborted();
        const tries = attempt > 1 ? ` after ${attempt} attempts` : "";
        throw new ProviderError(
          "provider_error",
          this.#redact(`Provider returned HTTP ${res.status}${tries}: ${detail}`),
        );
      }
      if (!res.body) {
        idle.stop();
        throw new ProviderError("provider_error", "Provider returned an empty body");
      }
      try {
        return await this.#readStream(res.body, idle, request);
      } catch (e) {
        request.signal.throwIfAborted();
        if (e instanceof ConsumerError) throw e.cause;
        if (idle.fired) throw this.#idleError();
        if (e instanceof ProviderError) throw new ProviderError(e.code, this.#redact(e.message));
        throw new ProviderError(
          "provider_error",
          this.#redact(`Provider stream failed: ${errorText(e)}`),
        );
      } finally {
        idle.stop();
      }
    }
  }

  #idleError(): ProviderError {
    return new ProviderError(
      "provider_error",
      `Provider sent nothing for ${this.#o.idleTimeoutMs} ms (provider_timeout_ms)`,
    );
  }

  #retryDelay(res: Response, attempt: number): number {
    const max = this.#o.maxRetryAfterMs ?? 60_000;
    const header = res.headers.get("retry-after");
    if (header !== null) {
      const secs = Number(header);
      if (Number.isFinite(secs) && secs >= 0) return Math.min(secs * 1000, max);
      const date = Date.parse(header);
      if (!Number.isNaN(date)) return Math.min(Math.max(0, date - Date.now()), max);
    }
    const base = this.#o.retryBaseMs ?? 500;
    return Math.min(base * 2 ** (attempt - 1) * (0.75 + Math.random() * 0.5), max);
  }

  async #readStream(
    body: ReadableStream<Uint8Array>,
    idle: IdleTimer,
    request: ProviderRequest,
  ): Promise<ProviderResponse> {
    const limits = this.#limits;
    let responseBytes = 0;
    let parseError: ProviderError | undefined;
    const counted = body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          idle.touch();
          responseBytes += chunk.length;
          if (responseBytes > limits.maxResponseBytes) {
            controller.error(
              new ProviderError(
                "response_limit",
                `Provider response exceeded ${limits.maxResponseBytes} bytes`,
              ),
            );
            return;
          }
          controller.enqueue(chunk);
        },
      }),
      { signal: idle.signal },
    );
    const events = counted
      .pipeThrough(new TextDecoderStream())
      .pipeThrough(
        new EventSourceParserStream({
          // Counts characters; one character is at least one byte, so the exact byte cap below
          // still decides, and this only bounds memory. Slack covers the "data: " prefix.
          maxBufferSize: limits.maxEventBytes + 64,
          // Unknown fields and bad "retry:" lines are ignored, as the SSE format says; only
          // the size cap is an error.
          onError: (e) => {
            if ((e as { type?: string }).type !== "max-buffer-size-exceeded") return;
            parseError = new ProviderError(
              "response_limit",
              `Provider sent an SSE event over ${limits.maxEventBytes} bytes`,
            );
          },
        }),
      );
    const reader = events.getReader();
    let content = "";
    let contentBytes = 0;
    const calls: Array<{ id: string; name: string; args: string; argBytes: number }> = [];
    const callsByIndex = new Map<number, number>();
    let usage: ProviderUsage | undefined;
    let finishReason: string | undefined;
    let done = false;
    const fail = async (error: ProviderError): Promise<never> => {
      await reader.cancel(error.message).catch(() => {});
      throw error;
    };
    try {
      while (!done) {
        const { value: ev, done: ended } = await reader.read();
        if (parseError) await fail(parseError);
        if (ended) break;
        const data = ev.data;
        if (utf8Length(data) > limits.maxEventBytes) {
          await fail(
            new ProviderError(
              "response_limit",
              `Provider sent an SSE event over ${limits.maxEventBytes} bytes`,
            ),
          );
        }
        if (data.trim() === "[DONE]") {
          done = true;
          break;
        }
        let chunk: OpenAIChunk;
        try {
          chunk = JSON.parse(data);
        } catch {
          await fail(
            new ProviderError(
              "provider_error",
              `Provider sent an event that is not JSON: ${data.slice(0, 200)}`,
            ),
          );
          throw new Error("unreachable");
        }
        if (typeof chunk !== "object" || chunk === null) continue;
        if (chunk.error) {
          const msg = typeof chunk.error === "object" && chunk.error !== null
            ? String(chunk.error.message ?? JSON.stringify(chunk.error))
            : String(chunk.error);
          await fail(
            new ProviderError(
              "provider_error",
              `Provider reported an error: ${clip(msg, MAX_DETAIL_CHARS)}`,
            ),
          );
        }
        if (chunk.usage && typeof chunk.usage === "object") {
          const u: ProviderUsage = {};
          if (isCount(chunk.usage.prompt_tokens)) u.prompt_tokens = chunk.usage.prompt_tokens;
          if (isCount(chunk.usage.completion_tokens)) {
            u.completion_tokens = chunk.usage.completion_tokens;
          }
          usage = u;
        }
        const choice = Array.isArray(chunk.choices) ? chunk.choices[0] : undefined;
        if (!choice) continue;
        if (typeof choice.finish_reason === "string") finishReason = choice.finish_reason;
        const delta = choice.delta;
        if (!delta || typeof delta !== "object") continue;
        if (typeof delta.content === "string" && delta.content.length > 0) {
          const n = utf8Length(delta.content);
          if (contentBytes + n > limits.maxTextBytes) {
            await fail(
              new ProviderError(
                "response_limit",
                `Assistant text exceeded ${limits.maxTextBytes} bytes`,
              ),
            );
          }
          contentBytes += n;
          content += delta.content;
          // A slow client is not a silent provider: the idle clock stops while we wait.
          idle.pause();
          try {
            await request.onDelta(delta.content);
          } catch (e) {
            throw new ConsumerError(e);
          }
          idle.resume();
        }
        if (Array.isArray(delta.tool_calls)) {
          for (const tc of delta.tool_calls) {
            if (!tc || typeof tc !== "object") continue;
            const index = Number.isInteger(tc.index) ? tc.index! : calls.length;
            let slot = callsByIndex.get(index);
            if (slot === undefined) {
              if (calls.length >= limits.maxToolCalls) {
                await fail(
                  new ProviderError(
                    "tool_limit",
                    `Provider requested more than ${limits.maxToolCalls} tool calls in one response`,
                  ),
                );
              }
              slot = calls.length;
              callsByIndex.set(index, slot);
              calls.push({ id: "", name: "", args: "", argBytes: 0 });
            }
            const call = calls[slot]!;
            if (typeof tc.id === "string" && tc.id) call.id = tc.id;
            const fn = tc.function;
            if (fn && typeof fn === "object") {
              if (typeof fn.name === "string") call.name += fn.name;
              if (typeof fn.arguments === "string") {
                call.argBytes += utf8Length(fn.arguments);
                if (call.argBytes > limits.maxToolArgumentBytes) {
                  await fail(
                    new ProviderError(
                      "tool_limit",
                      `Tool call arguments exceeded ${limits.maxToolArgumentBytes} bytes`,
                    ),
                  );
                }
                call.args += fn.arguments;
              }
            }
          }
        }
      }
    } catch (e) {
      // Every way out of the loop that is not the end of the stream cancels the HTTP body.
      await reader.cancel().catch(() => {});
      throw e;
    } finally {
      reader.releaseLock();
    }
    if (!done) {
      await events.cancel().catch(() => {});
      if (finishReason === undefined) {
        throw new ProviderError(
          "provider_error",
          "Provider stream ended before the response was complete",
        );
      }
    } else {
      // The rest of the body (if any) is not needed.
      await events.cancel().catch(() => {});
    }
    const toolCalls: ChatToolCall[] = calls.map((c, i) => ({
      id: clip(c.id, MAX_TOOL_ID_CHARS) || `call_${i}`,
      type: "function",
      function: { name: clip(c.name, MAX_TOOL_ID_CHARS), arguments: c.args },
    }));
    const response: ProviderResponse = { content, toolCalls };
    if (usage) response.usage = usage;
    if (finishReason !== undefined) response.finishReason = finishReason;
    return response;
  }
}

/** An error thrown by the request's `onDelta`: passed through to the caller unchanged. */
class ConsumerError extends Error {
  override readonly cause: unknown;
  constructor(cause: unknown) {
    super("onDelta failed");
    this.cause = cause;
  }
}

/** Provider-supplied text shown in messages and events is cut to this many characters. */
const MAX_DETAIL_CHARS = 2000;
/** Tool call names and ids longer than this are cut (they are echoed in every tool event). */
const MAX_TOOL_ID_CHARS = 256;

interface OpenAIChunk {
  choices?: Array<{
    delta?: {
      content?: unknown;
      tool_calls?: Array<{
        index?: number;
        id?: unknown;
        function?: { name?: unknown; arguments?: unknown };
      }>;
    };
    finish_reason?: unknown;
  }>;
  usage?: { prompt_tokens?: number; completion_tokens?: number };
  error?: { message?: unknown } | string;
}

/** An abort signal that fires when nothing was received for `ms`, or when `parent` aborts. */
class IdleTimer {
  #controller = new AbortController();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #ms: number;
  #parent: AbortSignal;
  #onParent = () => this.#controller.abort(this.#parent.reason);
  #paused = false;
  #last = Date.now();
  #stopped = false;
  fired = false;

  constructor(ms: number, parent: AbortSignal) {
    this.#ms = ms;
    this.#parent = parent;
    parent.addEventListener("abort", this.#onParent, { once: true });
    this.#arm(ms);
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  // One timer, re-armed only when it fires: activity just moves a timestamp, so a stream of
  // thousands of chunks costs no timer churn.
  #arm(ms: number): void {
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      if (this.#stopped) return;
      // While the consumer is paused, bytes still trickle into the pipeline's buffers; the clock
      // only runs again once the consumer is back.
      const idle = Date.now() - this.#last;
      if (this.#paused || idle < this.#ms) {
        this.#arm(this.#paused ? this.#ms : this.#ms - idle);
        return;
      }
      this.fired = true;
      this.#controller.abort(new DOMException("provider idle timeout", "TimeoutError"));
    }, ms);
  }

  touch(): void {
    this.#last = Date.now();
  }

  pause(): void {
    this.#paused = true;
  }

  resume(): void {
    this.#paused = false;
    this.#last = Date.now();
  }

  stop(): void {
    this.#stopped = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#parent.removeEventListener("abort", this.#onParent);
  }
}

async function readErrorBody(res: Response, idle: IdleTimer): Promise<string> {
  if (!res.body) return res.statusText || "no details";
  const reader = res.body.getReader();
  const parts: Uint8Array[] = [];
  let total = 0;
  try {
    while (total < MAX_ERROR_BODY) {
      const { value, done } = await reader.read();
      if (done) break;
      idle.touch();
      parts.push(value);
      total += value.length;
    }
  } catch {
    // Whatever arrived is still worth showing.
  } finally {
    await reader.cancel().catch(() => {});
  }
  const buf = new Uint8Array(Math.min(total, MAX_ERROR_BODY));
  let off = 0;
  for (const p of parts) {
    const take = Math.min(p.length, buf.length - off);
    buf.set(p.subarray(0, take), off);
    off += take;
  }
  const text = new TextDecoder().decode(buf).trim();
  try {
    const json = JSON.parse(text);
    const msg = json?.error?.message ?? json?.error ?? json?.message;
    if (typeof msg === "string" && msg) return clip(msg, MAX_DETAIL_CHARS);
  } catch {
    // Not JSON: show the text itself.
  }
  return text.slice(0, 500) || res.statusText || "no details";
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/** A token count as a provider may report it: a non-negative safe integer. */
function isCount(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}
