/**
 * web_fetch against hostile pages and addresses (the review of issue 23): a page whose HTML takes
 * minutes to convert does not stall the server and is cut off at the time limit; addresses that
 * embed a private IPv4 address are refused; every address a name resolves to is checked.
 */
import { gzipSync } from "node:zlib";
import { assert, assertMatch } from "../../support/assert.ts";
import { createWebFetchTool } from "../../../server/tools/web_fetch.ts";
import type { WebNet } from "../../../server/tools/web/fetch_page.ts";
import { WebPolicy } from "../../../server/tools/web/policy.ts";
import { loopbackOnlyNet, webContext } from "./web/site.ts";

/** 40 000 nested <div>s: 200 KB that Readability and Turndown take minutes over. */
const DEEP_HTML = `<!doctype html><html><body>${"<div>".repeat(40_000)}x</body></html>`;

Deno.test("web_fetch converts a pathological page off the main thread and stops it at its time limit", async () => {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => new Response(DEEP_HTML, { headers: { "content-type": "text/html" } }),
  );
  let ticks = 0;
  const timer = setInterval(() => ticks++, 50);
  try {
    const tool = createWebFetchTool({
      allow: ["127.0.0.1"],
      net: loopbackOnlyNet(),
      timeoutMs: 3_000,
    });
    const r = await tool.run({ url: `http://127.0.0.1:${server.addr.port}/` }, webContext());
    assert(!r.success, r.output);
    assertMatch(r.output, /timed out after 3000 ms converting the HTML of http:\/\/127\.0\.0\.1/);
    // The main thread ran its timers while the page was converted.
    assert(ticks > 0, `no timer fired during the call (${ticks})`);
  } finally {
    clearInterval(timer);
    await server.shutdown();
  }
});

Deno.test("web_fetch stops converting a pathological page when the turn is cancelled", async () => {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => new Response(DEEP_HTML, { headers: { "content-type": "text/html" } }),
  );
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(), 1_000);
  try {
    const tool = createWebFetchTool({ allow: ["127.0.0.1"], net: loopbackOnlyNet() });
    const r = await tool.run(
      { url: `http://127.0.0.1:${server.addr.port}/` },
      webContext({ signal: stop.signal }),
    );
    assert(!r.success, r.output);
    assertMatch(r.output, /cancelled/);
  } finally {
    clearTimeout(timer);
    await server.shutdown();
  }
});

Deno.test("addresses that embed a private IPv4 address (NAT64, 6to4, IPv4-compatible) and site-local IPv6 are refused", () => {
  const p = new WebPolicy(["*"]);
  for (
    const ip of [
      "64:ff9b::a00:1", // NAT64 of 10.0.0.1
      "64:ff9b::7f00:1", // NAT64 of 127.0.0.1
      "64:ff9b::a9fe:a9fe", // NAT64 of 169.254.169.254
      "64:ff9b:1::a00:1", // local-use NAT64 prefix
      "2002:a00:1::1", // 6to4 of 10.0.0.1
      "2002:7f00:1::1", // 6to4 of 127.0.0.1
      "::7f00:1", // IPv4-compatible 127.0.0.1
      "::ffff:0:7f00:1", // IPv4-translated 127.0.0.1
      "fec0::1", // site-local
    ]
  ) assert(!p.address(ip, ip, 80).ok, `${ip} was allowed`);
  // The same translations of a public address stay public.
  for (const ip of ["64:ff9b::808:808", "2002:808:808::1"]) {
    assert(p.address(ip, ip, 80).ok, `${ip} was refused`);
  }
});

Deno.test("web_fetch checks every address a name resolves to, not only the first 16", async () => {
  const sent: string[] = [];
  const net: WebNet = {
    mayConnect: () => Promise.resolve(true),
    resolve: () =>
      Promise.resolve([...Array.from({ length: 16 }, (_, i) => `93.184.216.${i + 1}`), "10.0.0.5"]),
    send: (url) => {
      sent.push(url.href);
      return Promise.reject(new Error("test guard: nothing may be sent"));
    },
  };
  const r = await createWebFetchTool({ net }).run({ url: "http://many.example/" }, webContext());
  assert(!r.success);
  assertMatch(r.output, /many\.example resolves to 10\.0\.0\.5, a private address/);
  assert(sent.length === 0, `sent ${sent}`);
});

Deno.test("web_fetch bounds a gzip bomb by its decoded bytes and does not quote the compressed length", async () => {
  const gz = new Uint8Array(gzipSync(new Uint8Array(64 * 1024 * 1024).fill(97), { level: 9 }));
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () =>
      new Response(gz, { headers: { "content-type": "text/plain", "content-encoding": "gzip" } }),
  );
  try {
    const tool = createWebFetchTool({ allow: ["127.0.0.1"], net: loopbackOnlyNet() });
    const r = await tool.run(
      { url: `http://127.0.0.1:${server.addr.port}/`, max_bytes: 100_000 },
      webContext({ maxOutputBytes: 1_000_000 }),
    );
    assert(r.success && r.truncated, r.output);
    assertMatch(r.output, /the body was cut after 100000 bytes \(max_bytes\); the rest/);
    assert(!r.output.includes("declared"), r.output.slice(-300));
  } finally {
    await server.shutdown();
  }
});
