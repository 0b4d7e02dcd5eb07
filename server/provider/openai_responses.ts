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
import { clip } from "../error_text.ts";
import { callError, endpointUrl, HttpStatusError, ProviderHttp } from "./http.ts";
import { DEFAULT_RESPONSE_LIMITS } from "./limits.ts";
import type { ProviderOptions } from "./options.ts";
import { Redactor, urlSecrets } from "./redact.ts";
import { OPTIONAL_FIELDS, type OptionalField, responsesBody } from "./responses_request.ts";

/** Models whose refusals are remembered, at most. */
const MAX_REMEMBERED_MODELS = 64;
import { ResponsesAccumulator } from "./responses_accumulator.ts";
import { DEFAULT_RETRY_POLICY } from "./retry.ts";
import { type Provider, ProviderError, type ProviderEvent, type ProviderRequest } from "./types.ts";
import { mergeHeaders } from "./request_headers.ts";

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
  #o: ProviderOptions;
  #http: ProviderHttp;
  #redactor: Redactor;
  /** Optional fields each model refused; not sent to it again. Bounded, as models are. */
  #refused = new Map<string, Set<OptionalField>>();

  /** Creates a provider for one base URL. */
  constructor(options: ProviderOptions) {
    this.#o = options;
    this.#redactor = new Redactor([
      options.apiKey,
      ...(options.secrets ?? []),
      ...urlSecrets(options.baseUrl),
    ]);
    // The wire's own headers and the key win over provider_headers, whatever their case.
    const headers = mergeHeaders(
      options.headers ?? {},
      { "content-type": "application/json", "accept": "text/event-stream" },
      options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {},
    );
    this.#http = new ProviderHttp({
      url: endpointUrl(options.baseUrl, "/responses"),
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
        if (typeof data === "object" && data !== null && !("type" in data)) {
          (data as Record<string, unknown>).type = ev.event;
        }
        for (const out of acc.push(data)) yield out;
        if (acc.complete) break;
      }
      if (!acc.complete) {
        throw new ProviderError(
          "provider_error",
          "Provider stream ended before the response was complete (no response.completed)",
        );
      }
      const events = acc.finish();
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
