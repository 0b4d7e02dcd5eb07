/**
 * How every provider sets up its HTTP from its {@link ProviderOptions}: one redactor for the key,
 * the expanded header values and the URL's credentials; the headers merged in the one order
 * (scv's defaults, `provider_headers`, the wire's own, the key); the endpoint under `base_url`.
 * Only what differs (the path, the key header, defaults, retry policy, refusals) is per provider.
 *
 * @module
 */
import { endpointUrl, ProviderHttp, type ProviderHttpOptions } from "./http.ts";
import { DEFAULT_RESPONSE_LIMITS } from "./limits.ts";
import type { ProviderOptions } from "./options.ts";
import { Redactor, urlSecrets } from "./redact.ts";
import { mergeHeaders } from "./request_headers.ts";
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from "./retry.ts";

/** What one provider's transport has of its own. */
export interface TransportSpec {
  /** The endpoint under `base_url`, e.g. `/messages`. */
  path: string;
  /** The key's header (empty without a key); it wins over every other header. */
  auth: Readonly<Record<string, string>>;
  /** scv's defaults, which `provider_headers` may override (e.g. `anthropic-version`). */
  defaults?: Readonly<Record<string, string>>;
  /** The retry policy; `options.retry`, else the contract's, by default. */
  retry?: RetryPolicy;
  /** An error answer the provider handles itself: never retried. */
  isRefusal?: ProviderHttpOptions["isRefusal"];
}

/**
 * The provider's HTTP client and the redactor its errors go through.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { providerTransport } from "./transport.ts";
 * const { redactor } = providerTransport(
 *   { baseUrl: "http://127.0.0.1:1/v1", apiKey: "sk-secret", idleTimeoutMs: 1000 },
 *   { path: "/messages", auth: { "x-api-key": "sk-secret" } },
 * );
 * assert.equal(redactor.redact("key sk-secret"), "key [redacted]");
 * ```
 */
export function providerTransport(
  options: ProviderOptions,
  spec: TransportSpec,
): { http: ProviderHttp; redactor: Redactor } {
  const redactor = new Redactor([
    options.apiKey,
    ...(options.secrets ?? []),
    ...urlSecrets(options.baseUrl),
  ]);
  // The wire's own headers and the key win over provider_headers, whatever their case.
  const headers = mergeHeaders(
    spec.defaults ?? {},
    options.headers ?? {},
    { "content-type": "application/json", "accept": "text/event-stream" },
    spec.auth,
  );
  const http = new ProviderHttp({
    url: endpointUrl(options.baseUrl, spec.path),
    headers,
    idleTimeoutMs: options.idleTimeoutMs,
    retry: spec.retry ?? options.retry ?? DEFAULT_RETRY_POLICY,
    limits: options.limits ?? DEFAULT_RESPONSE_LIMITS,
    redactor,
    ...(spec.isRefusal ? { isRefusal: spec.isRefusal } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  return { http, redactor };
}
