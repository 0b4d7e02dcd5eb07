/**
 * What a provider call costs by the `pricing` setting (server/pricing.ts), and dollar amounts
 * as the wire carries them.
 *
 * @module
 */
import type { ProviderUsage } from "./types.ts";
import type { ModelPrice } from "../pricing.ts";

/**
 * What one provider call cost in USD by `price`. Cached and cache-write tokens are part of
 * `prompt_tokens` (each provider's accumulator counts them so), priced at their own rates.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { costOf } from "./pricing.ts";
 * const price = { input: 2, output: 8, cached_input: 0.5 };
 * const usage = { prompt_tokens: 1_000_000, cached_prompt_tokens: 400_000, completion_tokens: 100_000 };
 * assert.equal(costOf(usage, price), 0.6 * 2 + 0.4 * 0.5 + 0.1 * 8);
 * ```
 */
export function costOf(usage: ProviderUsage, price: ModelPrice): number {
  const prompt = usage.prompt_tokens ?? 0;
  const cached = Math.min(prompt, usage.cached_prompt_tokens ?? 0);
  const written = Math.min(prompt - cached, usage.cache_write_tokens ?? 0);
  const plain = prompt - cached - written;
  const perToken = (tokens: number, usdPerMillion: number) => tokens * usdPerMillion / 1e6;
  return perToken(plain, price.input) +
    perToken(cached, price.cached_input ?? price.input) +
    perToken(written, price.cache_write ?? price.input) +
    perToken(usage.completion_tokens ?? 0, price.output);
}

/**
 * A dollar amount as the wire carries it: rounded to a millionth of a dollar, so sums of
 * floating-point products do not show as 0.30000000000000004.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { roundUsd } from "./pricing.ts";
 * assert.equal(roundUsd(0.1 + 0.2), 0.3);
 * ```
 */
export function roundUsd(usd: number): number {
  return Math.round(usd * 1e6) / 1e6;
}

/**
 * The price of `model` in `pricing`, or undefined when it has none (never an inherited
 * property: a model named `constructor` has no price unless listed).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { priceOf } from "./pricing.ts";
 * assert.equal(priceOf({}, "constructor"), undefined);
 * ```
 */
export function priceOf(
  pricing: Readonly<Record<string, ModelPrice>>,
  model: string,
): ModelPrice | undefined {
  return Object.hasOwn(pricing, model) ? pricing[model] : undefined;
}
