/**
 * JSON with object keys sorted at every depth, so equal arguments give equal text: what a
 * session rule remembers a call without a path by.
 *
 * @module
 */

/**
 * The canonical JSON text of a value.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { canonicalJson } from "./canonical_json.ts";
 * assert.equal(canonicalJson({ b: 1, a: [{ d: 2, c: 3 }] }), '{"a":[{"c":3,"d":2}],"b":1}');
 * ```
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const entries = Object.keys(value).sort().map((k) =>
      `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`
    );
    return `{${entries.join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}
