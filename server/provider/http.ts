/**
 * The HTTP side every provider shares: one POST with retries on 429/5xx before any body byte,
 * the idle timeout, bounded error bodies, and the body read as bounded SSE events.
 *
 * @module
 */
import { errorText } from "../error_text.ts";
import { readBoundedText } from "./bounded_body.ts";
import { errorTextOf } from "./error_body.ts";
import { IdleTimer } from "./idle_timer.ts";
import type { ResponseLimits } from "./limits.ts";
import type { Redactor } from "./redact.ts";
import { isRetryableStatus, retryDelayMs, type RetryPolicy } from "./retry.ts";
import { SseDecoder, type SseEvent } from "./sse.ts";
import { contextOverflowOf, isModelLoading } from "./overflow.ts";
import { ContextOverflowError, ProviderError } from "./types.ts";
import { sleep } from "../timer.ts";

/** An error body is read up to this many bytes. */
const MAX_ERROR_BODY = 16 * 1024;
/** ...and for at most this long. */
export const ERROR_BODY_WAIT_MS = 2000;
/** The provider's message in an error is cut to this many characters (after redaction). */
export const MAX_ERROR_DETAIL_CHARS = 2000;

/**
 * The endpoint under a base URL, keeping its query (Azure's `?api-version=...`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { endpointUrl } from "./http.ts";
 * assert.equal(endpointUrl("https://h/v1/", "/messages"), "https://h/v1/messages");
 * assert.equal(
 *   endpointUrl("https://r.openai.azure.com/openai/deployments/d?api-version=2024-10-21", "/chat/completions"),
 *   "https://r.openai.azure.com/openai/deployments/d/chat/completions?api-version=2024-10-21",
 * );
 * ```
 */
