/**
 * `${NAME}` references in configuration values (`provider_headers`, MCP servers' `env`,
 * `headers` and `url`), replaced from scv's environment: the one expansion every caller uses,
 * each deciding how an unset or unsuitable variable is refused.
 *
 * @module
 */

/** A `${NAME}` reference: a letter or `_`, then letters, digits and `_`. */
const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/**
 * `text` with every `${NAME}` replaced by `value(NAME)`; `value` throws to refuse a variable
 * (its error propagates). Text without a reference comes back as it is.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { expandEnvReferences } from "./env_refs.ts";
 * assert.equal(expandEnvReferences("Bearer ${T}", (n) => n === "T" ? "t0k" : ""), "Bearer t0k");
 * assert.equal(expandEnvReferences("$T and ${1X}", () => "x"), "$T and ${1X}");
 * ```
 */
export function expandEnvReferences(text: string, value: (name: string) => string): string {
  return text.replace(REFERENCE, (_, name: string) => value(name));
}

/**
 * The variables `text` references, in order, once each.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { envReferenceNames } from "./env_refs.ts";
 * assert.deepEqual(envReferenceNames("${A}-${B}-${A}"), ["A", "B"]);
 * ```
 */
export function envReferenceNames(text: string): string[] {
  return [...new Set([...text.matchAll(REFERENCE)].map((m) => m[1]!))];
}
