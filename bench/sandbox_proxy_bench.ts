/**
 * What scv's sandbox proxy adds: per connection (connect, `CONNECT` answered, first byte of the
 * answer) and for a 100 MB download, through the proxy's Unix socket against a direct TCP
 * connection to the same server on 127.0.0.1. The forwarder inside the sandbox (socat) is not in
 * this path; its cost is socat's own. Run: `deno run -A bench/sandbox_proxy_bench.ts`.
 *
 * @module
 */
import { SandboxProxy } from "../server/sandbox/net/proxy.ts";

const RUNS = 200;
const BYTES = 100 * 1024 * 1024;
const enc = new TextEncoder();

/** A server that answers each connection's first byte with `size` bytes, then closes. */
function server(size: number): { port: number; close(): void } {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const chunk = new Uint8Array(64 * 1024).fill(120);
  (async () => {
    for await (const conn of listener) {
      (async () => {
        try {
          await conn.read(new Uint8Array(1));
          let left = size;
          while (left > 0) {
            const n = await conn.write(chunk.subarray(0, Math.min(chunk.length, left)));
            left -= n;
          }
        } catch {
          // The client went away.
        } finally {
          conn.close();
        }
      })();
    }
  })().catch(() => {});
  return { port: listener.addr.port, close: () => listener.close() };
}

async function readAll(conn: Deno.Conn, until: number): Promise<number> {
  const buf = new Uint8Array(256 * 1024);
  let got = 0;
  while (got < until) {
    const n = await conn.read(buf);
    if (n === null) break;
    got += n;
  }
  return got;
}

async function direct(port: number, size: number): Promise<number> {
  const t = performance.now();
  const c = await Deno.connect({ hostname: "127.0.0.1", port });
  await c.write(new Uint8Array([1]));
  await readAll(c, size);
  c.close();
  return performance.now() - t;
}

async function proxied(path: string, port: number, size: number): Promise<number> {
  const t = performance.now();
  const c = await Deno.connect({ transport: "unix", path });
  await c.write(enc.encode(`CONNECT 127.0.0.1:${port} HTTP/1.1\r\nHost: x\r\n\r\n`));
  const head = new Uint8Array(39); // "HTTP/1.1 200 Connection Established\r\n\r\n"
  let got = 0;
  while (got < head.length) {
    const n = await c.read(head.subarray(got));
    if (n === null) throw new Error("proxy closed");
    got += n;
  }
  await c.write(new Uint8Array([1]));
  await readAll(c, size);
  c.close();
  return performance.now() - t;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

const dir = await Deno.makeTempDir();
const small = server(1);
const big = server(BYTES);
const proxy = await SandboxProxy.start({
  path: `${dir}/p.sock`,
  hosts: [`127.0.0.1:${small.port}`, `127.0.0.1:${big.port}`],
});
try {
  const d: number[] = [];
  const p: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    d.push(await direct(small.port, 1));
    p.push(await proxied(proxy.path, small.port, 1));
  }
  console.log(
    `connection + first byte (median of ${RUNS}): direct ${median(d).toFixed(2)} ms, ` +
      `through the proxy ${median(p).toFixed(2)} ms (+${(median(p) - median(d)).toFixed(2)} ms)`,
  );
  const dt: number[] = [];
  const pt: number[] = [];
  for (let i = 0; i < 3; i++) {
    dt.push(await direct(big.port, BYTES));
    pt.push(await proxied(proxy.path, big.port, BYTES));
  }
  const mbps = (ms: number) => (BYTES / 1024 / 1024 / (ms / 1000)).toFixed(0);
  console.log(
    `100 MB download (median of 3): direct ${median(dt).toFixed(0)} ms (${
      mbps(median(dt))
    } MB/s), ` +
      `through the proxy ${median(pt).toFixed(0)} ms (${mbps(median(pt))} MB/s)`,
  );
} finally {
  await proxy.close();
  small.close();
  big.close();
  await Deno.remove(dir, { recursive: true });
}
