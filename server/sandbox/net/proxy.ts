/**
 * scv's sandbox proxy: sandboxed commands have a network namespace of their own with nothing in
 * it but a forwarder (socat) from their loopback to this proxy's Unix socket, bound into the
 * sandbox. On that one socket it speaks HTTP `CONNECT`, plain HTTP (absolute `http://` URLs) and
 * SOCKS5 (told apart by the first byte), and connects only to `sandbox_network`'s hosts: names
 * are resolved here (so a DNS answer cannot smuggle a loopback, link-local or private address),
 * every address is checked, and scv's own `--allow-net` is the most it grants. Connections are
 * bounded in number, request heads in size and time, and idle connections are closed; nothing of
 * what passes through is logged, only refusals (host, port, why), which the `bash` tool reports.
 *
 * @module
 */
import { type HostDecision, HostPolicy, isIPv4, isIPv6 } from "./hosts.ts";
import { after, type Timer } from "../../timer.ts";
import {
  MAX_HEAD_BYTES,
  type Parsed,
  parseHttpHead,
  parseSocks5,
  socksGreetingLength,
} from "./parse.ts";

/** One refused connection, as the model is told of it. */
export interface Refusal {
  host: string;
  port: number;
  reason: string;
  /** `performance.now()` when it was refused. */
  at: number;
  /** The token of the call whose request it was, when the request carried one. */
  caller?: string;
}

/** How the proxy reaches the outside (injectable for tests). */
export interface ProxyNet {
  /** Whether scv itself may connect to `host:port` (its `--allow-net`). */
  mayConnect(host: string, port: number): boolean;
  /** Whether scv may connect to any address (an unscoped `--allow-net`). */
  unscoped(): boolean;
  /** The addresses of `host` as the system resolves them. */
  resolve(host: string): Promise<string[]>;
  /** A TCP connection. */
  connect(hostname: string, port: number): Promise<Deno.TcpConn>;
}

/** The network of the running process. */
export const denoNet: ProxyNet = {
  mayConnect: (host, port) =>
    Deno.permissions.querySync({ name: "net", host: `${hostForPermission(host)}:${port}` })
      .state === "granted",
  unscoped: () => Deno.permissions.querySync({ name: "net" }).state === "granted",
  // node:dns (getaddrinfo, so /etc/hosts counts) loads when first needed: any node: module
  // boots Deno's Node layer, which a turn without network should not pay for.
  resolve: async (host) => {
    const { lookup } = await import("node:dns/promises");
    return (await lookup(host, { all: true })).map((a) => a.address);
  },
  connect: (hostname, port) => Deno.connect({ hostname, port }),
};

function hostForPermission(host: string): string {
  return isIPv6(host) ? `[${host}]` : host;
}

/** Options of {@link SandboxProxy.start}. */
export interface ProxyOptions {
  /** The Unix socket to listen on (a stale one is replaced). */
  path: string;
  /** `sandbox_network`'s host patterns. */
  hosts: readonly string[];
  net?: ProxyNet;
  /** Connections open at once, at most (default 64); more wait for none and are closed. */
  maxConnections?: number;
  /** A connection with no byte either way for this long is closed (default 60 s). */
  idleMs?: number;
  /** A request head must arrive within this long (default 10 s). */
  headTimeoutMs?: number;
}

/** Refusals remembered, newest last. */
const MAX_REFUSALS = 64;
const SOCKS_MAX = 600;

/** The proxy of one scv process. */
export class SandboxProxy {
  readonly path: string;
  readonly policy: HostPolicy;
  #listener: Deno.Listener;
  #net: ProxyNet;
  #open = new Set<Deno.Conn>();
  #max: number;
  #idleMs: number;
  #headMs: number;
  #refusals: Refusal[] = [];
  #serving: Promise<void>;

  private constructor(listener: Deno.Listener, o: ProxyOptions) {
    this.#listener = listener;
    this.path = o.path;
    this.policy = new HostPolicy(o.hosts);
    this.#net = o.net ?? denoNet;
    this.#max = o.maxConnections ?? 64;
    this.#idleMs = o.idleMs ?? 60_000;
    this.#headMs = o.headTimeoutMs ?? 10_000;
    this.#serving = this.#serve();
  }

  /** Listens on `options.path`. */
  static async start(options: ProxyOptions): Promise<SandboxProxy> {
    let stale = false;
    try {
      stale = (await Deno.lstat(options.path)).isSocket === true;
    } catch {
      // Nothing there.
    }
    if (stale) {
      // Another scv's live proxy keeps its socket; only a dead one's is replaced.
      const live = await Deno.connect({ transport: "unix", path: options.path }).then((c) => {
        c.close();
        return true;
      }, () => false);
      if (live) throw new Error(`another scv is listening on ${options.path}`);
      await Deno.remove(options.path);
    }
    const listener = Deno.listen({ transport: "unix", path: options.path });
    await Deno.chmod(options.path, 0o600).catch(() => {});
    // Sync on purpose: unload runs on Deno.exit, where nothing async completes.
    globalThis.addEventListener("unload", () => {
      try {
        Deno.removeSync(options.path);
      } catch {
        // Removed by close(), or not ours to remove.
      }
    });
    return new SandboxProxy(listener, options);
  }

