/**
 * `web_fetch`'s cache: a page fetched once is served again for 15 minutes to the same session
 * without a request, so a model that reads a page twice costs the site (and the user) one fetch.
 * Bounded in entries and in bytes; the least recently used entry goes first. Pure, with the clock
 * injected.
 *
 * @module
 */

/** How long an entry is served: 15 minutes. */
export const WEB_CACHE_TTL_MS = 15 * 60 * 1000;
/** Entries kept, at most, over all sessions. */
export const WEB_CACHE_MAX_ENTRIES = 64;
/** Text kept, at most, over all sessions (UTF-16 code units counted as 2 bytes). */
export const WEB_CACHE_MAX_BYTES = 16 * 1024 * 1024;

/** One cached result. */
export interface CachedPage {
  /** What the model saw. */
  output: string;
  /** Whether that output was cut. */
  truncated: boolean;
  /** When it was fetched, by the cache's clock. */
  at: number;
}

/** Options of {@link WebCache}; each has the default above. */
export interface WebCacheOptions {
  ttlMs?: number;
  maxEntries?: number;
  maxBytes?: number;
  /** The clock, in milliseconds (default `Date.now`). */
  now?: () => number;
}

/**
 * Results by session and request.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { WebCache } from "./cache.ts";
 * let t = 0;
 * const cache = new WebCache({ now: () => t });
 * cache.set("s1", "https://a/|1000", { output: "page", truncated: false });
 * assert.equal(cache.get("s1", "https://a/|1000")?.output, "page");
 * assert.equal(cache.get("s2", "https://a/|1000"), undefined); // another session
 * t += 15 * 60 * 1000;
 * assert.equal(cache.get("s1", "https://a/|1000"), undefined); // expired
 * ```
 */
export class WebCache {
  #entries = new Map<string, CachedPage>();
  #bytes = 0;
  readonly #ttl: number;
  readonly #maxEntries: number;
  readonly #maxBytes: number;
  readonly #now: () => number;

  /** An empty cache. */
  constructor(options: WebCacheOptions = {}) {
    this.#ttl = options.ttlMs ?? WEB_CACHE_TTL_MS;
    this.#maxEntries = options.maxEntries ?? WEB_CACHE_MAX_ENTRIES;
    this.#maxBytes = options.maxBytes ?? WEB_CACHE_MAX_BYTES;
    this.#now = options.now ?? Date.now;
  }

  /** The cache's clock now. */
  now(): number {
    return this.#now();
  }

  /** Entries held now. */
  get size(): number {
    return this.#entries.size;
  }

  /** Bytes held now. */
  get bytes(): number {
    return this.#bytes;
  }

  /** The entry of `session` for `key`, if it is younger than the time to live. */
  get(session: string, key: string): CachedPage | undefined {
    const k = `${session}\0${key}`;
    const entry = this.#entries.get(k);
    if (!entry) return undefined;
    this.#delete(k);
    if (this.#now() - entry.at >= this.#ttl) return undefined;
    this.#entries.set(k, entry); // now the most recently used
    this.#bytes += sizeOf(entry);
    return entry;
  }

  /** Keeps a result; one larger than the whole cache is not kept. */
  set(session: string, key: string, page: Omit<CachedPage, "at">): void {
    const k = `${session}\0${key}`;
    this.#delete(k);
    const entry = { ...page, at: this.#now() };
    const size = sizeOf(entry);
    if (size > this.#maxBytes) return;
    while (
      this.#entries.size > 0 &&
      (this.#entries.size >= this.#maxEntries || this.#bytes + size > this.#maxBytes)
    ) {
      this.#delete(this.#entries.keys().next().value!);
    }
    this.#entries.set(k, entry);
    this.#bytes += size;
  }

  #delete(k: string): void {
    const old = this.#entries.get(k);
    if (!old) return;
    this.#entries.delete(k);
    this.#bytes -= sizeOf(old);
  }
}

function sizeOf(page: CachedPage): number {
  return page.output.length * 2;
}
