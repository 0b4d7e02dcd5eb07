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

/**
 * A piece of a secret this long or longer is a leak: a message quoting the first 40
 * characters of a key (a provider's own cut, or an echo of part of it) is redacted there too.
 */
export const MIN_FRAGMENT_CHARS = 8;

/** Removes known secret values, their pieces and URL credentials from text for users and logs. */
export class Redactor {
  #secrets: string[];
  /** Every {@link MIN_FRAGMENT_CHARS}-character piece of every secret (in every encoding). */
  #pieces = new Set<string>();

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
    for (const s of this.#secrets) {
      for (let i = 0; i + MIN_FRAGMENT_CHARS <= s.length; i++) {
        this.#pieces.add(s.slice(i, i + MIN_FRAGMENT_CHARS));
      }
    }
  }

  /** `text` without any secret, any piece of one {@link MIN_FRAGMENT_CHARS} long, or URL credential. */
  redact(text: string): string {
    let out = text;
    for (const s of this.#secrets) {
      if (out.includes(s)) out = out.split(s).join(REDACTED);
    }
    return stripUrlCredentials(this.#withoutPieces(out));
  }

  /**
   * `text` with every run covered by secret pieces replaced: any piece of a secret at least
   * {@link MIN_FRAGMENT_CHARS} long is made of such pieces, so none survives.
   */
  #withoutPieces(text: string): string {
    if (this.#pieces.size === 0 || text.length < MIN_FRAGMENT_CHARS) return text;
    // Covered runs as [start, end) pairs, merged when they touch or overlap.
    const runs: [number, number][] = [];
    for (let i = 0; i + MIN_FRAGMENT_CHARS <= text.length; i++) {
      if (!this.#pieces.has(text.slice(i, i + MIN_FRAGMENT_CHARS))) continue;
      const last = runs.at(-1);
      if (last && i <= last[1]) last[1] = i + MIN_FRAGMENT_CHARS;
      else runs.push([i, i + MIN_FRAGMENT_CHARS]);
    }
    if (runs.length === 0) return text;
    let out = "";
    let kept = 0;
    for (const [start, end] of runs) {
      out += text.slice(kept, start) + REDACTED;
      kept = end;
    }
    return out + text.slice(kept);
  }

  /** `text` redacted, then cut to `max` characters: the order that leaks no fragment. */
  safe(text: string, max: number): string {
    return clip(this.redact(text), max);
  }
}
