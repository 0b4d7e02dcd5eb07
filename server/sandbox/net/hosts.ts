/**
 * Which hosts a sandboxed command may reach through scv's proxy: `sandbox_network`'s patterns
 * (`registry.npmjs.org`, `*.github.com:443`, `127.0.0.1:4873`, `[::1]:8080`) and the address
 * classes that are refused unless a pattern names the address itself: loopback, link-local (the
 * cloud metadata address `169.254.169.254` among them), private and other special ranges. Pure.
 *
 * @module
 */

/** One parsed pattern. */
export interface HostPattern {
  /** Lower-case host, without brackets; a leading `*.` matches any subdomain (not the domain). */
  host: string;
  /** The port; undefined: any port. */
  port: number | undefined;
  /** Whether `host` is an IP address literal (which may then name a special range). */
  address: boolean;
}

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/**
 * A pattern of `sandbox_network`, or a RangeError saying what is wrong with it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseHostPattern } from "./hosts.ts";
 * assert.deepEqual(parseHostPattern("*.GitHub.com:443"), { host: "*.github.com", port: 443, address: false });
 * assert.deepEqual(parseHostPattern("[::1]:80"), { host: "::1", port: 80, address: true });
 * ```
 */
export function parseHostPattern(text: string): HostPattern {
  const bad = (why: string) => new RangeError(`host pattern ${JSON.stringify(text)}: ${why}`);
  if (text.length === 0 || text.length > 260) throw bad("must be 1 to 260 characters");
  let host = text.toLowerCase();
  let port: number | undefined;
  if (host.startsWith("[")) {
    const end = host.indexOf("]");
    if (end < 0) throw bad("an IPv6 address needs its closing ]");
    const rest = host.slice(end + 1);
    host = host.slice(1, end);
    if (rest !== "") {
      if (!rest.startsWith(":")) throw bad("expected :PORT after ]");
      port = parsePort(rest.slice(1), bad);
    }
    if (!isIPv6(host)) throw bad("not an IPv6 address");
    return { host, port, address: true };
  }
  const colon = host.lastIndexOf(":");
  if (colon >= 0) {
    port = parsePort(host.slice(colon + 1), bad);
    host = host.slice(0, colon);
  }
  if (isIPv4(host)) return { host, port, address: true };
  const name = host.startsWith("*.") ? host.slice(2) : host;
  const labels = name.split(".");
  // A last label of digits is no name (`1.2.3.4.5`, a mistyped address).
  if (name.length > 253 || !labels.every((l) => LABEL.test(l)) || /^\d+$/.test(labels.at(-1)!)) {
    throw bad(
      'expected a host name, "*.domain", an IPv4 address or [IPv6], with an optional :PORT',
    );
  }
  return { host, port, address: false };
}

function parsePort(text: string, bad: (why: string) => RangeError): number {
  if (!/^\d{1,5}$/.test(text) || Number(text) < 1 || Number(text) > 65535) {
    throw bad("the port must be 1 to 65535");
  }
  return Number(text);
}

/** Whether `s` is a dotted-quad IPv4 address. */
export function isIPv4(s: string): boolean {
  const parts = s.split(".");
  return parts.length === 4 &&
    parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255 && (p === "0" || p[0] !== "0"));
}

/** Whether `s` is an IPv6 address (the forms `URL` accepts). */
export function isIPv6(s: string): boolean {
  if (!s.includes(":") || /[^0-9a-f:.]/i.test(s)) return false;
  try {
    return new URL(`http://[${s}]/`).hostname.length > 2;
  } catch {
    return false;
  }
}

/** The class of an IP address: only `public` is reachable without naming the address. */
export type AddressClass = "public" | "loopback" | "link-local" | "private" | "special";

function v4(s: string): number {
  return s.split(".").reduce((n, p) => n * 256 + Number(p), 0);
}

const V4_RANGES: Array<[string, number, AddressClass]> = [
  ["127.0.0.0", 8, "loopback"],
  ["169.254.0.0", 16, "link-local"],
  ["10.0.0.0", 8, "private"],
  ["172.16.0.0", 12, "private"],
  ["192.168.0.0", 16, "private"],
  ["100.64.0.0", 10, "private"],
  ["0.0.0.0", 8, "special"],
  ["192.0.0.0", 24, "special"],
  ["198.18.0.0", 15, "special"],
  ["224.0.0.0", 3, "special"],
];

/**
 * The class of `ip` (IPv4 or IPv6; an IPv4-mapped IPv6 address is classed as its IPv4).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { addressClass } from "./hosts.ts";
 * assert.equal(addressClass("169.254.169.254"), "link-local");
 * assert.equal(addressClass("::ffff:127.0.0.1"), "loopback");
 * assert.equal(addressClass("93.184.216.34"), "public");
 * ```
 */
