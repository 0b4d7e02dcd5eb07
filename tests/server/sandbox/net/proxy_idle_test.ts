/**
 * A tunnel through the sandbox proxy that goes silent is closed, both ends, once it was idle for
 * the proxy's `idleMs` (the check re-arms itself with server/timer.ts), not before; and its timer
 * ends with the tunnel.
 */
import assert from "node:assert/strict";
import { type ProxyNet, SandboxProxy } from "../../../../server/sandbox/net/proxy.ts";
import { timerStats } from "../../../../server/timer.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();
const IDLE_MS = 300;

/** Reads from `c` until `text` has arrived; fails after 10 s. */
async function readUntil(c: Deno.Conn, text: string): Promise<string> {
  const buf = new Uint8Array(1024);
  let got = "";
  const deadline = Date.now() + 10_000;
  while (!got.includes(text)) {
    assert.ok(Date.now() < deadline, `no ${JSON.stringify(text)} in ${JSON.stringify(got)}`);
    const n = await c.read(buf);
    assert.notEqual(n, null, `closed before ${JSON.stringify(text)}: ${JSON.stringify(got)}`);
    got += dec.decode(buf.subarray(0, n!));
  }
  return got;
}

Deno.test("a silent tunnel is closed at both ends after idleMs, not before, and its timer ends", async () => {
  const pendingBefore = timerStats().pending;
  // The destination: echoes what it reads, then stays silent with the connection open.
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const upstreamEnded = (async () => {
    const conn = await listener.accept().catch(() => undefined);
    if (!conn) return false;
    const buf = new Uint8Array(1024);
    for (;;) {
      const n = await conn.read(buf).catch(() => null);
      if (n === null) break;
      await conn.write(buf.subarray(0, n));
    }
    conn.close();
    return true;
  })();
  const net: ProxyNet = {
    mayConnect: () => true,
    unscoped: () => true,
    // A public address, as a loopback one is refused unless listed; connect goes here anyway.
    resolve: () => Promise.resolve(["93.184.216.34"]),
    connect: () => Deno.connect({ hostname: "127.0.0.1", port: listener.addr.port }),
  };
  const dir = await Deno.makeTempDir();
  const proxy = await SandboxProxy.start({
    path: `${dir}/p.sock`,
    hosts: ["a.example:443"],
    net,
    idleMs: IDLE_MS,
  });
  try {
    const c = await Deno.connect({ transport: "unix", path: proxy.path });
    await c.write(enc.encode("CONNECT a.example:443 HTTP/1.1\r\nHost: a.example:443\r\n\r\n"));
    const head = await readUntil(c, "\r\n\r\n");
    assert.match(head, /^HTTP\/1\.1 200/, head);
    await c.write(enc.encode("ping"));
    assert.equal(await readUntil(c, "ping"), "ping");
    const quietFrom = performance.now();
    // Now silent both ways: the proxy closes the tunnel; a watchdog turns a hang into a failure.
    const closed = await Promise.race([
      c.read(new Uint8Array(16)).catch(() => null),
      new Promise<"hung">((r) =>
        AbortSignal.timeout(10_000).addEventListener("abort", () => r("hung"))
      ),
    ]);
    const quietFor = performance.now() - quietFrom;
    assert.equal(closed, null, "the silent tunnel was closed");
    assert.ok(quietFor >= IDLE_MS - 20, `closed after ${quietFor.toFixed(0)} ms of quiet`);
    assert.equal(await upstreamEnded, true, "the destination's end was closed too");
    c.close();
  } finally {
    await proxy.close();
    listener.close();
    await Deno.remove(dir, { recursive: true });
  }
  assert.equal(timerStats().pending, pendingBefore, "no timer of the tunnel is left pending");
});
