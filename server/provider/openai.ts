/**
 * The OpenAI Chat Completions streaming provider (`provider: "openai-chat"`). It works with any
 * compatible server: it sends only standard fields, reads the chunk shapes they really send
 * (see `chat_accumulator.ts`), and adapts by shape, never by host name, to the two refusals seen
 * in the field: `stream_options` (Mistral: extra fields forbidden) is dropped and the request
 * sent again, once; `tools` (llama.cpp without `--jinja`, Ollama models without tool support,
 * vLLM without auto tool choice) is dropped for that model with a notice the user sees.
 *
 * @module
 */
import { ChatAccumulator } from "./chat_accumulator.ts";
import { chatMessages } from "./chat_request.ts";
import { checkImageLimits, OPENAI_IMAGE_LIMITS } from "./image_content.ts";
import { MAX_DETAIL_CHARS } from "./response_end.ts";
import { errorTextOf } from "./error_body.ts";
import { callError, HttpStatusError, ModelLoadingError, type ProviderHttp } from "./http.ts";
import { sleep } from "../timer.ts";
import type { ProviderMemory } from "./memory.ts";
import { DEFAULT_RESPONSE_LIMITS, type ResponseLimits } from "./limits.ts";
import type { ProviderOptions } from "./options.ts";
import type { Redactor } from "./redact.ts";
import { DEFAULT_RETRY_POLICY } from "./retry.ts";
import { clip } from "../error_text.ts";
import {
  type Provider,
  ProviderError,
  type ProviderEvent,
  type ProviderRequest,
  type ProviderUsage,
} from "./types.ts";
import { keyHeader } from "./request_headers.ts";
import { providerTransport } from "./transport.ts";
import { eventJson } from "./typed_stream.ts";
import { relayRead } from "./join_text.ts";

/**
 * Settings of an {@link OpenAIProvider}: the common {@link ProviderOptions}, plus the retry
 * policy as separate numbers (kept for embedders of scv 0.1).
 */
export interface OpenAIProviderOptions extends ProviderOptions {
  /** Attempts in all for 429/5xx answered before any body byte; default 3. */
  maxAttempts?: number;
  /** First backoff delay when no Retry-After is given; doubles per attempt. Default 500 ms. */
  retryBaseMs?: number;
  /** Longest wait honoured from a Retry-After header; default 60 s. */
  maxRetryAfterMs?: number;
}

/**
 * Streams chat completions over `fetch` with every protocol cap enforced while reading.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { OpenAIProvider } from "./openai.ts";
 * const p = new OpenAIProvider({ baseUrl: "http://127.0.0.1:1/v1", idleTimeoutMs: 1000 });
 * assert(typeof p.stream === "function");
 * ```
 */
export class OpenAIProvider implements Provider {
  /** Every model of this API may be sent images (a model that cannot answers with an error). */
  readonly acceptsImages = true;
  #limits: ResponseLimits;
  #http: ProviderHttp;
  #redactor: Redactor;
  /** The server refused `stream_options` once: it is not sent again. */
  #noStreamOptions = false;
  /** Models the server refused tools for, with its reason. */
  #noTools = new Map<string, string>();
  #memory: ProviderMemory | undefined;
  #baseUrl: string;
  #startupTimeoutMs: number;