export function addressClass(ip: string): AddressClass {
  if (isIPv4(ip)) {
    const n = v4(ip);
    for (const [base, bits, cls] of V4_RANGES) {
      const size = 2 ** (32 - bits);
      const start = v4(base);
      if (n >= start && n < start + size) return cls;
    }
    return "public";
  }
  if (!isIPv6(ip)) return "special";
  const norm = new URL(`http://[${ip}]/`).hostname.slice(1, -1);
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(norm);
  if (mapped) {
    const hi = parseInt(mapped[1]!, 16);
    const lo = parseInt(mapped[2]!, 16);
    return addressClass(`${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`);
  }
  if (norm === "::1") return "loopback";
  if (norm === "::") return "special";
  // Forms that carry an IPv4 address a gateway or the kernel may reach: NAT64 (64:ff9b::/96,
  // which a cloud NAT gateway translates to private addresses too), 6to4 (2002::/16) are
  // classed as that address; IPv4-compatible (::/96), IPv4-translated (::ffff:0:0/96) and the
  // local-use NAT64 prefix (64:ff9b:1::/48, the IPv4 address anywhere in it) are special.
  const words = expandIPv6(norm);
  const embedded = (hi: number, lo: number) =>
    addressClass(`${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`);
  if (words[0] === 0x64 && words[1] === 0xff9b && words.slice(2, 6).every((w) => w === 0)) {
    return embedded(words[6]!, words[7]!);
  }
  if (words[0] === 0x2002) return embedded(words[1]!, words[2]!);
  if (words[0] === 0x64 && words[1] === 0xff9b && words[2] === 1) return "special";
  if (words.slice(0, 6).every((w) => w === 0)) return "special";
  if (words.slice(0, 4).every((w) => w === 0) && words[4] === 0xffff && words[5] === 0) {
    return "special";
  }
  const first = words[0]!;
  if ((first & 0xffc0) === 0xfec0) return "private"; // site-local, deprecated but routable
  if ((first & 0xffc0) === 0xfe80) return "link-local";
  if ((first & 0xfe00) === 0xfc00) return "private";
  if ((first & 0xff00) === 0xff00) return "special";
  return "public";
}

/** The eight 16-bit words of a canonical IPv6 address (as `URL` writes it, no IPv4 tail). */
function expandIPv6(norm: string): number[] {
  const [head, tail] = norm.split("::") as [string, string | undefined];
  const parse = (s: string | undefined) => s ? s.split(":").map((w) => parseInt(w, 16)) : [];
  const a = parse(head);
  const b = parse(tail);
  return tail === undefined ? a : [...a, ...Array(8 - a.length - b.length).fill(0), ...b];
}

/** The canonical text of an address, for comparing a resolved address with a pattern's. */
function canonical(ip: string): string {
  return isIPv6(ip) ? new URL(`http://[${ip}]/`).hostname.slice(1, -1) : ip;
}

/** What the proxy decides for one destination. */
export type HostDecision = { ok: true } | { ok: false; reason: string };

/** `sandbox_network`'s list, as the proxy asks it. */
export class HostPolicy {
  readonly patterns: readonly HostPattern[];

  /** Parses every pattern (a RangeError names the first bad one). */
  constructor(patterns: readonly string[]) {
    this.patterns = patterns.map(parseHostPattern);
  }

  /** Whether `host:port` (as the command asked for it) is on the list. */
  listed(host: string, port: number): HostDecision {
    const h = canonical(host.toLowerCase().replace(/^\[|\]$/g, "").replace(/\.$/, ""));
    for (const p of this.patterns) {
      if (p.port !== undefined && p.port !== port) continue;
      if (p.address ? canonical(p.host) === h : matchName(p.host, h)) return { ok: true };
    }
    return { ok: false, reason: 'it is not in "sandbox_network"' };
  }

  /**
   * Whether the resolved `ip` may be connected to for a destination the command named `host`:
   * a loopback, link-local, private or special address only when a pattern names it (by address)
   * with this port.
   */
  address(ip: string, port: number): HostDecision {
    const cls = addressClass(ip);
    if (cls === "public") return { ok: true };
    const c = canonical(ip);
    const named = this.patterns.some((p) =>
      p.address && canonical(p.host) === c && (p.port === undefined || p.port === port)
    );
    return named ? { ok: true } : {
      ok: false,
      reason: `it resolves to ${ip}, a ${cls} address, which is refused unless listed by address`,
    };
  }
}

function matchName(pattern: string, host: string): boolean {
  if (pattern.startsWith("*.")) {
    return host.endsWith(pattern.slice(1)) && host.length > pattern.length - 1;
  }
  return pattern === host;
}
