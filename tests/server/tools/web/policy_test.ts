/** web_fetch's pure checks: URLs, the allow list, the refused address ranges. */
import { assert, assertEquals } from "../../../support/assert.ts";
import {
  checkUrl,
  hostOf,
  hostPatternCovers,
  WebPolicy,
} from "../../../../server/tools/web/policy.ts";

Deno.test("checkUrl takes http and https only and drops the fragment", () => {
  assertEquals(checkUrl(" https://Example.com/a?b=1#frag ").href, "https://example.com/a?b=1");
  for (const bad of ["file:///x", "data:text/plain,hi", "javascript:alert(1)", "ws://h/"]) {
    let message = "";
    try {
      checkUrl(bad);
    } catch (e) {
      message = (e as Error).message;
    }
    assert(/only http and https$/.test(message), `${bad}: ${message}`);
  }
});

Deno.test("checkUrl refuses a URL one character over its limit", () => {
  const base = "https://example.com/";
  checkUrl(base + "a".repeat(8192 - base.length));
  let threw = false;
  try {
    checkUrl(base + "a".repeat(8193 - base.length));
  } catch (e) {
    threw = e instanceof RangeError && /8193 characters long; at most 8192/.test(e.message);
  }
  assert(threw);
});

Deno.test("the address checks refuse loopback, link-local and private IPv4 and IPv6", () => {
  const p = new WebPolicy(["*"]);
  const refused = [
    "127.0.0.1",
    "127.8.9.10",
    "10.1.2.3",
    "172.16.0.1",
    "172.31.255.255",
    "192.168.1.1",
    "169.254.169.254",
    "100.64.0.1",
    "0.0.0.0",
    "::1",
    "::",
    "fe80::1",
    "fc00::1",
    "fd12:3456::1",
    "::ffff:127.0.0.1",
    "::ffff:7f00:1",
    "::ffff:10.0.0.1",
    "::ffff:a9fe:a9fe",
    "ff02::1",
  ];
  for (const ip of refused) assert(!p.address(ip, ip, 80).ok, `${ip} was allowed`);
  for (const ip of ["93.184.216.34", "8.8.8.8", "172.32.0.1", "2606:4700::1111"]) {
    assert(p.address(ip, ip, 443).ok, `${ip} was refused`);
  }
});

Deno.test("URL spellings of loopback are normalised before they are checked", () => {
  const p = new WebPolicy(["*"]);
  for (const text of ["http://0x7f.1/", "http://2130706433/", "http://[::ffff:127.0.0.1]/"]) {
    const host = hostOf(checkUrl(text));
    assert(!p.address(host, host, 80).ok, `${text} (${host}) was allowed`);
  }
});

Deno.test("a non-public address passes only when the list names it or names the host exactly", () => {
  assert(new WebPolicy(["127.0.0.1"]).address("127.0.0.1", "127.0.0.1", 8080).ok);
  assert(new WebPolicy(["127.0.0.1:8080"]).address("127.0.0.1", "127.0.0.1", 8080).ok);
  assert(!new WebPolicy(["127.0.0.1:8080"]).address("127.0.0.1", "127.0.0.1", 9090).ok);
  assert(new WebPolicy(["[::1]"]).address("::1", "0:0:0:0:0:0:0:1", 80).ok);
  assert(new WebPolicy(["wiki.corp"]).address("wiki.corp", "10.0.0.5", 443).ok);
  // A wildcard says "any subdomain", not "my own network".
  assert(!new WebPolicy(["*.corp"]).address("wiki.corp", "10.0.0.5", 443).ok);
  assertEquals(new WebPolicy(["*"]).address("evil.example", "192.168.0.1", 80), {
    ok: false,
    reason: "evil.example resolves to 192.168.0.1, a private address, which web_fetch refuses " +
      'unless "web_fetch_allow" lists it',
  });
});

Deno.test("the allow list limits the hosts; * admits any", () => {
  const p = new WebPolicy(["docs.deno.com", "*.github.com:443"]);
  assert(p.listed("docs.deno.com", 443).ok);
  assert(p.listed("api.github.com", 443).ok);
  assert(!p.listed("api.github.com", 80).ok);
  assert(!p.listed("github.com", 443).ok);
  assertEquals(p.listed("example.com", 443), {
    ok: false,
    reason: 'example.com:443 is not in "web_fetch_allow"',
  });
  assert(new WebPolicy(["*"]).listed("anything.example", 8080).ok);
  assert(!new WebPolicy([]).listed("example.com", 443).ok);
});

Deno.test("a bad allow-list entry is a RangeError naming it", () => {
  let message = "";
  try {
    new WebPolicy(["http://x"]);
  } catch (e) {
    message = e instanceof RangeError ? e.message : "";
  }
  assert(message.startsWith('host pattern "http://x"'), message);
});

Deno.test("a rule's host pattern covers a URL by host and port", () => {
  assert(hostPatternCovers("docs.deno.com", "https://docs.deno.com/runtime/"));
  assert(hostPatternCovers("*.deno.com", "https://docs.deno.com/"));
  assert(!hostPatternCovers("*.deno.com", "https://deno.com/"));
  assert(hostPatternCovers("127.0.0.1:8080", "http://127.0.0.1:8080/x"));
  assert(!hostPatternCovers("127.0.0.1:8080", "http://127.0.0.1:8081/x"));
  assert(hostPatternCovers("[::1]", "http://[0::1]/"));
  assert(!hostPatternCovers("docs.deno.com", "file:///docs.deno.com"));
  assert(!hostPatternCovers("docs.deno.com", "https://docs.deno.com.evil.example/"));
});