  /** Creates a provider for one base URL. */
  constructor(options: OpenAIProviderOptions) {
    this.#limits = options.limits ?? DEFAULT_RESPONSE_LIMITS;
    this.#memory = options.memory;
    this.#baseUrl = options.baseUrl;
    this.#startupTimeoutMs = options.startupTimeoutMs ?? DEFAULT_STARTUP_TIMEOUT_MS;
    ({ http: this.#http, redactor: this.#redactor } = providerTransport(options, {
      path: "/chat/completions",
      auth: keyHeader("openai-chat", options.apiKey),
      retry: {
        maxAttempts: options.maxAttempts ?? options.retry?.maxAttempts ??
          DEFAULT_RETRY_POLICY.maxAttempts,
        baseMs: options.retryBaseMs ?? options.retry?.baseMs ?? DEFAULT_RETRY_POLICY.baseMs,
        maxWaitMs: options.maxRetryAfterMs ?? options.retry?.maxWaitMs ??
          DEFAULT_RETRY_POLICY.maxWaitMs,
      },
      isRefusal: (status, body) => status >= 400 && status !== 429 && TOOLS_REFUSAL.test(body),
    }));
  }

  /** Streams one completion. */
  async *stream(request: ProviderRequest): AsyncGenerator<ProviderEvent> {
    const { signal } = request;
    try {
      checkImageLimits(request.messages, OPENAI_IMAGE_LIMITS);
      let refusedTools = this.#refusal(request.model);
      let withTools = request.tools.length > 0 && refusedTools === undefined;
      let res;
      const deadline = Date.now() + this.#startupTimeoutMs;
      let waited = 0;
      for (let round = 0;;) {
        try {
          res = await this.#http.open(this.#body(request, withTools), signal);
          break;
        } catch (e) {
          if (e instanceof ModelLoadingError && Date.now() < deadline) {
            // A local server that is still loading its model: wait it out, cancellably.
            if (waited++ === 0) {
              yield {
                type: "notice",
                message: `The provider is loading the model; waiting up to ` +
                  `${Math.round(this.#startupTimeoutMs / 1000)} s (provider_startup_timeout_ms)`,
              };
            }
            const delay = Math.min(LOADING_POLL_MAX_MS, 250 * 2 ** Math.min(waited, 4));
            await sleep(Math.max(0, Math.min(delay, deadline - Date.now())), signal);
            continue;
          }
          if (!(e instanceof HttpStatusError) || round++ >= 2) throw e;
          if (!this.#noStreamOptions && refusesField(e, "stream_options")) {
            this.#noStreamOptions = true;
            continue;
          }
          if (withTools && refusesTools(e)) {
            withTools = false;
            refusedTools = clip(e.message, MAX_DETAIL_CHARS);
            // Bounded: a client may name any number of models (session.configure).
            if (this.#noTools.size >= MAX_REMEMBERED_MODELS) this.#noTools.clear();
            this.#noTools.set(request.model, refusedTools);
            await this.#memory?.rememberToolsRefused(this.#baseUrl, request.model, refusedTools);
            continue;
          }
          throw e;
        }
      }
      if (refusedTools !== undefined && request.tools.length > 0) {
        yield {
          type: "notice",
          message: `Model "${clip(request.model, 200)}" cannot use tools here; ` +
            `answering without them (${refusedTools})`,
        };
      }
      if (withTools && this.#memory?.hasToolsRefusal(this.#baseUrl, request.model)) {
        // An older refusal asked again, and the server now takes tools (restarted with --jinja).
        await this.#memory.forgetToolsRefused(this.#baseUrl, request.model);
      }
      const acc = new ChatAccumulator(this.#limits);
      let usage: ProviderUsage | undefined;
      let complete = false;
      // One read's events are relayed together, their text joined (join_text.ts).
      for await (const batch of this.#http.batches(res, signal)) {
        complete = yield* relayRead(batch, (ev, out) => {
          if (ev.error !== undefined || ev.event === "error") throw sseError(ev.error ?? ev.data);
          if (ev.data === "[DONE]" || ev.data.trim() === "[DONE]") return true;
          for (const e of acc.push(eventJson(ev.data))) {
            if (e.type === "usage") usage = e.usage;
            out.push(e);
          }
          return false;
        }, request.joinTextChars ?? 0);
        if (complete) break;
      }
      if (!complete && acc.finishReason === undefined) {
        throw new ProviderError(
          "provider_error",
          "Provider stream ended before the response was complete",
        );
      }
      const events = acc.finish();
      const cut = CUT_SHORT[acc.finishReason ?? ""];
      const full = acc.finishReason === "length" && fillsWindow(usage, request.contextWindow);
      if (full) {
        yield {
          type: "notice",
          message: `The provider stopped the answer because its context window is full ` +
            `(${(usage?.prompt_tokens ?? 0) + (usage?.completion_tokens ?? 0)} of ` +
            `${request.contextWindow} tokens; finish_reason: length)`,
        };
      } else if (cut) {
        yield {
          type: "notice",
          message: `The provider ${cut} (finish_reason: ${acc.finishReason})`,
        };
      }
      yield* events;
    } catch (e) {
      throw callError(e, signal, this.#redactor);
    }
  }

  /** False when the server refused tools for `model`, in this process or within a day. */
  acceptsTools(model: string): boolean {
    return this.#refusal(model) === undefined;
  }

  #refusal(model: string): string | undefined {
    return this.#noTools.get(model) ??
      this.#memory?.toolsRefused(this.#baseUrl, model, TOOLS_RECHECK_MS);
  }

  #body(request: ProviderRequest, withTools: boolean): string {
    return JSON.stringify({
      model: request.model,
      messages: chatMessages(request.messages),
      ...(withTools ? { tools: request.tools } : {}),
      stream: true,
      ...(this.#noStreamOptions ? {} : { stream_options: { include_usage: true } }),
    });
  }
}

/** `provider_startup_timeout_ms`'s default: how long a loading model is waited for. */
export const DEFAULT_STARTUP_TIMEOUT_MS = 120_000;
/**
 * A refusal of tools remembered from another process is trusted this long; an older one (up to
 * a day) is asked again once per process, so a server restarted with `--jinja` gets its tools
 * back, and forgotten when the server takes them.
 */
export const TOOLS_RECHECK_MS = 60 * 60 * 1000;
/** The longest pause between two looks at a loading server. */
const LOADING_POLL_MAX_MS = 2000;

/** Models remembered as refusing tools, at most. */
const MAX_REMEMBERED_MODELS = 64;

/** Finish reasons that mean the answer is not whole, and how to say so. */
export const CUT_SHORT: Readonly<Record<string, string>> = Object.freeze({
  length: "cut the answer short at its output limit",
  content_filter: "withheld part of the answer (content filter)",
});

/**
 * Whether a call's usage reached the context window: a `length` finish then means the context
 * is full, not that the answer hit an output limit. A few tokens of slack cover the template.
 */
function fillsWindow(usage: ProviderUsage | undefined, window: number | undefined): boolean {
  if (!usage || window === undefined) return false;
  const used = (usage.prompt_tokens ?? 0) + (usage.completion_tokens ?? 0);
  return used >= window - Math.max(8, Math.ceil(window * 0.01));
}

/** An SSE `error:` field or `event: error` (older llama.cpp): the provider's own message. */
function sseError(data: string): ProviderError {
  const msg = errorTextOf(data) || "no details";
  return new ProviderError("provider_error", {
    before: "Provider reported an error: ",
    text: msg,
    max: MAX_DETAIL_CHARS,
  });
}

/** A 400/422 whose body names the field: the server does not accept it. */
function refusesField(e: HttpStatusError, field: string): boolean {
  return (e.status === 400 || e.status === 422) && e.body.includes(field);
}

/**
 * A refusal of `tools` itself, as llama.cpp ("tools param requires --jinja flag", older builds
 * "Cannot use tools with stream"), Ollama ("... does not support tools"), vLLM ("auto" tool
 * choice requires --enable-auto-tool-choice) and OpenRouter ("No endpoints found that support
 * tool use") word it.
 */
function refusesTools(e: HttpStatusError): boolean {
  if (e.status < 400 || e.status === 401 || e.status === 403 || e.status === 429) return false;
  return TOOLS_REFUSAL.test(e.body);
}

/** How servers word "this model or server cannot take tools". */
const TOOLS_REFUSAL =
  /does not support tools|support tool use|cannot use tools with stream|tools? (?:param |parameter )?requires|tool choice requires|tool_choice.*(?:requires|not supported)|(?:tools?|function calling) (?:is |are )?not (?:supported|enabled|available)/i;
