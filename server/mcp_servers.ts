/**
 * The `mcp_servers` config key: its validation (pure, no MCP SDK, no zod, since the config is
 * read before the handshake) and the normalized shape the MCP client starts servers from.
 *
 * @module
 */
import { expandEnvReferences } from "./env_refs.ts";
import { HOST_PATTERN } from "./host_pattern.ts";
import { MAX_TIMER_MS } from "./timer.ts";

/** What every server entry has, stdio or HTTP. */
export interface McpServerCommon {
  /** `false` keeps the entry in the file without starting it. */
  enabled: boolean;
  /** How long connecting, `initialize` and the first `tools/list` may take together. */
  startup_timeout_ms: number;
  /** Per-call limit; omitted means the top-level `tool_timeout_ms`. */
  tool_timeout_ms?: number;
  /** Trusted servers' read-only tools are `read` risk, and under `auto` they do not ask. */
  trust: boolean;
}

/** A server scv spawns and talks to over stdin/stdout. */
export interface McpStdioServerConfig extends McpServerCommon {
  /** The program to start. */
  command: string;
  /** Its arguments. */
  args: string[];
  /** Added to the core set of variables; values may hold `${VAR}`. */
  env: Record<string, string>;
  /** Absolute working directory; omitted means the first session's workspace. */
  cwd?: string;
  /** scv 0.3: run in the OS sandbox (workspace-write, as `bash` is). */
  sandbox?: boolean;
  /** scv 0.3: with `sandbox`: its own network rule, as `sandbox_network` (default none). */
  network?: boolean | string[];
}

/** A server reached over Streamable HTTP. */
export interface McpHttpServerConfig extends McpServerCommon {
  /** May hold `${VAR}`. */
  url: string;
  /** Sent with every request; values may hold `${VAR}`. */
  headers: Record<string, string>;
}

/** One validated `mcp_servers` entry. */
export type McpServerConfig = McpStdioServerConfig | McpHttpServerConfig;

/** The most servers one config may name. */
export const MAX_MCP_SERVERS = 32;
/** The default of `startup_timeout_ms`. */
export const DEFAULT_STARTUP_TIMEOUT_MS = 10000;
/** A server name: what goes between `mcp__` and `__` in its tools' names. */
export const SERVER_NAME = /^[A-Za-z0-9_-]{1,32}$/;

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const MAX_ARGS = 256;
const MAX_MAP_ENTRIES = 128;
const MAX_STRING = 8192;

const COMMON_KEYS = ["enabled", "startup_timeout_ms", "tool_timeout_ms", "trust"];
const STDIO_KEYS = ["command", "args", "env", "cwd", "sandbox", "network", ...COMMON_KEYS];
const HTTP_KEYS = ["url", "headers", ...COMMON_KEYS];

