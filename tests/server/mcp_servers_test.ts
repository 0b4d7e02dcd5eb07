/**
 * The `mcp_servers` config key (CONTRACT.md "MCP"): every entry validated with an error naming
 * the file, the exact key and what was wrong; defaults filled; entries merged by name.
 */
import assert from "node:assert/strict";
import { ConfigError, loadConfig, parseConfigText } from "../../server/config.ts";
import { hasEnabledServers, validateMcpServers } from "../../server/mcp_servers.ts";

function errorOf(servers: unknown): string {
  try {
    parseConfigText(JSON.stringify({ mcp_servers: servers }), "c.jsonc");
  } catch (e) {
    assert.ok(e instanceof ConfigError, `expected a ConfigError, got ${e}`);
    return e.message;
  }
  assert.fail("expected a ConfigError, got none");
}

Deno.test("a stdio entry gets its defaults: enabled, a 10 s startup timeout, untrusted, no args or env", () => {
  const c = parseConfigText('{"mcp_servers": {"fs": {"command": "mcp-fs"}}}', "c.jsonc");
  assert.deepEqual(c.mcp_servers, {
    fs: {
      command: "mcp-fs",
      args: [],
      env: {},
      enabled: true,
      startup_timeout_ms: 10000,
      trust: false,
    },
  });
});

Deno.test("an HTTP entry keeps its url, headers and per-server timeouts", () => {
  const c = validateMcpServers({
    web: {
      url: "https://h.example/mcp",
      headers: { Authorization: "Bearer ${TOKEN}" },
      tool_timeout_ms: 5000,
      startup_timeout_ms: 2000,
      trust: true,
    },
  });
  assert.deepEqual(c.web, {
    url: "https://h.example/mcp",
    headers: { Authorization: "Bearer ${TOKEN}" },
    enabled: true,
    startup_timeout_ms: 2000,
    tool_timeout_ms: 5000,
    trust: true,
  });
});

Deno.test("a server name outside [A-Za-z0-9_-] or over 32 characters is refused with the name", () => {
  assert.match(
    errorOf({ "my server": { command: "x" } }),
    /Cannot load config "c\.jsonc": "mcp_servers" has the server name "my server"; a name is 1 to 32/,
  );
  assert.match(errorOf({ ["a".repeat(33)]: { command: "x" } }), /server name "a{33}"/);
});

Deno.test("an entry with both command and url, or neither, says which one to give", () => {
  assert.match(
    errorOf({ s: { command: "x", url: "http://h" } }),
    /"mcp_servers\.s" has both "command" and "url"/,
  );
  assert.match(
    errorOf({ s: { args: [] } }),
    /"mcp_servers\.s" needs "command" \(a stdio server\) or "url"/,
  );
});

Deno.test("a key of the other kind of server is an unknown key naming what the kind takes", () => {
  assert.match(
    errorOf({ s: { url: "http://h", env: {} } }),
    /"mcp_servers\.s" has unknown key "env"; a Streamable HTTP server \(url\) takes url, headers/,
  );
  assert.match(
    errorOf({ s: { command: "x", headers: {} } }),
    /unknown key "headers"; a stdio server/,
  );
});