export function endpointUrl(baseUrl: string, path: string): string {
  const q = baseUrl.search(/[?#]/);
  const base = q === -1 ? baseUrl : baseUrl.slice(0, q);
  const query = q === -1 ? "" : baseUrl.slice(q);
  return base.replace(/\/+$/, "") + path + query;
}

/** An HTTP error answer; `body` (bounded, unredacted) lets a provider recognise a refusal. */
export class HttpStatusError extends ProviderError {
  /** The HTTP status. */
  readonly status: number;
  /** The first bytes of the body, as text. */
  readonly body: string;
  /** Builds the error; `message` must already be safe to show. */
  constructor(status: number, body: string, message: string) {
    super("provider_error", message);
    this.name = "HttpStatusError";
    this.status = status;
    this.body = body;
  }
}

/** The server answered that its model is still loading (llama.cpp's 503 "Loading model"). */
export class ModelLoadingError extends HttpStatusError {
  /** Builds the error; `message` must already be safe to show. */
  constructor(status: number, body: string, message: string) {
    super(status, body, message);
    this.name = "ModelLoadingError";
  }
}

/** Settings of a {@link ProviderHttp}. */
export interface ProviderHttpOptions {
  /** The endpoint, e.g. `https://api.openai.com/v1/chat/completions`. */
  url: string;
  /** Headers sent on every request. */
  headers: Record<string, string>;
  /** No byte for this long fails the request. */
  idleTimeoutMs: number;
  retry: RetryPolicy;
  limits: ResponseLimits;
  redactor: Redactor;
  fetch?: typeof fetch;
  /** An error answer the provider handles itself (by changing the request): never retried. */
  isRefusal?: (status: number, body: string) => boolean;
}

/** An answered request whose body is still to be read. */
export interface OpenResponse {
  body: ReadableStream<Uint8Array>;
  idle: IdleTimer;
  headers: Headers;
}

/** POSTs JSON to one provider endpoint and reads its SSE answer under the caps. */
export class ProviderHttp {
  #o: ProviderHttpOptions;

  /** A client for one endpoint. */
  constructor(options: ProviderHttpOptions) {
    this.#o = options;
  }

  /** The endpoint without credentials, for messages. */
  get safeUrl(): string {
    return this.#o.redactor.redact(this.#o.url);
  }

  /** The message for a request that went silent. */
  idleError(): ProviderError {
    return new ProviderError(
      "provider_error",
      `Provider sent nothing for ${this.#o.idleTimeoutMs} ms (provider_timeout_ms)`,
    );
  }

  /**
   * Sends `body`, retrying 429 and 5xx with backoff (cancellable); resolves once a 2xx answer's
   * headers are in. Throws {@link HttpStatusError} for any other answer, a `provider_error` when
   * the server cannot be reached, and the signal's reason on cancel.
   */
  async open(body: string, signal: AbortSignal): Promise<OpenResponse> {
    const { retry, redactor } = this.#o;
    for (let attempt = 1;; attempt++) {
      signal.throwIfAborted();
      const idle = new IdleTimer(this.#o.idleTimeoutMs, signal);
      let res: Response;
      try {
        res = await (this.#o.fetch ?? fetch)(this.#o.url, {
          method: "POST",
          headers: this.#o.headers,
          body,
          signal: idle.signal,
        });
      } catch (e) {
        idle.stop();
        signal.throwIfAborted();
        if (idle.fired) throw this.idleError();
        throw new ProviderError(
          "provider_error",
          redactor.safe(
            `Cannot reach the provider at ${this.#o.url}: ${errorText(e)}`,
            MAX_ERROR_DETAIL_CHARS,
          ),
        );
      }
      const type = res.headers.get("content-type") ?? "";
      if (res.ok && res.body && !/^application\/(?:problem\+)?json/i.test(type)) {
        return { body: res.body, idle, headers: res.headers };
      }
      if (res.ok && res.body) {
        // A 2xx JSON body where a stream was asked for: a proxy's error, or a server that
        // ignored "stream". Its own words say more than an empty stream would.
        const text = await errorBodyOf(res, idle);
        signal.throwIfAborted();
        throw new HttpStatusError(
          res.status,
          text,
          redactor.safe(
            `Provider answered with JSON instead of an event stream: ${
              errorTextOf(text) || "empty body"
            }`,
            MAX_ERROR_DETAIL_CHARS,
          ),
        );
      }
      if (res.ok) {
        idle.stop();
        throw new ProviderError("provider_error", "Provider returned an empty body");
      }
      const text = await errorBodyOf(res, idle);
      signal.throwIfAborted();
      const detail = errorTextOf(text) || res.statusText || "no details";
      // A model still loading is waited out by the caller (up to provider_startup_timeout_ms),
      // not by the few quick retries meant for a passing fault.
      if (isModelLoading(res.status, text)) {
        throw new ModelLoadingError(
          res.status,
          text,
          redactor.safe(`Provider returned HTTP ${res.status}: ${detail}`, MAX_ERROR_DETAIL_CHARS),
        );
      }
      const overflow = contextOverflowOf(res.status, text);
      if (overflow) {
        throw new ContextOverflowError(
          redactor.safe(
            `Provider returned HTTP ${res.status}: ${detail}`,
            MAX_ERROR_DETAIL_CHARS,
          ),
          overflow.window,
          overflow.promptTokens,
        );
      }
      // A refusal the caller can act on (a 500 "tools param requires --jinja") is not retried.
      const refusal = this.#o.isRefusal?.(res.status, text) ?? false;
      if (isRetryableStatus(res.status) && attempt < retry.maxAttempts && !refusal) {
        await sleep(retryDelayMs(res.headers, attempt, retry), signal);
        continue;
      }
      const tries = attempt > 1 ? ` after ${attempt} attempts` : "";
      throw new HttpStatusError(
        res.status,
        text,
        redactor.safe(
          `Provider returned HTTP ${res.status}${tries}: ${detail}`,
          MAX_ERROR_DETAIL_CHARS,
        ),
      );
    }
  }

  /**
   * The answer's body as SSE events, under the event and response caps. The idle clock stops
   * while the caller holds an event. Returning early (the caller broke off) cancels the body.
   */
  async *events(res: OpenResponse, signal: AbortSignal): AsyncGenerator<SseEvent> {
    for await (const batch of this.batches(res, signal)) yield* batch;
  }

  /**
   * As {@link events}, the events each read of the body completed, together (never an empty
   * batch), so that a caller can relay a fast stream one read at a time. The idle clock stops
   * while the caller holds a batch.
   */
  async *batches(res: OpenResponse, signal: AbortSignal): AsyncGenerator<SseEvent[]> {
    const { limits, redactor } = this.#o;
    const decoder = new SseDecoder(limits.maxEventBytes);
    const reader = res.body.getReader();
    const idle = res.idle;
    let bytes = 0;
    // fetch's own body errors on abort, but a body that ignores the signal (an embedder's
    // fetch) must not hang the call: cancelling the reader ends a pending read.
    const onAbort = () => void reader.cancel().catch(() => {});
    idle.signal.addEventListener("abort", onAbort, { once: true });
    const stopped = () => {
      signal.throwIfAborted();
      if (idle.fired) throw this.idleError();
    };
    try {
      while (true) {
        let chunk: ReadableStreamReadResult<Uint8Array>;
        try {
          chunk = await reader.read();
        } catch (e) {
          stopped();
          throw new ProviderError(
            "provider_error",
            redactor.safe(`Provider stream failed: ${errorText(e)}`, MAX_ERROR_DETAIL_CHARS),
          );
        }
        if (idle.signal.aborted) stopped();
        if (chunk.done) break;
        idle.touch();
        bytes += chunk.value.length;
        if (bytes > limits.maxResponseBytes) {
          throw new ProviderError(
            "response_limit",
            `Provider response exceeded ${limits.maxResponseBytes} bytes`,
          );
        }
        const evs = decoder.push(chunk.value);
        if (evs.length === 0) continue;
        idle.pause();
        yield evs;
        idle.resume();
      }
      const last = decoder.end();
      if (last.length > 0) yield last;
    } finally {
      idle.signal.removeEventListener("abort", onAbort);
      idle.stop();
      await reader.cancel().catch(() => {});
    }
  }
}

/** The body of an answer that is not a stream, bounded, then the call's idle clock stopped. */
async function errorBodyOf(res: Response, idle: IdleTimer): Promise<string> {
  try {
    return await readBounded(res, idle, ERROR_BODY_WAIT_MS);
  } finally {
    idle.stop();
  }
}

/** Up to {@link MAX_ERROR_BODY} bytes of an error answer's body, as text. */
function readBounded(res: Response, idle: IdleTimer, waitMs: number): Promise<string> {
  return readBoundedText(res.body, {
    maxBytes: MAX_ERROR_BODY,
    waitMs,
    onChunk: () => idle.touch(),
  });
}

/**
 * The error a provider call ends with: the signal's reason once cancelled, a
 * {@link ProviderError} redacted again (its message may quote provider text), anything else a
 * `provider_error` that says what broke.
 */
export function callError(e: unknown, signal: AbortSignal, redactor: Redactor): unknown {
  if (signal.aborted) return signal.reason;
  if (e instanceof HttpStatusError || e instanceof ContextOverflowError) return e; // built safe
  if (e instanceof ProviderError) {
    // A quote is redacted whole before it is cut; the cut of the unredacted text is dropped.
    const message = e.quote ? e.quote.before + redactor.safe(e.quote.text, e.quote.max) : e.message;
    return new ProviderError(e.code, redactor.safe(message, MAX_ERROR_DETAIL_CHARS + 200));
  }
  return new ProviderError(
    "provider_error",
    redactor.safe(`Provider call failed: ${errorText(e)}`, MAX_ERROR_DETAIL_CHARS),
  );
}
