/**
 * Refusals told to the call they came from (issue 20): each sandboxed call's HTTP proxy URL
 * carries its own token (`http://scv:<token>@127.0.0.1:3128`), the proxy reads it from
 * `Proxy-Authorization` (and never passes the header on), and a call hears only its own
 * refusals, plus those of requests that named no call (SOCKS5) within its time.
 */
import assert from "node:assert/strict";
import { callerOf, parseHttpHead } from "../../../../server/sandbox/net/parse.ts";
import { type ProxyNet, SandboxProxy } from "../../../../server/sandbox/net/proxy.ts";
import { forwarderArgv } from "../../../../server/sandbox/net/forwarder.ts";
import { SANDBOX_WORKS } from "../support.ts";

const enc = new TextEncoder();
const auth = (token: string) => `Proxy-Authorization: Basic ${btoa(`scv:${token}`)}\r\n`;

Deno.test("the caller token is read from Proxy-Authorization and never forwarded", () => {
  const connect = parseHttpHead(
    enc.encode(`CONNECT a.example:443 HTTP/1.1\r\n${auth("00aa11bb22cc33dd")}Host: a\r\n\r\n`),
  );
  assert(connect.state === "done");
  assert.equal(connect.value.caller, "00aa11bb22cc33dd");
  const forward = parseHttpHead(
    enc.encode(`GET http://a.example/x HTTP/1.1\r\n${auth("00aa11bb22cc33dd")}Host: a\r\n\r\n`),
  );
  assert(forward.state === "done");
  assert.equal(forward.value.caller, "00aa11bb22cc33dd");
  const head = new TextDecoder().decode(forward.value.head);
  assert(!/proxy-authorization/i.test(head), head);
  // Anything but scv's own shape names no call.
  for (
    const v of [
      ` Basic ${btoa("user:00aa11bb22cc33dd")}`,
      ` Basic ${btoa("scv:not hex!")}`,
      " Bearer 00aa11bb22cc33dd",
      " Basic %%%",
      ` Basic ${btoa(`scv:${"a".repeat(65)}`)}`,
    ]
  ) {
    assert.equal(callerOf(v), undefined, v);
  }
  const none = parseHttpHead(enc.encode("CONNECT a.example:443 HTTP/1.1\r\n\r\n"));
  assert(none.state === "done" && none.value.caller === undefined);
});

const SOCAT = ["/usr/bin/socat", "/bin/socat"].find((p) => {
  try {
    return Deno.statSync(p).isFile;
  } catch {
    return false;
  }
});

Deno.test({
  name: "the forwarder puts the call's token in the HTTP proxy URLs only",
  ignore: !SANDBOX_WORKS || SOCAT === undefined,
  fn: async () => {
    // In a network namespace of its own, as in a call: its socat listens on its own loopback.
    const argv = forwarderArgv(SOCAT!, ["bash", "-c", "env | grep -i _proxy= | sort"], "0123abcd");
    const out = await new Deno.Command("bwrap", {
      args: [
        "--ro-bind",
        "/",
        "/",
        "--dev",
        "/dev",
        "--tmpfs",
        "/tmp",
        "--unshare-net",
        "--unshare-pid",
        "--die-with-parent",
        "--",
        ...argv,
      ],
      stdout: "piped",
    }).output();
    const lines = new TextDecoder().decode(out.stdout).trim().split("\n");
    assert.deepEqual(lines, [
      "ALL_PROXY=socks5h://127.0.0.1:3128",
      "HTTPS_PROXY=http://scv:0123abcd@127.0.0.1:3128",
      "HTTP_PROXY=http://scv:0123abcd@127.0.0.1:3128",
      "all_proxy=socks5h://127.0.0.1:3128",
      "http_proxy=http://scv:0123abcd@127.0.0.1:3128",
      "https_proxy=http://scv:0123abcd@127.0.0.1:3128",
    ]);
  },
});

/** A net that may connect nowhere (every host here is unlisted anyway). */
const NOWHERE: ProxyNet = {
  mayConnect: () => true,
  unscoped: () => true,
  resolve: () => Promise.resolve(["93.184.216.34"]),
  connect: () => Promise.reject(new Error("no network in this test")),
};

/** Sends `bytes` to the proxy and reads until it closes. */
async function ask(path: string, bytes: Uint8Array): Promise<string> {
  const c = await Deno.connect({ transport: "unix", path });
  await c.write(bytes);
  const chunks: Uint8Array[] = [];
  const buf = new Uint8Array(4096);
  for (let n; (n = await c.read(buf)) !== null;) chunks.push(buf.slice(0, n));
  c.close();
  return new TextDecoder().decode(new Uint8Array(chunks.flatMap((b) => [...b])));
}

Deno.test("a call hears its own refusals and those naming no call since it started, no other's", async () => {
  const dir = await Deno.makeTempDir();
  const proxy = await SandboxProxy.start({ path: `${dir}/p.sock`, hosts: [], net: NOWHERE });
  try {
    const a = "aaaaaaaaaaaaaaaa", b = "bbbbbbbbbbbbbbbb";
    const connect = (host: string, token: string) =>
      enc.encode(`CONNECT ${host}:443 HTTP/1.1\r\n${auth(token)}\r\n`);
    assert.match(await ask(proxy.path, connect("one.example", a)), /403/);
    const bStarted = performance.now();
    assert.match(await ask(proxy.path, connect("two.example", b)), /403/);
    // SOCKS5 names no call: "three.example:443".
    const socks = new Uint8Array([5, 1, 0, 5, 1, 0, 3, 13, ...enc.encode("three.example"), 1, 187]);
    await ask(proxy.path, socks);
    assert.match(await ask(proxy.path, connect("four.example", a)), /403/);
    const hosts = (token: string, at: number) => proxy.refusedSince(at, token).map((r) => r.host);
    // Call a ran throughout: its two, and the one that named no call.
    assert.deepEqual(hosts(a, 0), ["one.example", "three.example", "four.example"]);
    // Call b started later: its own, and the unnamed one in its time; never a's.
    assert.deepEqual(hosts(b, bStarted), ["two.example", "three.example"]);
    // Without a token (an MCP server's sandbox), everything since the time.
    assert.deepEqual(proxy.refusedSince(bStarted).map((r) => r.host), [
      "two.example",
      "three.example",
      "four.example",
    ]);
  } finally {
    await proxy.close();
    await Deno.remove(dir, { recursive: true });
  }
});
