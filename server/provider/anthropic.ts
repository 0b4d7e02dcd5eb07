/**
 * The Anthropic Messages streaming provider (`provider: "anthropic"`): `POST {base_url}/messages`
 * with `x-api-key` and `anthropic-version`, the history translated by `anthropic_request.ts`
 * and the stream read by `anthropic_accumulator.ts`, under the same caps, retries (429, 529
 * "overloaded" and every 5xx before any body byte), timeouts and redaction as every provider.
 *
 * @module
 */
import { AnthropicAccumulator } from "./anthropic_accumulator.ts";
import { anthropicBody } from "./anthropic_request.ts";
import { ANTHROPIC_IMAGE_LIMITS, checkImageLimits, fitImages } from "./image_content.ts";
import { callError, type ProviderHttp } from "./http.ts";
import { DEFAULT_RESPONSE_LIMITS } from "./limits.ts";
import type { Redactor } from "./redact.ts";
import type { ProviderOptions } from "./options.ts";
import { keyHeader } from "./request_headers.ts";
import { providerTransport } from "./transport.ts";
import { typedEvents } from "./typed_stream.ts";
import type { Provider, ProviderEvent, ProviderRequest } from "./types.ts";

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
  /** Every model of this API may be sent images (a model that cannot answers with an error). */
  readonly acceptsImages = true;
  #o: ProviderOptions;
  #http: ProviderHttp;
  #redactor: Redactor;

  /** Creates a provider for one base URL. */
  constructor(options: ProviderOptions) {
    this.#o = options;
    // The user may choose another anthropic-version; the wire's own headers and the key win.
    ({ http: this.#http, redactor: this.#redactor } = providerTransport(options, {
      path: "/messages",
      defaults: { "anthropic-version": ANTHROPIC_VERSION },
      auth: keyHeader("anthropic", options.apiKey),
    }));
  }

  /** Streams one response. */
  async *stream(request: ProviderRequest): AsyncGenerator<ProviderEvent> {
    const { signal } = request;
    try {
      // A PNG or JPEG over the API's pixel limit goes out scaled down to fit.
      const messages = await fitImages(request.messages, ANTHROPIC_IMAGE_LIMITS, signal);
      checkImageLimits(messages, ANTHROPIC_IMAGE_LIMITS);
      const body = JSON.stringify(anthropicBody(request.model, messages, request.tools));
      const res = await this.#http.open(body, signal);
      const acc = new AnthropicAccumulator(this.#o.limits ?? DEFAULT_RESPONSE_LIMITS);
      const events = yield* typedEvents(
        this.#http,
        res,
        signal,
        acc,
        "message_stop",
        request.joinTextChars,
      );
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
