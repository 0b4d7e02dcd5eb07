/**
 * The settings every provider takes, so the factory builds each the same way.
 *
 * @module
 */
import type { ResponseLimits } from "./limits.ts";
import type { ProviderMemory } from "./memory.ts";
import type { RetryPolicy } from "./retry.ts";

/** Settings of a provider. */
export interface ProviderOptions {
  /** Base URL ending before the endpoint (`/chat/completions`, `/responses`, `/messages`). */
  baseUrl: string;
  /** The API key; absent for local servers (no key header is sent). */
  apiKey?: string | undefined;
  /** Extra headers (`provider_headers`, already expanded). */
  headers?: Record<string, string>;
  /** Values to redact besides the key (expanded `${VAR}` header values). */
  secrets?: readonly string[];
  /** No byte from the provider for this long fails the call. */
  idleTimeoutMs: number;
  /** Retries of 429/5xx before any body byte; the contract's by default. */
  retry?: RetryPolicy;
  /** The protocol's caps by default. */
  limits?: ResponseLimits;
  /** The HTTP client; `fetch` by default. */
  fetch?: typeof fetch;
  /** What outlives the process (tools refused per model); nothing beyond it by default. */
  memory?: ProviderMemory | undefined;
  /** How long a model that is still loading is waited for (`provider_startup_timeout_ms`). */
  startupTimeoutMs?: number;
}
