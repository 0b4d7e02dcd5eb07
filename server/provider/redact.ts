/**
 * Keeps secrets out of every provider message: the API key, `${VAR}`-expanded header values and
 * URL credentials (`https://user:password@host`). Redaction runs before a message is cut, so a
 * cut can never leave a fragment of a secret that the whole-secret match would have caught.
 *
 * @module
 */
import { clip, stripUrlCredentials } from "../error_text.ts";

/** Secrets shorter than this are not searched for: redacting "a" would shred every message. */
const MIN_SECRET_CHARS = 4;
const REDACTED = "[redacted]";

/**
 * The secrets a URL carries: its password, and `user:password` as the Basic authorization
 * `fetch` sends for it (plain and base64), so an echo of either is redacted too.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { urlSecrets } from "./redact.ts";
 * assert.deepEqual(urlSecrets("http://bob:s3cret@h/v1"), ["s3cret", "bob:s3cret", btoa("bob:s3cret")]);
 * assert.deepEqual(urlSecrets("http://h/v1"), []);
 * ```
 */
export function urlSecrets(url: string): string[] {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return [];
  }
  if (!parsed.password && !parsed.username) return [];
  const user = decodeURIComponent(parsed.username);
  const password = decodeURIComponent(parsed.password);
  const pair = `${user}:${password}`;
  let basic = "";
  try {
    basic = btoa(pair);
  } catch {
    // Not Latin-1: fetch could not send it as Basic either.
  }
  return [password || user, pair, basic].filter((s) => s !== "");
}

/** Removes known secret values and URL credentials from text meant for users and logs. */
export class Redactor {
  #secrets: string[];

  /** A redactor for these secret values (empty and very short ones are ignored). */
  constructor(secrets: Iterable<string | undefined>) {
    const set = new Set<string>();
    for (const s of secrets) {
      if (s === undefined || s.length < MIN_SECRET_CHARS) continue;
      set.add(s);
      // A secret may be echoed in the encodings a request carries it in.
      set.add(encodeURIComponent(s));
      set.add(JSON.stringify(s).slice(1, -1));
    }
    // Longest first, so a secret containing another is removed whole.
    this.#secrets = [...set].filter((s) => s.length >= MIN_SECRET_CHARS).sort((a, b) =>
      b.length - a.length
    );
  }

  /** `text` without any secret or URL credential. */
  redact(text: string): string {
    let out = text;
    for (const s of this.#secrets) {
      if (out.includes(s)) out = out.split(s).join(REDACTED);
    }
    return stripUrlCredentials(out);
  }

  /** `text` redacted, then cut to `max` characters: the order that leaks no fragment. */
  safe(text: string, max: number): string {
    return clip(this.redact(text), max);
  }
}
