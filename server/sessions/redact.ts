/**
 * Keeps secrets off the disk: every line a session file or the index receives passes through a
 * {@link Redactor} holding the provider key and the `provider_headers` values. A tool output or
 * an assistant answer quoting the key is stored with the key replaced.
 *
 * @module
 */

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

  /** The line with every secret replaced by {@link REDACTED}. */
  line(line: string): string {
    for (const needle of this.#needles) {
      if (line.includes(needle)) line = line.replaceAll(needle, REDACTED);
    }
    return line;
  }
}

/**
 * The secrets of a configuration: the value of the API key variable and every
 * `provider_headers` value, both as written and with `${VAR}` replaced from the environment.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { configSecrets } from "./redact.ts";
 * const env = (n: string) => ({ KEY: "k1", TOKEN: "t2" } as Record<string, string>)[n];
 * const got = configSecrets({ api_key_env: "KEY", provider_headers: { "x-a": "Bearer ${TOKEN}" } }, env);
 * assert.deepEqual(got.sort(), ["Bearer ${TOKEN}", "Bearer t2", "k1", "t2"].sort());
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
    if (typeof value !== "string" || value === "") continue;
    out.push(value);
    const expanded = value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => {
      const v = env(name) ?? "";
      if (v) out.push(v);
      return v;
    });
    if (expanded !== "") out.push(expanded);
  }
  return out;
}
