/**
 * The two request shapes scv's sandbox proxy reads, parsed from bytes already in hand, with hard
 * bounds: an HTTP/1.x request head (`CONNECT host:port` or a request for an absolute
 * `http://` URL) and a SOCKS5 greeting and `CONNECT` request (RFC 1928, no authentication).
 * Each returns "more" while it needs bytes, the request when whole, or an error for anything
 * else. Pure; hostile input is its test's business (tests/server/sandbox/net/parse_fuzz_test.ts).
 *
 * A parser of our own, not a library's: Deno's `node:http` server does not hand a `CONNECT` to
 * user code reliably, the npm SOCKS servers are unmaintained, and these are two short formats
 * whose every bound is visible here.
 *
 * @module
 */

/** A request head is refused beyond this many bytes (header lines included). */
export const MAX_HEAD_BYTES = 16 * 1024;
/** At most this many header lines. */
export const MAX_HEADERS = 100;

/** A parsed HTTP proxy request. */
export interface HttpProxyRequest {
  kind: "connect" | "forward";
  /** The destination host (no brackets) and port. */
  host: string;
  port: number;
  /** For `forward`: the head to send upstream (origin-form target, `Connection: close`). */
  head?: Uint8Array;
  /** Bytes after the head already received (a request body's start). */
  rest: Uint8Array;
  /**
   * The call it came from: the password of a `Proxy-Authorization: Basic` for user `scv` (the
   * forwarder puts each call's own token in its proxy URL); undefined when none was sent.
   */
  caller?: string;
}

/** What a parser says about the bytes so far. */
export type Parsed<T> = { state: "more" } | { state: "done"; value: T } | {
  state: "error";
  message: string;
};

const CRLFCRLF = [13, 10, 13, 10];

