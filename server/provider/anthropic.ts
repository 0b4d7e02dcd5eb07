/**
 * The Anthropic Messages streaming provider (`provider: "anthropic"`): `POST {base_url}/messages`
 * with `x-api-key` and `anthropic-version`, the history translated by `anthropic_request.ts`
 * and the stream read by `anthropic_accumulator.ts`, under the same caps, retries (429, 529
 * "overloaded" and every 5xx before any body byte), timeouts and redaction as every provider.
 *
 * @module
 */
import { clip } from "../error_text.ts";
import { AnthropicAccumulator } from "./anthropic_accumulator.ts";
import { anthropicBody } from "./anthropic_request.ts";
import { callError, endpointUrl, ProviderHttp } from "./http.ts";
import { DEFAULT_RESPONSE_LIMITS } from "./limits.ts";
import { Redactor, urlSecrets } from "./redact.ts";
import { DEFAULT_RETRY_POLICY } from "./retry.ts";
import type { ProviderOptions } from "./options.ts";
import { type Provider, ProviderError, type ProviderEvent, type ProviderRequest } from "./types.ts";
import { mergeHeaders } from "./request_headers.ts";

/** The API version scv speaks (https://docs.anthropic.com/en/api/versioning). */
export const ANTHROPIC_VERSION = "2023-06-01";

/**
 * Streams Messages API responses.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { AnthropicProvider } from "./anthropic.ts";
 * const p = new AnthropicProvider({ baseUrl: "http://127.0.0.1:1/v1", idleTimeoutMs: 1000 });
 * assert(typeof p.stream === "function");
 * ```
 */
export class AnthropicProvider implements Provider {
  #o: ProviderOptions;
  #http: ProviderHttp;
  #redactor: Redactor;

  /** Creates a provider for one base URL. */
  constructor(options: ProviderOptions) {
    this.#o = options;
    this.#redactor = new Redactor([
      options.apiKey,
      ...(options.secrets ?? []),
      ...urlSecrets(options.baseUrl),
    ]);
    // The user may choose another anthropic-version; the wire's own headers and the key win.
    const headers = mergeHeaders(
      { "anthropic-version": ANTHROPIC_VERSION },
      options.headers ?? {},
      { "content-type": "application/json", "accept": "text/event-stream" },
      options.apiKey ? { "x-api-key": options.apiKey } : {},
    );
    this.#http = new ProviderHttp({
      url: endpointUrl(options.baseUrl, "/messages"),
      headers,
      idleTimeoutMs: options.idleTimeoutMs,
      retry: options.retry ?? DEFAULT_RETRY_POLICY,
      limits: options.limits ?? DEFAULT_RESPONSE_LIMITS,
      redactor: this.#redactor,
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });
  }

  /** Streams one response. */
  async *stream(request: ProviderRequest): AsyncGenerator<ProviderEvent> {
    const { signal } = request;
    try {
      const body = JSON.stringify(anthropicBody(request.model, request.messages, request.tools));
      const res = await this.#http.open(body, signal);
      const acc = new AnthropicAccumulator(this.#o.limits ?? DEFAULT_RESPONSE_LIMITS);
      for await (const ev of this.#http.events(res, signal)) {
        let data: unknown;
        try {
          data = JSON.parse(ev.data);
        } catch {
          throw new ProviderError(
            "provider_error",
            `Provider sent an event that is not JSON: ${clip(ev.data, 200)}`,
          );
        }
        // The data names its own type; the SSE event name says the same when present.
        if (typeof data === "object" && data !== null && !("type" in data)) {
          (data as Record<string, unknown>).type = ev.event;
        }
        for (const out of acc.push(data)) yield out;
        if (acc.complete) break;
      }
      if (!acc.complete) {
        throw new ProviderError(
          "provider_error",
          "Provider stream ended before the response was complete (no message_stop)",
        );
      }
      const events = acc.finish();
      const done = events.at(-1);
      const reason = done?.type === "done" ? done.finishReason : undefined;
      if (reason === "max_tokens" || reason === "refusal") {
        yield {
          type: "notice",
          message: reason === "max_tokens"
            ? "The provider cut the answer short at its output limit (stop_reason: max_tokens)"
            : "The model declined to answer (stop_reason: refusal)",
        };
      }
      yield* events;
    } catch (e) {
      throw callError(e, signal, this.#redactor);
    }
  }
}