function describe(v: unknown): string {
  if (v === undefined) return "nothing";
  const s = JSON.stringify(v);
  return s === undefined ? String(v) : s.length > 60 ? s.slice(0, 57) + "..." : s;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** A string that holds `${` without forming a valid `${NAME}` reference, described; else undefined. */
function badReference(text: string): string | undefined {
  const stripped = expandEnvReferences(text, () => "");
  return stripped.includes("${")
    ? "has a ${ that is not a ${NAME} reference (letters, digits and _)"
    : undefined;
}

class Checker {
  constructor(readonly path: string) {}
  fail(detail: string): never {
    throw new RangeError(`"${this.path}" ${detail}`);
  }
  at(key: string): Checker {
    return new Checker(`${this.path}.${key}`);
  }
  string(v: unknown, { references = false } = {}): string {
    if (typeof v !== "string" || v.trim() === "") {
      this.fail(`must be a non-empty string, got ${describe(v)}`);
    }
    if (v.length > MAX_STRING) this.fail(`must be at most ${MAX_STRING} characters`);
    if (references) {
      const bad = badReference(v);
      if (bad) this.fail(bad);
    }
    return v;
  }
  map(v: unknown, key: RegExp, keyWhat: string): Record<string, string> {
    if (!isObject(v)) this.fail(`must be an object of strings, got ${describe(v)}`);
    const entries = Object.entries(v);
    if (entries.length > MAX_MAP_ENTRIES) this.fail(`may hold at most ${MAX_MAP_ENTRIES} entries`);
    const out: Record<string, string> = {};
    for (const [k, value] of entries) {
      if (!key.test(k)) this.fail(`has ${describe(k)}, which is not ${keyWhat}`);
      const c: Checker = this.at(k);
      if (typeof value !== "string") c.fail(`must be a string, got ${describe(value)}`);
      if (value.length > MAX_STRING) c.fail(`must be at most ${MAX_STRING} characters`);
      const bad = badReference(value);
      if (bad) c.fail(bad);
      out[k] = value;
    }
    return out;
  }
  ms(v: unknown): number {
    if (typeof v !== "number" || !Number.isSafeInteger(v) || v <= 0 || v > MAX_TIMER_MS) {
      this.fail(
        `must be a positive integer of milliseconds, at most ${MAX_TIMER_MS}, got ${describe(v)}`,
      );
    }
    return v;
  }
  boolean(v: unknown): boolean {
    if (typeof v !== "boolean") this.fail(`must be true or false, got ${describe(v)}`);
    return v;
  }
}

function common(entry: Record<string, unknown>, c: Checker): McpServerCommon {
  const out: McpServerCommon = {
    enabled: entry.enabled === undefined ? true : c.at("enabled").boolean(entry.enabled),
    startup_timeout_ms: entry.startup_timeout_ms === undefined
      ? DEFAULT_STARTUP_TIMEOUT_MS
      : c.at("startup_timeout_ms").ms(entry.startup_timeout_ms),
    trust: entry.trust === undefined ? false : c.at("trust").boolean(entry.trust),
  };
  if (entry.tool_timeout_ms !== undefined) {
    out.tool_timeout_ms = c.at("tool_timeout_ms").ms(entry.tool_timeout_ms);
  }
  return out;
}

function checkKeys(entry: Record<string, unknown>, known: string[], c: Checker, what: string) {
  for (const key of Object.keys(entry)) {
    if (!known.includes(key)) {
      c.fail(`has unknown key "${key}"; ${what} takes ${known.join(", ")}`);
    }
  }
}

function validateEntry(value: unknown, c: Checker): McpServerConfig {
  if (!isObject(value)) c.fail(`must be an object, got ${describe(value)}`);
  const hasCommand = value.command !== undefined;
  const hasUrl = value.url !== undefined;
  if (hasCommand === hasUrl) {
    c.fail(
      hasCommand
        ? `has both "command" and "url"; give "command" for a stdio server or "url" for an HTTP one`
        : `needs "command" (a stdio server) or "url" (a Streamable HTTP server)`,
    );
  }
  if (hasCommand) {
    checkKeys(value, STDIO_KEYS, c, "a stdio server (command)");
    const args = value.args ?? [];
    const ca: Checker = c.at("args");
    if (!Array.isArray(args)) ca.fail(`must be an array of strings, got ${describe(args)}`);
    if (args.length > MAX_ARGS) ca.fail(`may hold at most ${MAX_ARGS} arguments`);
    for (const [i, a] of args.entries()) {
      if (typeof a !== "string") ca.fail(`must hold only strings, got ${describe(a)} at ${i}`);
      if (a.length > MAX_STRING) ca.fail(`holds an argument over ${MAX_STRING} characters`);
    }
    const out: McpStdioServerConfig = {
      command: c.at("command").string(value.command),
      args: args as string[],
      env: value.env === undefined
        ? {}
        : c.at("env").map(value.env, ENV_NAME, "an environment variable name"),
      ...common(value, c),
    };
    if (value.sandbox !== undefined) out.sandbox = c.at("sandbox").boolean(value.sandbox);
    if (value.network !== undefined) {
      const cn: Checker = c.at("network");
      if (out.sandbox !== true) {
        cn.fail('is the network rule of a sandboxed server: set "sandbox": true');
      }
      const n = value.network;
      if (
        typeof n !== "boolean" &&
        !(Array.isArray(n) && n.length <= MAX_ARGS &&
          n.every((p) => typeof p === "string" && HOST_PATTERN.test(p)))
      ) {
        cn.fail(`must be true, false or an array of host patterns, got ${describe(n)}`);
      }
      out.network = n as boolean | string[];
    }
    if (value.cwd !== undefined) {
      const cwd = c.at("cwd").string(value.cwd);
      if (!cwd.startsWith("/")) c.at("cwd").fail(`must be an absolute path, got ${describe(cwd)}`);
      out.cwd = cwd;
    }
    return out;
  }
  checkKeys(value, HTTP_KEYS, c, "a Streamable HTTP server (url)");
  const cu: Checker = c.at("url");
  const url = cu.string(value.url, { references: true });
  // Checked with each reference standing in for a plain word; the real value is checked again
  // once the variables are read.
  const probe = expandEnvReferences(url, () => "x");
  if (!URL.canParse(probe) || !/^https?:$/.test(new URL(probe).protocol)) {
    cu.fail(`must be an absolute http(s) URL, got ${describe(url)}`);
  }
  return {
    url,
    headers: value.headers === undefined
      ? {}
      : c.at("headers").map(value.headers, HEADER_NAME, "an HTTP header name"),
    ...common(value, c),
  };
}

/**
 * Validates an `mcp_servers` value; throws a RangeError naming the exact key path (e.g.
 * `"mcp_servers.github.url" must be an absolute http(s) URL, got "ftp://x"`), which the config
 * loader prefixes with the source.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { validateMcpServers } from "./mcp_servers.ts";
 * const s = validateMcpServers({ fs: { command: "mcp-fs", args: ["/tmp"] } });
 * assert.equal(s.fs?.enabled, true);
 * assert.throws(() => validateMcpServers({ "a b": { command: "x" } }), RangeError);
 * ```
 */
export function validateMcpServers(value: unknown): Record<string, McpServerConfig> {
  const c: Checker = new Checker("mcp_servers");
  if (!isObject(value)) c.fail(`must be an object of server entries, got ${describe(value)}`);
  const entries = Object.entries(value);
  if (entries.length > MAX_MCP_SERVERS) {
    c.fail(`may name at most ${MAX_MCP_SERVERS} servers, got ${entries.length}`);
  }
  const out: Record<string, McpServerConfig> = {};
  for (const [name, entry] of entries) {
    if (!SERVER_NAME.test(name)) {
      c.fail(
        `has the server name ${describe(name)}; a name is 1 to 32 letters, digits, _ or -`,
      );
    }
    out[name] = validateEntry(entry, c.at(name));
  }
  return out;
}

/**
 * Whether any server is enabled: the one check the fast path makes, so a config without
 * servers never loads MCP code.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { hasEnabledServers, validateMcpServers } from "./mcp_servers.ts";
 * assert.equal(hasEnabledServers({}), false);
 * assert.equal(hasEnabledServers(validateMcpServers({ a: { url: "http://h", enabled: false } })), false);
 * ```
 */
export function hasEnabledServers(servers: Readonly<Record<string, McpServerConfig>>): boolean {
  return Object.values(servers).some((s) => s.enabled);
}

/** Whether an entry is a stdio server (else Streamable HTTP). */
export function isStdio(server: McpServerConfig): server is McpStdioServerConfig {
  return "command" in server;
}
