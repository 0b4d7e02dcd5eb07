import assert from "node:assert/strict";
import {
  addressClass,
  HostPolicy,
  parseHostPattern,
} from "../../../../server/sandbox/net/hosts.ts";
import { validateConfigObject } from "../../../../server/config.ts";

Deno.test("host patterns take names, *.domains, IPv4 and [IPv6] with optional ports, and nothing else", () => {
  assert.deepEqual(parseHostPattern("registry.npmjs.org"), {
    host: "registry.npmjs.org",
    port: undefined,
    address: false,
  });
  assert.equal(parseHostPattern("127.0.0.1:4873").port, 4873);
  for (
    const bad of ["", "a b", "http://x", "x:0", "x:70000", "[::1", "*", "-a.com", "1.2.3.4.5:1"]
  ) {
    assert.throws(() => parseHostPattern(bad), RangeError, bad);
  }
});

Deno.test("address classes: loopback, link-local, private and special are not public", () => {
  assert.equal(addressClass("127.9.9.9"), "loopback");
  assert.equal(addressClass("::1"), "loopback");
  assert.equal(addressClass("169.254.169.254"), "link-local");
  assert.equal(addressClass("fe80::1"), "link-local");
  for (
    const p of ["10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1", "100.64.0.1", "fd00::1"]
  ) {
    assert.equal(addressClass(p), "private", p);
  }
  assert.equal(addressClass("0.0.0.0"), "special");
  assert.equal(addressClass("::ffff:10.0.0.1"), "private");
  assert.equal(addressClass("172.32.0.1"), "public");
  assert.equal(addressClass("2606:4700::1111"), "public");
});

Deno.test("the policy lists hosts by name, subdomain pattern and port, and refuses special addresses unless listed by address", () => {
  const p = new HostPolicy(["registry.npmjs.org", "*.github.com:443", "127.0.0.1:4873"]);
  assert.equal(p.listed("registry.npmjs.org", 443).ok, true);
  assert.equal(p.listed("REGISTRY.npmjs.org.", 80).ok, true);
  assert.equal(p.listed("api.github.com", 443).ok, true);
  assert.equal(p.listed("github.com", 443).ok, false);
  assert.equal(p.listed("api.github.com", 80).ok, false);
  assert.equal(p.listed("evil-github.com", 443).ok, false);
  assert.equal(p.address("140.82.112.3", 443).ok, true);
  assert.equal(p.address("127.0.0.1", 4873).ok, true);
  assert.equal(p.address("127.0.0.1", 4874).ok, false);
  assert.match((p.address("169.254.169.254", 80) as { reason: string }).reason, /link-local/);
});

Deno.test("sandbox_network takes true, false or a list of host patterns", () => {
  assert.deepEqual(
    validateConfigObject({ sandbox_network: ["a.example", "*.b.example:443", "[::1]:80"] }, "x")
      .sandbox_network,
    ["a.example", "*.b.example:443", "[::1]:80"],
  );
  assert.throws(
    () => validateConfigObject({ sandbox_network: ["http://x"] }, "x.jsonc"),
    /"sandbox_network" must be true, false or an array/,
  );
  assert.throws(() => validateConfigObject({ sandbox_network: "yes" }, "x.jsonc"));
});