Deno.test("wrong types in an entry name the exact key and the value found", () => {
  assert.match(
    errorOf({ s: { command: 3 } }),
    /"mcp_servers\.s\.command" must be a non-empty string, got 3/,
  );
  assert.match(
    errorOf({ s: { command: "x", args: "a b" } }),
    /"mcp_servers\.s\.args" must be an array of strings, got "a b"/,
  );
  assert.match(
    errorOf({ s: { command: "x", env: { A: 1 } } }),
    /"mcp_servers\.s\.env\.A" must be a string, got 1/,
  );
  assert.match(
    errorOf({ s: { command: "x", env: { "1A": "v" } } }),
    /"mcp_servers\.s\.env" has "1A", which is not an environment variable name/,
  );
  assert.match(
    errorOf({ s: { command: "x", enabled: "no" } }),
    /"mcp_servers\.s\.enabled" must be true or false, got "no"/,
  );
  assert.match(
    errorOf({ s: { command: "x", trust: 1 } }),
    /"mcp_servers\.s\.trust" must be true or false/,
  );
  assert.match(
    errorOf({ s: { command: "x", cwd: "rel" } }),
    /"mcp_servers\.s\.cwd" must be an absolute path, got "rel"/,
  );
  assert.match(
    errorOf({ s: { url: "ftp://h" } }),
    /"mcp_servers\.s\.url" must be an absolute http\(s\) URL, got "ftp:\/\/h"/,
  );
  assert.match(
    errorOf({ s: { url: "http://h", headers: { "a b": "v" } } }),
    /"mcp_servers\.s\.headers" has "a b", which is not an HTTP header name/,
  );
  assert.match(errorOf([]), /"mcp_servers" must be an object of server entries, got \[\]/);
});

Deno.test("timeouts must be positive integers a timer can hold", () => {
  assert.match(
    errorOf({ s: { command: "x", startup_timeout_ms: 0 } }),
    /"mcp_servers\.s\.startup_timeout_ms" must be a positive integer of milliseconds, at most 2147483647, got 0/,
  );
  assert.match(
    errorOf({ s: { command: "x", tool_timeout_ms: 2147483648 } }),
    /"mcp_servers\.s\.tool_timeout_ms" must be a positive integer/,
  );
});

Deno.test("a malformed ${...} reference in env, headers or url is refused before any server starts", () => {
  assert.match(
    errorOf({ s: { command: "x", env: { A: "${1X}" } } }),
    /"mcp_servers\.s\.env\.A" has a \$\{ that is not a \$\{NAME\} reference/,
  );
  assert.match(
    errorOf({ s: { url: "http://h/${A", headers: {} } }),
    /"mcp_servers\.s\.url" has a \$\{/,
  );
  // A valid reference in the host is checked again once the variable is read.
  assert.equal(validateMcpServers({ s: { url: "https://${HOST}/mcp" } }).s?.enabled, true);
});

Deno.test("one config names at most 32 servers, and an entry's maps and args are bounded", () => {
  const many = Object.fromEntries(
    Array.from({ length: 33 }, (_, i) => [`s${i}`, { command: "x" }]),
  );
  assert.match(errorOf(many), /"mcp_servers" may name at most 32 servers, got 33/);
  assert.match(
    errorOf({ s: { command: "x", args: Array(257).fill("a") } }),
    /may hold at most 256 arguments/,
  );
  const env = Object.fromEntries(Array.from({ length: 129 }, (_, i) => [`V${i}`, "v"]));
  assert.match(
    errorOf({ s: { command: "x", env } }),
    /"mcp_servers\.s\.env" may hold at most 128 entries/,
  );
});

Deno.test("entries from later config files are merged with earlier ones by server name", () => {
  const files: Record<string, string> = {
    "/x/scv/config.jsonc": '{"mcp_servers": {"a": {"command": "one"}, "b": {"command": "b"}}}',
    "/c.jsonc": '{"mcp_servers": {"a": {"command": "two"}}}',
  };
  const c = loadConfig({ config: "/c.jsonc" }, {
    env: (n) => n === "XDG_CONFIG_HOME" ? "/x" : undefined,
    readTextFile: (p) => files[p],
  });
  assert.deepEqual(Object.keys(c.mcp_servers), ["a", "b"]);
  assert.equal((c.mcp_servers.a as { command: string }).command, "two");
});

Deno.test("only an enabled server counts as configured, so disabled ones load no MCP code", () => {
  assert.equal(
    hasEnabledServers(validateMcpServers({ a: { command: "x", enabled: false } })),
    false,
  );
  assert.equal(hasEnabledServers(validateMcpServers({ a: { command: "x" } })), true);
});