function indexOfHeadEnd(b: Uint8Array): number {
  outer: for (let i = 0; i + 4 <= b.length; i++) {
    for (let j = 0; j < 4; j++) if (b[i + j] !== CRLFCRLF[j]) continue outer;
    return i;
  }
  return -1;
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const HOP_BY_HOP = new Set([
  "connection",
  "proxy-connection",
  "keep-alive",
  "proxy-authorization",
  "proxy-authenticate",
  "te",
  "trailer",
  "upgrade",
]);

/** `host:port` (a bracketed IPv6 allowed), or undefined. */
export function splitHostPort(
  text: string,
  defaultPort?: number,
): { host: string; port: number } | undefined {
  let host: string;
  let portText: string | undefined;
  if (text.startsWith("[")) {
    const end = text.indexOf("]");
    if (end < 0) return undefined;
    host = text.slice(1, end);
    const rest = text.slice(end + 1);
    if (rest !== "" && !rest.startsWith(":")) return undefined;
    portText = rest === "" ? undefined : rest.slice(1);
  } else {
    const colon = text.lastIndexOf(":");
    if (colon >= 0 && text.indexOf(":") !== colon) return undefined;
    host = colon >= 0 ? text.slice(0, colon) : text;
    portText = colon >= 0 ? text.slice(colon + 1) : undefined;
  }
  const port = portText === undefined
    ? defaultPort
    : /^\d{1,5}$/.test(portText)
    ? Number(portText)
    : NaN;
  if (port === undefined || !Number.isInteger(port) || port < 1 || port > 65535) return undefined;
  if (host === "" || host.length > 253 || /[\s/\\@?#%]/.test(host)) return undefined;
  return { host, port };
}

/**
 * An HTTP proxy request from the bytes received so far.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseHttpHead } from "./parse.ts";
 * const r = parseHttpHead(new TextEncoder().encode("CONNECT example.com:443 HTTP/1.1\r\nHost: x\r\n\r\n"));
 * assert(r.state === "done" && r.value.kind === "connect" && r.value.port === 443);
 * ```
 */
export function parseHttpHead(bytes: Uint8Array): Parsed<HttpProxyRequest> {
  const end = indexOfHeadEnd(bytes.subarray(0, MAX_HEAD_BYTES + 4));
  if (end < 0) {
    return bytes.length > MAX_HEAD_BYTES
      ? { state: "error", message: `request head over ${MAX_HEAD_BYTES} bytes` }
      : { state: "more" };
  }
  const text = new TextDecoder("latin1").decode(bytes.subarray(0, end));
  const rest = bytes.slice(end + 4);
  const lines = text.split("\r\n");
  const m = /^([A-Z]{1,20}) (\S{1,8192}) HTTP\/1\.[01]$/.exec(lines[0]!);
  if (!m) return { state: "error", message: "malformed request line" };
  const headers = lines.slice(1);
  if (headers.length > MAX_HEADERS) return { state: "error", message: "too many header lines" };
  const kept: string[] = [];
  let caller: string | undefined;
  for (const h of headers) {
    const colon = h.indexOf(":");
    if (colon <= 0 || !TOKEN.test(h.slice(0, colon)) || /[\0\r\n]/.test(h)) {
      return { state: "error", message: "malformed header line" };
    }
    const name = h.slice(0, colon).toLowerCase();
    if (name === "proxy-authorization") caller ??= callerOf(h.slice(colon + 1));
    if (!HOP_BY_HOP.has(name)) kept.push(h);
  }
  const [, method, target] = m as unknown as [string, string, string];
  if (method === "CONNECT") {
    const dest = splitHostPort(target);
    if (!dest) return { state: "error", message: "CONNECT needs host:port" };
    return {
      state: "done",
      value: { kind: "connect", ...dest, rest, ...(caller ? { caller } : {}) },
    };
  }
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return { state: "error", message: "a proxy request needs an absolute http:// URL" };
  }
  if (url.protocol !== "http:" || url.username || url.password) {
    return {
      state: "error",
      message: "only http:// URLs are forwarded (https goes through CONNECT)",
    };
  }
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const port = url.port === "" ? 80 : Number(url.port);
  const head = `${method} ${url.pathname}${url.search} HTTP/1.1\r\n` +
    kept.join("\r\n") + (kept.length > 0 ? "\r\n" : "") + "Connection: close\r\n\r\n";
  return {
    state: "done",
    value: {
      kind: "forward",
      host,
      port,
      head: new TextEncoder().encode(head),
      rest,
      ...(caller ? { caller } : {}),
    },
  };
}

/** A call token: what the forwarder makes (hex), nothing longer or stranger. */
const CALLER = /^[0-9a-f]{8,64}$/;

/**
 * The call token of a `Proxy-Authorization` value (`Basic` of `scv:<token>`), or undefined.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { callerOf } from "./parse.ts";
 * assert.equal(callerOf(` Basic ${btoa("scv:0123abcd")}`), "0123abcd");
 * assert.equal(callerOf(` Basic ${btoa("me:secret")}`), undefined);
 * ```
 */
export function callerOf(value: string): string | undefined {
  const m = /^\s*Basic\s+([A-Za-z0-9+/]{1,200}={0,2})\s*$/i.exec(value);
  if (!m) return undefined;
  let text: string;
  try {
    text = atob(m[1]!);
  } catch {
    return undefined;
  }
  if (!text.startsWith("scv:")) return undefined;
  const token = text.slice(4);
  return CALLER.test(token) ? token : undefined;
}

/** A parsed SOCKS5 CONNECT request. */
export interface Socks5Request {
  host: string;
  port: number;
  /** Bytes of the greeting and request, to know where the payload starts. */
  consumed: number;
}

/**
 * A SOCKS5 greeting followed by its request, from the bytes received so far (a client sends the
 * request after the server's method choice, so the caller answers the greeting first: see
 * {@link socksGreetingLength}).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseSocks5 } from "./parse.ts";
 * const r = parseSocks5(new Uint8Array([5, 1, 0, 5, 1, 0, 3, 3, 0x61, 0x2e, 0x62, 0, 80]));
 * assert(r.state === "done" && r.value.host === "a.b" && r.value.port === 80);
 * ```
 */
export function parseSocks5(b: Uint8Array): Parsed<Socks5Request> {
  const g = socksGreetingLength(b);
  if (g.state !== "done") return g;
  const at = g.value;
  if (b.length < at + 5) return { state: "more" };
  if (b[at] !== 5) return { state: "error", message: "not a SOCKS5 request" };
  if (b[at + 1] !== 1) return { state: "error", message: "only SOCKS5 CONNECT is supported" };
  if (b[at + 2] !== 0) return { state: "error", message: "malformed SOCKS5 request" };
  const type = b[at + 3];
  let host: string;
  let p: number;
  if (type === 1) {
    if (b.length < at + 10) return { state: "more" };
    host = [...b.subarray(at + 4, at + 8)].join(".");
    p = at + 8;
  } else if (type === 3) {
    const len = b[at + 4]!;
    if (len === 0) return { state: "error", message: "empty SOCKS5 host name" };
    if (b.length < at + 5 + len + 2) return { state: "more" };
    host = new TextDecoder("latin1").decode(b.subarray(at + 5, at + 5 + len));
    if (!/^[A-Za-z0-9.-]+$/.test(host)) return { state: "error", message: "bad SOCKS5 host name" };
    p = at + 5 + len;
  } else if (type === 4) {
    if (b.length < at + 22) return { state: "more" };
    const words: string[] = [];
    for (let i = 0; i < 8; i++) {
      words.push(((b[at + 4 + 2 * i]! << 8) | b[at + 5 + 2 * i]!).toString(16));
    }
    host = words.join(":");
    p = at + 20;
  } else {
    return { state: "error", message: "unknown SOCKS5 address type" };
  }
  const port = (b[p]! << 8) | b[p + 1]!;
  if (port === 0) return { state: "error", message: "SOCKS5 port 0" };
  return { state: "done", value: { host, port, consumed: p + 2 } };
}

/** The length of a whole SOCKS5 greeting offering "no authentication", or more/error. */
export function socksGreetingLength(b: Uint8Array): Parsed<number> {
  if (b.length < 2) return { state: "more" };
  if (b[0] !== 5) return { state: "error", message: "not SOCKS5" };
  const n = b[1]!;
  if (n === 0) return { state: "error", message: "SOCKS5 greeting offers no method" };
  if (b.length < 2 + n) return { state: "more" };
  if (!b.subarray(2, 2 + n).includes(0)) {
    return { state: "error", message: "SOCKS5 client offers no unauthenticated method" };
  }
  return { state: "done", value: 2 + n };
}
