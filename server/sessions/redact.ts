/**
 * Keeps secrets off the disk: every line a session file or the index receives passes through a
 * {@link Redactor} holding the provider key and the `provider_headers` values. A tool output or
 * an assistant answer quoting the key is stored with the key replaced.
 *
 * @module
 */
import { envReferenceNames, expandEnvReferences } from "../env_refs.ts";

/** What a secret is replaced with on disk. */
export const REDACTED = "[redacted]";

/**
 * Replaces every occurrence of each secret in an encoded JSON line, both as the raw text and
 * as JSON escapes it (a key holding `"` or `\` appears escaped in the line).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Redactor } from "./redact.ts";
 * const r = new Redactor(["sk-secret"]);
 * assert.equal(r.line(JSON.stringify({ output: "key=sk-secret" })), '{"output":"key=[redacted]"}');
 * ```
 */
/**
 * Top-level fields of a record or index line that are never redacted: they identify the session,
 * its workspace and its settings (a path, an id, the model, times, the record's kind), and a
 * secret is not recorded by being part of a directory or model name.
 */
export const IDENTITY_FIELDS: ReadonlySet<string> = new Set([
  "t",
  "v",
  "session_id",
  "cwd",
  "model",
  "approval_policy",
  "created_at",
  "updated_at",
]);

export class Redactor {
  #needles: string[];

  /** Secrets shorter than 4 characters are still redacted: safety before readability. */
  constructor(secrets: readonly string[]) {
    const set = new Set<string>();
    for (const s of secrets) {
      if (s === "") continue;
      set.add(s);
      set.add(JSON.stringify(s).slice(1, -1));
    }
    // Longest first, so a secret that contains another is replaced whole.
    this.#needles = [...set].sort((a, b) => b.length - a.length);
  }

  /** Whether there is anything to redact. */
  get empty(): boolean {
    return this.#needles.length === 0;
  }

  /**
   * The line with every secret replaced by {@link REDACTED}. A JSON line is redacted inside its
   * string values only, so a secret that also spells a key or a literal (`t`, `true`, a digit)
   * never breaks the record, and the fields that identify a session ({@link IDENTITY_FIELDS})
   * are kept: a workspace path holding a dummy key's text (`~/src/ollama`) stays resumable.
   * A line that is not JSON is redacted as text.
   */
  line(line: string): string {
    if (!this.#needles.some((n) => line.includes(n))) return line;
    const newline = line.endsWith("\n") ? "\n" : "";
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      return this.#text(line);
    }
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      return JSON.stringify(this.#value(value)) + newline;
    }
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      out[k] = IDENTITY_FIELDS.has(k) ? v : this.#value(v);
    }
    return JSON.stringify(out) + newline;
  }

  #text(text: string): string {
    for (const needle of this.#needles) {
      if (text.includes(needle)) text = text.replaceAll(needle, REDACTED);
    }
    return text;
  }

  #value(v: unknown): unknown {
    if (typeof v === "string") return this.#text(v);
    if (Array.isArray(v)) return v.map((x) => this.#value(x));
    if (typeof v === "object" && v !== null) {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) out[k] = this.#value(x);
      return out;
    }
    return v;
  }
}

/**
 * Shorter values are not treated as secrets on disk. Local servers take any key, and people give
 * them dummies (`x`, `k`, `none`, `test`, `EMPTY`, `ollama`): replacing every `test` or `x` in
 * every recorded tool result and file would corrupt the history a resume sends back (a signed
 * Anthropic `thinking` block rewritten as `thin[redacted]ing` is refused, and the session cannot
 * go on). No provider issues keys this short.
 */
export const MIN_RECORDED_SECRET_CHARS = 8;

/**
 * The secrets of a configuration: the value of the API key variable and every
 * `provider_headers` value that takes `${VAR}` from the environment, both as written and
 * expanded (as CONTRACT.md says: "such values are redacted like the key"), each at least
 * {@link MIN_RECORDED_SECRET_CHARS} long. A literal value
 * (OpenRouter's `X-Title: scv`) is configuration, not a secret: redacting it would rewrite
 * every recorded occurrence of that word, the workspace path included.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { configSecrets } from "./redact.ts";
 * const env = (n: string) => ({ KEY: "sk-key-0001", TOKEN: "tok-00002" } as Record<string, string>)[n];
 * const got = configSecrets({ api_key_env: "KEY", provider_headers: { "x-a": "Bearer ${TOKEN}", "x-title": "scv" } }, env);
 * assert.deepEqual(got.sort(), ["Bearer ${TOKEN}", "Bearer tok-00002", "sk-key-0001", "tok-00002"].sort());
 * ```
 */
export function configSecrets(
  config: { api_key_env: string; provider_headers?: Record<string, string> | undefined },
  env: (name: string) => string | undefined,
): string[] {
  const out: string[] = [];
  const key = env(config.api_key_env);
  if (key) out.push(key);
  for (const value of Object.values(config.provider_headers ?? {})) {
    if (typeof value !== "string" || envReferenceNames(value).length === 0) continue;
    out.push(value);
    const expanded = expandEnvReferences(value, (name) => {
      const v = env(name) ?? "";
      if (v) out.push(v);
      return v;
    });
    if (expanded !== "") out.push(expanded);
  }
  return out.filter((v) => v.length >= MIN_RECORDED_SECRET_CHARS);
}