  /** Connections open now. */
  get open(): number {
    return this.#open.size;
  }

  /**
   * The refusals of the call with token `caller`, oldest first: those its requests named it in
   * (HTTP through the forwarder's proxy URL), and those of requests that named no call (SOCKS5,
   * a tool that drops the URL's credentials) refused since `at` (a `performance.now()` value),
   * which only the time can tell apart. Without `caller`, every refusal since `at`.
   */
  refusedSince(at: number, caller?: string): Refusal[] {
    return this.#refusals.filter((r) =>
      caller !== undefined && r.caller !== undefined ? r.caller === caller : r.at >= at
    );
  }

  /** Stops listening, closes every connection and removes the socket. */
  async close(): Promise<void> {
    try {
      this.#listener.close();
    } catch {
      // Closed already.
    }
    for (const c of this.#open) closeQuietly(c);
    await this.#serving.catch(() => {});
    await Deno.remove(this.path).catch(() => {});
  }

  async #serve(): Promise<void> {
    for await (const conn of this.#listener) {
      if (this.#open.size >= this.#max) {
        closeQuietly(conn);
        continue;
      }
      this.#open.add(conn);
      this.#handle(conn).catch(() => {}).finally(() => {
        this.#open.delete(conn);
        closeQuietly(conn);
      });
    }
  }

  #refuse(host: string, port: number, reason: string, caller: string | undefined): void {
    this.#refusals.push({
      host,
      port,
      reason,
      at: performance.now(),
      ...(caller ? { caller } : {}),
    });
    if (this.#refusals.length > MAX_REFUSALS) this.#refusals.shift();
  }

  async #handle(client: Deno.Conn): Promise<void> {
    const first = await readUntil(
      client,
      (b) =>
        b.length > 0 ? { state: "done", value: b } : {
          state: "more",
        },
      1,
      this.#headMs,
    );
    if (first.state !== "done") return;
    if (first.value[0] === 5) return await this.#socks(client, first.value);
    const head = await readUntil(
      client,
      parseHttpHead,
      MAX_HEAD_BYTES + 4,
      this.#headMs,
      first.value,
    );
    if (head.state !== "done") {
      if (head.state === "error") await writeQuietly(client, httpAnswer(400, head.message));
      return;
    }
    const req = head.value;
    const upstream = await this.#open_(req.host, req.port, req.caller);
    if (!upstream.ok) {
      await writeQuietly(client, httpAnswer(403, refusalText(req.host, req.port, upstream.reason)));
      return;
    }
    const up = upstream.conn;
    this.#open.add(up);
    try {
      if (req.kind === "connect") {
        await writeAll(
          client,
          new TextEncoder().encode("HTTP/1.1 200 Connection Established\r\n\r\n"),
        );
      } else {
        await writeAll(up, req.head!);
      }
      if (req.rest.length > 0) await writeAll(up, req.rest);
      await this.#pipe(client, up);
    } finally {
      this.#open.delete(up);
      closeQuietly(up);
    }
  }

  async #socks(client: Deno.Conn, start: Uint8Array): Promise<void> {
    const greeting = await readUntil(client, socksGreetingLength, SOCKS_MAX, this.#headMs, start);
    if (greeting.state !== "done") {
      if (greeting.state === "error") await writeQuietly(client, new Uint8Array([5, 0xff]));
      return;
    }
    await writeAll(client, new Uint8Array([5, 0]));
    const req = await readUntil(client, parseSocks5, SOCKS_MAX, this.#headMs, greeting.bytes);
    if (req.state !== "done") {
      if (req.state === "error") await writeQuietly(client, socksReply(7));
      return;
    }
    const { host, port, consumed } = req.value;
    const upstream = await this.#open_(host, port, undefined);
    if (!upstream.ok) {
      await writeQuietly(client, socksReply(2));
      return;
    }
    const up = upstream.conn;
    this.#open.add(up);
    try {
      await writeAll(client, socksReply(0));
      const rest = req.bytes.subarray(consumed);
      if (rest.length > 0) await writeAll(up, rest);
      await this.#pipe(client, up);
    } finally {
      this.#open.delete(up);
      closeQuietly(up);
    }
  }

  /** Decides and connects: the list, scv's permission, the resolved addresses. */
  async #open_(
    host: string,
    port: number,
    caller: string | undefined,
  ): Promise<{ ok: true; conn: Deno.TcpConn } | { ok: false; reason: string }> {
    const refused = (reason: string) => {
      this.#refuse(host, port, reason, caller);
      return { ok: false as const, reason };
    };
    const listed = this.policy.listed(host, port);
    if (!listed.ok) return refused(listed.reason);
    if (!this.#net.mayConnect(host, port)) {
      return refused("scv's own --allow-net does not include it");
    }
    const literal = isIPv4(host) || isIPv6(host);
    if (!this.#net.unscoped() && !literal) {
      // A scoped --allow-net lets scv connect by name only: the address is checked once known.
      let conn: Deno.TcpConn;
      try {
        conn = await this.#net.connect(host, port);
      } catch (e) {
        return refused(`cannot connect: ${errorName(e)}`);
      }
      const addr = conn.remoteAddr.hostname;
      const ok = this.policy.address(addr, port);
      if (!ok.ok) {
        closeQuietly(conn);
        return refused(ok.reason);
      }
      return { ok: true, conn };
    }
    let addresses: string[];
    try {
      addresses = literal ? [host] : await this.#net.resolve(host);
    } catch (e) {
      return refused(`cannot resolve it: ${errorName(e)}`);
    }
    let why: HostDecision = { ok: false, reason: "it resolves to no address" };
    for (const addr of addresses.slice(0, 16)) {
      const d = this.policy.address(addr, port);
      if (!d.ok) {
        why = d;
        continue;
      }
      try {
        return { ok: true, conn: await this.#net.connect(addr, port) };
      } catch (e) {
        why = { ok: false, reason: `cannot connect: ${errorName(e)}` };
      }
    }
    return refused(why.ok ? "no address" : why.reason);
  }

  /** Copies both ways until both ends are done or the connection is idle too long. */
  async #pipe(a: Deno.Conn, b: Deno.Conn): Promise<void> {
    let last = performance.now();
    const copy = async (from: Deno.Conn, to: Deno.Conn) => {
      const buf = new Uint8Array(64 * 1024);
      try {
        while (true) {
          const n = await from.read(buf);
          if (n === null) break;
          last = performance.now();
          await writeAll(to, buf.subarray(0, n));
        }
      } catch {
        // Reset or closed: the other way ends with it.
      }
      try {
        await (to as Deno.TcpConn).closeWrite();
      } catch {
        closeQuietly(to);
      }
    };
    // Checked every half of the idle bound (10 ms to 5 s), until both directions end.
    const period = Math.max(10, Math.min(this.#idleMs / 2, 5_000));
    const check = () => {
      if (performance.now() - last > this.#idleMs) {
        closeQuietly(a);
        closeQuietly(b);
      }
      idle = after(period, check);
    };
    let idle: Timer = after(period, check);
    try {
      await Promise.all([copy(a, b), copy(b, a)]);
    } finally {
      idle.cancel();
    }
  }
}

/** The text a refused command reads (an HTTP 403 body) and the model's line is made of. */
export function refusalText(host: string, port: number, reason: string): string {
  return `scv sandbox: the connection to ${host}:${port} was refused: ${reason}; add it to ` +
    `"sandbox_network" in scv's configuration to allow it`;
}

function httpAnswer(status: number, text: string): Uint8Array {
  const body = text + "\n";
  const phrase = status === 403 ? "Forbidden" : "Bad Request";
  return new TextEncoder().encode(
    `HTTP/1.1 ${status} ${phrase}\r\nContent-Type: text/plain\r\nContent-Length: ${
      new TextEncoder().encode(body).length
    }\r\nConnection: close\r\nX-Scv-Sandbox: refused\r\n\r\n${body}`,
  );
}

function socksReply(code: number): Uint8Array {
  return new Uint8Array([5, code, 0, 1, 0, 0, 0, 0, 0, 0]);
}

function errorName(e: unknown): string {
  return e instanceof Error ? (e.name === "Error" ? e.message : e.name) : String(e);
}

/** Reads into a buffer of at most `max` bytes until `parse` is done or fails, or time runs out. */
async function readUntil<T>(
  conn: Deno.Conn,
  parse: (b: Uint8Array) => Parsed<T>,
  max: number,
  timeoutMs: number,
  start: Uint8Array = new Uint8Array(0),
): Promise<
  (Parsed<T> & { state: "more" | "error" }) | { state: "done"; value: T; bytes: Uint8Array }
> {
  let bytes = start;
  const timer = after(timeoutMs, () => closeQuietly(conn));
  try {
    while (true) {
      if (bytes.length > 0) {
        const r = parse(bytes);
        if (r.state === "done") return { state: "done", value: r.value, bytes };
        if (r.state === "error") return r;
      }
      if (bytes.length >= max) return { state: "error", message: "request too large" };
      const chunk = new Uint8Array(Math.min(4096, max - bytes.length));
      let n: number | null;
      try {
        n = await conn.read(chunk);
      } catch {
        return { state: "more" };
      }
      if (n === null) return { state: "more" };
      const next = new Uint8Array(bytes.length + n);
      next.set(bytes);
      next.set(chunk.subarray(0, n), bytes.length);
      bytes = next;
    }
  } finally {
    timer.cancel();
  }
}

async function writeAll(conn: Deno.Conn, data: Uint8Array): Promise<void> {
  let off = 0;
  while (off < data.length) off += await conn.write(data.subarray(off));
}

async function writeQuietly(conn: Deno.Conn, data: Uint8Array): Promise<void> {
  try {
    await writeAll(conn, data);
  } catch {
    // The client is gone.
  }
}

function closeQuietly(c: Deno.Conn | Deno.Listener): void {
  try {
    c.close();
  } catch {
    // Closed already.
  }
}
