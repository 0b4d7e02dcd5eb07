/**
 * One `web_fetch` request, hop by hop: each URL (the first and every redirect, at most
 * {@link MAX_REDIRECTS}) is checked against `web_fetch_allow`, against scv's own `--allow-net`
 * (asked of `Deno.permissions` before anything is sent), and after its name is resolved, every
 * address it resolves to against the refused ranges. Redirects are followed by hand
 * (`redirect: "manual"`), so none escapes those checks. The body is read up to a byte limit and
 * within a time limit, then cancelled: a 50 MB body is never held, a server that drips bytes is
 * cut off.
 *
 * DNS rebinding (a name that resolves to a public address when checked, then to a private one
 * when connected): a plain `http` request is sent to the address that was checked (a Deno HTTP
 * client whose transport is a TCP connection to that address), so a second resolution never
 * happens. An `https` request connects by name, and the certificate check binds the connection to
 * that name: an address on the user's network cannot present a valid certificate for the
 * attacker's name, so the handshake fails there. Where scv's `--allow-net` names hosts rather
 * than addresses, Deno refuses a connection to the bare address, and the request connects by
 * name after the check, like `https`.
 *
 * @module
 */
import { errorText } from "../../error_text.ts";
import { checkUrl, hostOf, hostPort, isAddress, portOf, type WebPolicy } from "./policy.ts";
import { bodyKind } from "./content.ts";

/** Redirects followed, at most; the sixth is refused. */
export const MAX_REDIRECTS = 5;

/** How `web_fetch` reaches the network; the process's own by default, injectable in tests. */
export interface WebNet {
  /** Whether scv's Deno permissions let it connect to `host:port`. */
  mayConnect(host: string, port: number): Promise<boolean>;
  /** The addresses `host` resolves to, as the system resolver (getaddrinfo) gives them. */
  resolve(host: string, signal: AbortSignal): Promise<string[]>;
  /**
   * Sends a GET for `url` without following redirects; `address` is the checked address to
   * connect to, when the request can be pinned to it. `done` frees what the request holds once
   * the body has been read or cancelled.
   */
  send(
    url: URL,
    address: string | undefined,
    init: { headers: Record<string, string>; signal: AbortSignal },
  ): Promise<{ response: Response; done: () => void }>;
}

/** The network of the running process. */
export const denoWebNet: WebNet = {
  mayConnect: async (host, port) =>
    (await Deno.permissions.query({ name: "net", host: hostPort(host, port) })).state ===
      "granted",
  // node:dns loads on the first fetch: importing it boots Deno's Node layer at start-up.
  resolve: (host, signal) =>
    raceSignal(
      import("node:dns/promises").then(({ lookup }) => lookup(host, { all: true, verbatim: true })),
      signal,
    ).then((all) => all.map((a) => a.address)),
  send: async (url, address, init) => {
    const port = portOf(url);
    // Pinned only for http: an https connection is bound to its name by the certificate, and
    // Deno's TCP transport would not speak TLS over it.
    const pin = url.protocol === "http:" && address !== undefined &&
      (await Deno.permissions.query({ name: "net", host: hostPort(address, port) })).state ===
        "granted";
    const client = pin
      ? Deno.createHttpClient({ proxy: { transport: "tcp", hostname: address!, port } })
      : undefined;
    try {
      const response = await fetch(url, {
        method: "GET",
        headers: init.headers,
        redirect: "manual",
        signal: init.signal,
        ...(client ? { client } : {}),
      });
      return { response, done: () => client?.close() };
    } catch (e) {
      client?.close();
      throw e;
    }
  },
};

function raceSignal<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/** A request's limits and identity. */
export interface FetchOptions {
  /** Body bytes read, at most; the rest is cancelled unread. */
  maxBytes: number;
  /** Aborted on cancellation or when the time is up; its reason says which. */
  signal: AbortSignal;
  /** The `User-Agent` sent. */
  userAgent: string;
  /** Told the body bytes received so far, so that a timeout can say how much came. */
  progress?: (received: number) => void;
}

/** A body that was fetched. */
export interface FetchedPage {
  ok: true;
  /** The URL the body came from, after redirects. */
  url: URL;
  /** The redirects followed, in order (the URLs redirected to). */
  redirects: URL[];
  /** The HTTP status and its text. */
  status: number;
  statusText: string;
  /** The `Content-Type` header; null when there was none. */
  contentType: string | null;
  /** The body, at most `maxBytes`. */
  bytes: Uint8Array;
  /** Whether the body went on past `maxBytes` (and was cancelled there). */
  cut: boolean;
  /** The length the server declared (`Content-Length`); undefined when it declared none. */
  declaredBytes: number | undefined;
}

/** A request refused or failed, with the sentence the model reads. */
export interface FetchRefused {
  ok: false;
  /** Why, naming the URL. */
  message: string;
}

/** Thrown inside a fetch to refuse it; turned into {@link FetchRefused}. */
class Refused extends Error {}

