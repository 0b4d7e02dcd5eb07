/**
 * The OpenAI Responses streaming provider (`provider: "openai-responses"`): `POST
 * {base_url}/responses`, stateless (`store: false`, the whole input every time), the history
 * translated by `responses_request.ts` and the stream read by `responses_accumulator.ts`, under
 * the same caps, retries, timeouts and redaction as every provider. It asks for encrypted
 * reasoning (`include`) and reasoning summaries (`reasoning.summary`); a model that refuses
 * either gets the request again without it, and that is remembered for the model.
 *
 * @module
 */
import { callError, HttpStatusError, type ProviderHttp } from "./http.ts";
import { DEFAULT_RESPONSE_LIMITS } from "./limits.ts";
import type { ProviderOptions } from "./options.ts";
import type { Redactor } from "./redact.ts";
import { checkImageLimits, OPENAI_IMAGE_LIMITS } from "./image_content.ts";
import { OPTIONAL_FIELDS, type OptionalField, responsesBody } from "./responses_request.ts";
import { ResponsesAccumulator } from "./responses_accumulator.ts";
import { keyHeader } from "./request_headers.ts";
import { providerTransport } from "./transport.ts";
import { typedEvents } from "./typed_stream.ts";
import type { Provider, ProviderEvent, ProviderRequest } from "./types.ts";

/** Models whose refusals are remembered, at most. */
const MAX_REMEMBERED_MODELS = 64;

/**
 * Streams Responses API answers.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { OpenAIResponsesProvider } from "./openai_responses.ts";
 * const p = new OpenAIResponsesProvider({ baseUrl: "http://127.0.0.1:1/v1", idleTimeoutMs: 1000 });
 * assert(typeof p.stream === "function");
 * ```
 */
export class OpenAIResponsesProvider implements Provider {
  /** Every model of this API may be sent images (a model that cannot answers with an error). */
  readonly acceptsImages = true;
  #o: ProviderOptions;
  #http: ProviderHttp;
  #redactor: Redactor;
  /** Optional fields each model refused; not sent to it again. Bounded, as models are. */
  #refused = new Map<string, Set<OptionalField>>();

  /** Creates a provider for one base URL. */
  constructor(options: ProviderOptions) {
    this.#o = options;
    ({ http: this.#http, redactor: this.#redactor } = providerTransport(options, {
      path: "/responses",
      auth: keyHeader("openai-chat", options.apiKey),
    }));
  }

  /** Streams one response. */
  async *stream(request: ProviderRequest): AsyncGenerator<ProviderEvent> {
    const { signal } = request;
    try {
      checkImageLimits(request.messages, OPENAI_IMAGE_LIMITS);
      let res;
      const refused = this.#refused.get(request.model) ?? new Set<OptionalField>();
      for (;;) {
        const optional = new Set(OPTIONAL_FIELDS.filter((f) => !refused.has(f)));
        const body = responsesBody(request.model, request.messages, request.tools, optional);
        try {
          res = await this.#http.open(JSON.stringify(body), signal);
          break;
        } catch (e) {
          // A 400/422 naming a field we could do without: drop it for this model, once each.
          const field = e instanceof HttpStatusError && (e.status === 400 || e.status === 422)
            ? [...optional].find((f) => e.body.includes(f))
            : undefined;
          if (field === undefined) throw e;
          refused.add(field);
          if (this.#refused.size >= MAX_REMEMBERED_MODELS) this.#refused.clear();
          this.#refused.set(request.model, refused);
        }
      }
      const acc = new ResponsesAccumulator(this.#o.limits ?? DEFAULT_RESPONSE_LIMITS);
      const events = yield* typedEvents(
        this.#http,
        res,
        signal,
        acc,
        "response.completed",
        request.joinTextChars,
      );
      const done = events.at(-1);
      if (done?.type === "done" && done.finishReason?.startsWith("incomplete")) {
        yield {
          type: "notice",
          message: `The provider cut the answer short (${done.finishReason})`,
        };
      }
      yield* events;
    } catch (e) {
      throw callError(e, signal, this.#redactor);
    }
  }
}
