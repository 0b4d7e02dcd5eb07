/**
 * The `pricing` setting (in the base layer, as the config reads it): USD per million tokens by
 * model name. scv has no built-in price table: prices change, and a wrong one is worse than
 * none; a model without an entry has no cost. What a call costs by it: provider/pricing.ts.
 *
 * ```jsonc
 * "pricing": { "gpt-4.1-mini": { "input": 0.4, "output": 1.6, "cached_input": 0.1 } }
 * ```
 *
 * `input` and `output` are required; `cached_input` (prompt tokens read from the provider's
 * cache) and `cache_write` (Anthropic's cache creation) default to `input`, so a price left out
 * never makes a turn look cheaper.
 *
 * @module
 */

/** One model's prices, in USD per million tokens. */
export interface ModelPrice {
  /** Prompt tokens not read from (or written to) the cache. */
  input: number;
  /** Answer tokens, reasoning included. */
  output: number;
  /** Prompt tokens read from the cache; defaults to `input`. */
  cached_input?: number;
  /** Prompt tokens written to the cache; defaults to `input`. */
  cache_write?: number;
}

/** The most models `pricing` may list. */
export const MAX_PRICED_MODELS = 256;

/** The highest price scv accepts, in USD per million tokens: beyond it, a typo is likelier. */
export const MAX_PRICE = 100000;

const PRICE_KEYS = ["input", "output", "cached_input", "cache_write"] as const;

/**
 * Validates a `pricing` object, throwing a RangeError whose message names the model and the
 * price that is wrong.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { validatePricing } from "./pricing.ts";
 * assert.deepEqual(validatePricing({ m: { input: 1, output: 2 } }), { m: { input: 1, output: 2 } });
 * assert.throws(() => validatePricing({ m: { input: 1 } }), /"pricing\.m\.output" is required/);
 * ```
 */
export function validatePricing(value: unknown): Record<string, ModelPrice> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new RangeError(`"pricing" must be an object of model names to prices`);
  }
  const entries = Object.entries(value);
  if (entries.length > MAX_PRICED_MODELS) {
    throw new RangeError(
      `"pricing" may list at most ${MAX_PRICED_MODELS} models, got ${entries.length}`,
    );
  }
  const out: Record<string, ModelPrice> = {};
  for (const [model, price] of entries) {
    const at = `"pricing.${model}"`;
    if (model.trim() === "") throw new RangeError(`"pricing" has an empty model name`);
    if (typeof price !== "object" || price === null || Array.isArray(price)) {
      throw new RangeError(
        `${at} must be an object like {"input": 0.4, "output": 1.6} (USD per 1M tokens)`,
      );
    }
    const p = price as Record<string, unknown>;
    for (const key of Object.keys(p)) {
      if (!(PRICE_KEYS as readonly string[]).includes(key)) {
        throw new RangeError(
          `"pricing.${model}.${key}" is not a price; known prices are ${PRICE_KEYS.join(", ")}`,
        );
      }
    }
    for (const key of PRICE_KEYS) {
      const v = p[key];
      if (v === undefined) {
        if (key === "input" || key === "output") {
          throw new RangeError(`"pricing.${model}.${key}" is required (USD per 1M tokens)`);
        }
        continue;
      }
      if (typeof v !== "number" || !Number.isFinite(v) || v < 0 || v > MAX_PRICE) {
        throw new RangeError(
          `"pricing.${model}.${key}" must be a number of USD per 1M tokens from 0 to ${MAX_PRICE}, got ${
            JSON.stringify(v) ?? String(v)
          }`,
        );
      }
    }
    out[model] = { ...p } as unknown as ModelPrice;
  }
  return out;
}