/** Checks one hop's URL and returns the address to connect to (undefined: by name). */
async function checkHop(
  url: URL,
  policy: WebPolicy,
  net: WebNet,
  signal: AbortSignal,
): Promise<string | undefined> {
  const host = hostOf(url);
  const port = portOf(url);
  const listed = policy.listed(host, port);
  if (!listed.ok) throw new Refused(`Refused ${url.href}: ${listed.reason}`);
  if (!await net.mayConnect(host, port)) {
    throw new Refused(
      `Refused ${url.href}: scv's own --allow-net does not permit ${hostPort(host, port)}`,
    );
  }
  let addresses: string[];
  if (isAddress(host)) addresses = [host];
  else {
    try {
      addresses = await net.resolve(host, signal);
    } catch (e) {
      if (signal.aborted) throw e;
      // Deno lets getaddrinfo run only for a host its --allow-net names without a port.
      if (e instanceof Deno.errors.NotCapable || /\bEPERM\b/.test(errorText(e))) {
        throw new Refused(
          `Refused ${url.href}: scv's own --allow-net lets it connect to ` +
            `${hostPort(host, port)} but not resolve ${host}, so its addresses cannot be ` +
            `checked; name the host without a port (--allow-net=${host})`,
        );
      }
      throw new Refused(`Cannot fetch ${url.href}: cannot resolve ${host}: ${errorText(e)}`);
    }
  }
  if (addresses.length === 0) throw new Refused(`Cannot fetch ${url.href}: ${host} has no address`);
  // Every address must pass: a request by name may connect to any of them.
  for (const ip of addresses) {
    const d = policy.address(host, ip, port);
    if (!d.ok) throw new Refused(`Refused ${url.href}: ${d.reason}`);
  }
  return addresses[0];
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * Fetches `start`, following at most {@link MAX_REDIRECTS} redirects, each hop checked; reads at
 * most `maxBytes` of the body. Rejects only with the signal's reason (cancellation or the time
 * limit); every other failure is a {@link FetchRefused}.
 */
export async function fetchPage(
  start: URL,
  policy: WebPolicy,
  options: FetchOptions,
  net: WebNet = denoWebNet,
): Promise<FetchedPage | FetchRefused> {
  const { signal } = options;
  const headers = {
    "user-agent": options.userAgent,
    accept: "text/html,application/xhtml+xml,text/markdown;q=0.9,text/plain;q=0.8,*/*;q=0.5",
  };
  const redirects: URL[] = [];
  let url = start;
  try {
    for (;;) {
      const address = await checkHop(url, policy, net, signal);
      let sent: Awaited<ReturnType<WebNet["send"]>>;
      try {
        sent = await net.send(url, address, { headers, signal });
      } catch (e) {
        if (signal.aborted) throw signal.reason;
        throw new Refused(`Cannot fetch ${url.href}: ${errorText(e)}`);
      }
      const { response, done } = sent;
      try {
        if (REDIRECTS.has(response.status) && response.headers.has("location")) {
          await response.body?.cancel().catch(() => {});
          const location = response.headers.get("location")!;
          if (redirects.length >= MAX_REDIRECTS) {
            throw new Refused(
              `Refused ${start.href}: more than ${MAX_REDIRECTS} redirects (the last went to ` +
                `${new URL(location, url).href.slice(0, 500)})`,
            );
          }
          let next: URL;
          try {
            next = checkUrl(new URL(location, url).href);
          } catch (e) {
            throw new Refused(`Refused the redirect from ${url.href}: ${errorText(e)}`);
          }
          redirects.push(next);
          url = next;
          continue;
        }
        const contentType = response.headers.get("content-type");
        // A compressed body's Content-Length counts compressed bytes; maxBytes counts decoded.
        const encoding = (response.headers.get("content-encoding") ?? "identity").trim();
        const declared = encoding.toLowerCase() === "identity"
          ? Number(response.headers.get("content-length") ?? NaN)
          : NaN;
        const declaredBytes = Number.isSafeInteger(declared) && declared >= 0
          ? declared
          : undefined;
        if (bodyKind(contentType, new Uint8Array()) === "binary") {
          await response.body?.cancel().catch(() => {});
          throw new Refused(binaryMessage(url, contentType));
        }
        const body = await readBounded(response, options.maxBytes, options.progress);
        return {
          ok: true,
          url,
          redirects,
          status: response.status,
          statusText: response.statusText,
          contentType,
          bytes: body.bytes,
          cut: body.cut,
          declaredBytes,
        };
      } finally {
        done();
      }
    }
  } catch (e) {
    if (e instanceof Refused) return { ok: false, message: e.message };
    if (signal.aborted) throw signal.reason;
    return { ok: false, message: `Cannot fetch ${url.href}: ${errorText(e)}` };
  }
}

/** The refusal of a binary body. */
export function binaryMessage(url: URL, contentType: string | null): string {
  const type = contentType ? ` (${contentType.split(";")[0]!.trim().slice(0, 100)})` : "";
  return `Refused ${url.href}: the response is binary${type}; web_fetch returns only HTML ` +
    `and text`;
}

/**
 * Reads at most `max` bytes of a body and cancels the rest; `progress` is told the count so
 * far, so that a timeout can say how much came.
 */
async function readBounded(
  response: Response,
  max: number,
  progress: ((n: number) => void) | undefined,
): Promise<{ bytes: Uint8Array; cut: boolean }> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  let cut = false;
  const reader = response.body?.getReader();
  if (!reader) return { bytes: new Uint8Array(), cut };
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      const room = max - total;
      if (value.length > room) {
        if (room > 0) chunks.push(value.subarray(0, room));
        total = max;
        cut = true;
        break;
      }
      chunks.push(value);
      total += value.length;
      progress?.(total);
    }
  } finally {
    if (cut) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.length;
  }
  return { bytes, cut };
}
