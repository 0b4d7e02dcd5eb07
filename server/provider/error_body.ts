/**
 * The provider's own words from an error body of any JSON shape: OpenAI's
 * `{"error":{"message"}}`, vLLM's `{"object":"error","message"}`, FastAPI's
 * `{"detail":[{"loc","msg"}]}` (Mistral), Anthropic's `{"type":"error","error":{...}}`, a bare
 * string, an array of any of these (Gemini's error lists), a message that is itself an object.
 *
 * @module
 */

/** Depth of nesting searched; error bodies are shallow, a deeper one is junk. */
const MAX_DEPTH = 6;
/** Keys that hold the human-readable message, most specific first. */
const MESSAGE_KEYS = ["message", "msg", "detail", "error_description", "error", "title", "reason"];

/**
 * The first human-readable message in a parsed error body, or undefined when there is none.
 * FastAPI-style items (`loc` plus `msg`) say where: `body.stream_options: Extra inputs...`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { errorMessageOf } from "./error_body.ts";
 * assert.equal(errorMessageOf({ error: { message: "bad key" } }), "bad key");
 * assert.equal(errorMessageOf([{ error: { code: 400, message: "nope" } }]), "nope");
 * assert.equal(
 *   errorMessageOf({ message: { detail: [{ loc: ["body", "stream_options"], msg: "Extra inputs are not permitted" }] } }),
 *   "body.stream_options: Extra inputs are not permitted",
 * );
 * ```
 */
export function errorMessageOf(value: unknown, depth = 0): string | undefined {
  if (depth > MAX_DEPTH) return undefined;
  if (typeof value === "string") return value.trim() || undefined;
  if (Array.isArray(value)) {
    const found: string[] = [];
    for (const item of value.slice(0, 5)) {
      const m = errorMessageOf(item, depth + 1);
      if (m !== undefined) found.push(m);
    }
    return found.length > 0 ? found.join("; ") : undefined;
  }
  if (typeof value !== "object" || value === null) return undefined;
  const obj = value as Record<string, unknown>;
  if (typeof obj.msg === "string" && Array.isArray(obj.loc)) {
    return `${obj.loc.map(String).join(".")}: ${obj.msg}`;
  }
  for (const key of MESSAGE_KEYS) {
    if (!(key in obj)) continue;
    const m = errorMessageOf(obj[key], depth + 1);
    if (m !== undefined) return m;
  }
  return undefined;
}

/**
 * The message to show for an error body's text: the provider's message when the text is JSON
 * that has one, otherwise the text itself (the caller bounds and redacts it).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { errorTextOf } from "./error_body.ts";
 * assert.equal(errorTextOf('{"error":"model not found"}'), "model not found");
 * assert.equal(errorTextOf("<html>Bad Gateway</html>"), "<html>Bad Gateway</html>");
 * ```
 */
export function errorTextOf(text: string): string {
  const trimmed = text.trim();
  if (trimmed.startsWith("{") || trimmed.startsWith("[") || trimmed.startsWith('"')) {
    try {
      const m = errorMessageOf(JSON.parse(trimmed));
      if (m !== undefined) return m;
    } catch {
      // Not JSON after all (or cut short): the text is what there is.
    }
  }
  return trimmed;
}
