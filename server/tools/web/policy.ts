/**
 * Which URLs `web_fetch` may fetch: `http`/`https` only, hosts on `web_fetch_allow` (`"*"`: any
 * public host), and no loopback, link-local, private or other special address unless the list
 * names it. Pure: the caller resolves names and asks Deno's permissions; the address classes are
 * the sandbox proxy's (`sandbox/net/hosts.ts`), so both guards refuse the same ranges.
 *
 * @module
 */
import {
  addressClass,
  type HostPattern,
  isIPv4,
  isIPv6,
  parseHostPattern,
} from "../../sandbox/net/hosts.ts";

/** The longest URL `web_fetch` takes, in characters. */
export const MAX_URL_CHARS = 8192;

/** A decision: go on, or refuse with a sentence the model reads. */
export type WebDecision = { ok: true } | { ok: false; reason: string };

/** The entry of `web_fetch_allow` that stands for any public host. */
export const ANY_PUBLIC_HOST = "*";

/**
 * The URL the model gave, parsed and checked: absolute, `http:` or `https:`, without credentials,
 * at most {@link MAX_URL_CHARS} characters. The fragment is dropped (it never reaches a server).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { checkUrl } from "./policy.ts";
 * assert.equal(checkUrl("https://example.com/a#b").href, "https://example.com/a");
 * assert.throws(() => checkUrl("file:///etc/passwd"), /only http and https/);
 * ```
 */
export function checkUrl(text: string): URL {
  if (text.length > MAX_URL_CHARS) {
    throw new RangeError(`The URL is ${text.length} characters long; at most ${MAX_URL_CHARS}`);
  }
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new TypeError(`Not an absolute URL: ${JSON.stringify(text.slice(0, 200))}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new TypeError(
      `Cannot fetch ${JSON.stringify(url.protocol.slice(0, 20))} URLs: only http and https`,
    );
  }
  if (url.username !== "" || url.password !== "") {
    throw new TypeError("Cannot fetch a URL with credentials in it (user:password@)");
  }
  url.hash = "";
  return url;
}

/** The port a URL connects to (its own, or its scheme's). */
export function portOf(url: URL): number {
  return url.port !== "" ? Number(url.port) : url.protocol === "https:" ? 443 : 80;
}

/** A URL's host without IPv6 brackets, lower-case, without a trailing dot. */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, "").replace(/\.$/, "").toLowerCase();
}

/** The canonical text of an address, so `::1` and `0:0::1` compare equal. */
function canonical(ip: string): string {
  return isIPv6(ip) ? new URL(`http://[${ip}]/`).hostname.slice(1, -1) : ip;
}

/** Whether `s` is an IP address literal. */
export function isAddress(s: string): boolean {
  return isIPv4(s) || isIPv6(s);
}

/**
 * `web_fetch_allow` as `web_fetch` asks it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { WebPolicy } from "./policy.ts";
 * const p = new WebPolicy(["*"]);
 * assert(p.listed("example.com", 443).ok);
 * assert(!p.address("localhost", "127.0.0.1", 80).ok);
 * assert(new WebPolicy(["127.0.0.1"]).address("127.0.0.1", "127.0.0.1", 80).ok);
 * ```
 */
export class WebPolicy {
  /** Whether `"*"` is on the list: any host whose addresses are public. */
  readonly anyPublic: boolean;
  /** The other entries, parsed. */
  readonly patterns: readonly HostPattern[];

  /** Parses the list; a RangeError names the first bad entry. */
  constructor(allow: readonly string[]) {
    this.anyPublic = allow.includes(ANY_PUBLIC_HOST);
    this.patterns = allow.filter((p) => p !== ANY_PUBLIC_HOST).map(parseHostPattern);
  }

  /** The entries that name `host` (a name, or an address literal) with this port. */
  #naming(host: string, port: number): HostPattern[] {
    const h = isAddress(host) ? canonical(host) : host;
    return this.patterns.filter((p) =>
      (p.port === undefined || p.port === port) &&
      (p.address ? isAddress(h) && canonical(p.host) === h : matchName(p.host, h))
    );
  }

  /** Whether the list lets `host:port` be asked for at all (before its addresses are known). */
  listed(host: string, port: number): WebDecision {
    if (this.anyPublic || this.#naming(host, port).length > 0) return { ok: true };
    return {
      ok: false,
      reason: `${hostPort(host, port)} is not in "web_fetch_allow"`,
    };
  }

  /**
   * Whether `web_fetch` may connect to `ip`, one of the addresses `host` resolved to: any public
   * address, and another only when the list names that address, or names `host` exactly (not by
   * `*` or `*.domain`), which says the user means a host on their own network.
   */
  address(host: string, ip: string, port: number): WebDecision {
    const cls = addressClass(ip);
    if (cls === "public") return { ok: true };
    if (this.#naming(ip, port).some((p) => p.address)) return { ok: true };
    if (!isAddress(host) && this.#naming(host, port).some((p) => !p.host.startsWith("*."))) {
      return { ok: true };
    }
    const what = isAddress(host) ? `${ip} is` : `${host} resolves to ${ip},`;
    return {
      ok: false,
      reason: `${what} a ${cls} address, which web_fetch refuses unless "web_fetch_allow" ` +
        `lists it`,
    };
  }
}

/** `host:port`, with brackets around an IPv6 address. */
export function hostPort(host: string, port: number): string {
  return `${isIPv6(host) ? `[${host}]` : host}:${port}`;
}

/**
 * Whether a name pattern (`example.com`, `*.example.com`) covers `host`; `*.domain` covers the
 * subdomains, not the domain itself.
 */
export function matchName(pattern: string, host: string): boolean {
  if (pattern.startsWith("*.")) {
    return host.endsWith(pattern.slice(1)) && host.length > pattern.length - 1;
  }
  return pattern === host;
}

/**
 * Whether a host pattern (`docs.deno.com`, `*.github.com:443`, `127.0.0.1`, `[::1]:8080`)
 * covers the host of `url` (an approval rule's `host`). A text that is not an http(s) URL is
 * covered by none.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { hostPatternCovers } from "./policy.ts";
 * assert(hostPatternCovers("*.deno.com", "https://docs.deno.com/runtime/"));
 * assert(!hostPatternCovers("deno.com:80", "https://deno.com/"));
 * ```
 */
export function hostPatternCovers(pattern: string, url: string): boolean {
  let parsed: URL;
  try {
    parsed = checkUrl(url);
  } catch {
    return false;
  }
  const p = parseHostPattern(pattern);
  const host = hostOf(parsed);
  if (p.port !== undefined && p.port !== portOf(parsed)) return false;
  if (p.address) return isAddress(host) && canonical(p.host) === canonical(host);
  return matchName(p.host, host);
}
