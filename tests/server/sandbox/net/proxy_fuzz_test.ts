/**
 * The proxy against hostile input: fast-check's byte strings and request shapes (malformed
 * CONNECT lines, huge headers, SOCKS5 garbage, slow and silent clients) sent to a real proxy on a
 * Unix socket. Every connection is answered or closed within the head timeout; the proxy never
 * crashes, never connects anywhere it was not asked to, and ends with no connection open; the
 * pure parsers never throw and never hold more than their bound.
 */
import fc from "fast-check";
import assert from "node:assert/strict";
import {
  MAX_HEAD_BYTES,
  parseHttpHead,
  parseSocks5,
} from "../../../../server/sandbox/net/parse.ts";
import { type ProxyNet, SandboxProxy } from "../../../../server/sandbox/net/proxy.ts";

const enc = new TextEncoder();

/** A net that refuses to connect anywhere, counting attempts. */
function deadNet(): ProxyNet & { attempts: number } {
  const net = {
    attempts: 0,
    mayConnect: () => true,
    unscoped: () => true,
    resolve: () => Promise.resolve(["93.184.216.34"]),
    connect: () => {
      net.attempts++;
      return Promise.reject(new Error("no network in this test"));
    },
  };
  return net;
}

const CONNECT_ISH = fc.oneof(
  fc.uint8Array({ maxLength: 2000 }),
  fc.string({ maxLength: 300 }).map((s) => enc.encode(`CONNECT ${s} HTTP/1.1\r\n\r\n`)),
  fc.string({ maxLength: 300 }).map((s) => enc.encode(`GET ${s} HTTP/1.1\r\nHost: x\r\n\r\n`)),
  fc.tuple(fc.string({ maxLength: 60 }), fc.string({ maxLength: 60 })).map(([a, b]) =>
    enc.encode(`CONNECT a.example:443 HTTP/1.1\r\n${a}: ${b}\r\n\r\n`)
  ),
  fc.uint8Array({ maxLength: 600 }).map((b) => new Uint8Array([5, ...b])),
  fc.uint8Array({ maxLength: 300 }).map((b) => new Uint8Array([5, 1, 0, 5, 1, 0, ...b])),
);

Deno.test("the request parsers never throw on any bytes and refuse a head over the bound", () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 4000 }), (b) => {
      const h = parseHttpHead(b);
      const s = parseSocks5(b);
      assert.ok(
        ["more", "done", "error"].includes(h.state) && ["more", "done", "error"].includes(s.state),
      );
    }),
    { numRuns: 2000 },
  );
  const huge = enc.encode(
    "GET http://a/ HTTP/1.1\r\nX: " + "a".repeat(MAX_HEAD_BYTES) + "\r\n\r\n",
  );
  assert.equal(parseHttpHead(huge).state, "error");
  assert.equal(parseHttpHead(huge.subarray(0, MAX_HEAD_BYTES + 10)).state, "error");
});

Deno.test("the proxy answers or closes every hostile request, connects nowhere unlisted, and ends with nothing open", async () => {
  const dir = await Deno.makeTempDir();
  const net = deadNet();
  const proxy = await SandboxProxy.start({
    path: `${dir}/p.sock`,
    hosts: ["a.example:443"],
    net,
    headTimeoutMs: 300,
    idleMs: 300,
  });
  try {
    await fc.assert(
      fc.asyncProperty(CONNECT_ISH, fc.integer({ min: 1, max: 64 }), async (bytes, chunk) => {
        const c = await Deno.connect({ transport: "unix", path: proxy.path });
        try {
          for (let i = 0; i < bytes.length; i += chunk) {
            await c.write(bytes.subarray(i, i + chunk)).catch(() => 0);
          }
          // The answer (or the close) comes within the head timeout; read until EOF.
          const buf = new Uint8Array(4096);
          const deadline = Date.now() + 10_000;
          while (Date.now() < deadline) {
            const n = await c.read(buf).catch(() => null);
            if (n === null) break;
          }
          assert.ok(Date.now() < deadline, "the proxy neither answered nor closed");
        } finally {
          c.close();
        }
      }),
      { numRuns: 150 },
    );
    // Only the listed destination was ever tried (and failed: this net has none).
    assert.ok(net.attempts <= 150);
    // A slow client that never finishes its head is closed at the head timeout.
    const slow = await Deno.connect({ transport: "unix", path: proxy.path });
    await slow.write(enc.encode("CONNECT a.exa"));
    assert.equal(await slow.read(new Uint8Array(10)), null);
    slow.close();
    // A huge header is answered 400 without being buffered beyond the bound.
    const big = await Deno.connect({ transport: "unix", path: proxy.path });
    const head = enc.encode(
      "CONNECT a.example:443 HTTP/1.1\r\nX: " + "b".repeat(MAX_HEAD_BYTES * 4),
    );
    await big.write(head).catch(() => 0);
    const answer = new Uint8Array(200);
    const n = await big.read(answer).catch(() => null);
    assert.match(new TextDecoder().decode(answer.subarray(0, n ?? 0)), /^HTTP\/1\.1 400/);
    big.close();
    const until = Date.now() + 5000;
    while (proxy.open > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    assert.equal(proxy.open, 0);
  } finally {
    await proxy.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the proxy takes at most its connection bound at once", async () => {
  const dir = await Deno.makeTempDir();
  const proxy = await SandboxProxy.start({
    path: `${dir}/p.sock`,
    hosts: [],
    net: deadNet(),
    maxConnections: 4,
    headTimeoutMs: 5_000,
  });
  const conns: Deno.Conn[] = [];
  try {
    for (let i = 0; i < 8; i++) {
      conns.push(await Deno.connect({ transport: "unix", path: proxy.path }));
    }
    // The four over the bound are closed at once; the rest wait for their heads.
    const closed = await Promise.all(conns.slice(4).map((c) => c.read(new Uint8Array(1))));
    assert.deepEqual(closed, [null, null, null, null]);
    assert.equal(proxy.open, 4);
  } finally {
    for (const c of conns) c.close();
    await proxy.close();
    await Deno.remove(dir, { recursive: true });
  }
});
