/**
 * The headers of a provider request: scv's defaults, the user's `provider_headers`, the ones the
 * wire needs, and the key, merged by name without regard to case. HTTP names are
 * case-insensitive, so `Authorization` beside scv's `authorization` would otherwise go out as
 * one header with both values joined (`Bearer a, Bearer b`), which every provider refuses.
 *
 * @module
 */

/**
 * The key's header for the provider's wire: `x-api-key` for Anthropic's Messages API,
 * `authorization: Bearer` for every OpenAI-compatible one; none without a key. The one place
 * a key becomes a header.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { keyHeader } from "./request_headers.ts";
 * assert.deepEqual(keyHeader("openai-chat", "sk-1"), { authorization: "Bearer sk-1" });
 * assert.deepEqual(keyHeader("anthropic", "sk-1"), { "x-api-key": "sk-1" });
 * assert.deepEqual(keyHeader("openai-chat", undefined), {});
 * ```
 */
export function keyHeader(
  provider: string,
  key: string | undefined,
): Record<string, string> {
  if (!key) return {};
  return provider === "anthropic" ? { "x-api-key": key } : { authorization: `Bearer ${key}` };
}

/**
 * Merges header sets; a later set wins for a name any earlier set has, whatever its case. The
 * names come out lower-cased.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { mergeHeaders } from "./request_headers.ts";
 * const h = mergeHeaders({ "anthropic-version": "2023-06-01" }, { "Anthropic-Version": "2025-01-01" });
 * assert.deepEqual(h, { "anthropic-version": "2025-01-01" });
 * ```
 */
export function mergeHeaders(
  ...sets: ReadonlyArray<Readonly<Record<string, string>>>
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const set of sets) {
    for (const [name, value] of Object.entries(set)) out[name.toLowerCase()] = value;
  }
  return out;
}
