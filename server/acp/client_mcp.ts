/**
 * The MCP servers an ACP client names in `session/new` or `session/load`, as `mcp_servers`
 * entries: validated by the same rules as configured ones, under server names made safe for
 * tool names and distinct from the configured servers'. Pure.
 *
 * @module
 */
import type { McpServer } from "@agentclientprotocol/sdk";
import { type McpServerConfig, validateMcpServers } from "../mcp_servers.ts";
import { isCoreEnvName } from "../core_env.ts";

/** The client's servers as entries, or why they cannot be taken (an invalid-params error). */
export type ClientMcpServers =
  | { ok: true; servers: Record<string, McpServerConfig> }
  | { ok: false; message: string };

/**
 * A server name for tools (`mcp__<name>__<tool>`): letters, digits, `_` and `-`, at most 32,
 * not one of `taken`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { serverName } from "./client_mcp.ts";
 * assert.equal(serverName("My Files!", new Set()), "My_Files_");
 * assert.equal(serverName("fs", new Set(["fs"])), "fs-2");
 * ```
 */
export function serverName(name: string, taken: ReadonlySet<string>): string {
  const base = name.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 32) || "client";
  if (!taken.has(base)) return base;
  for (let n = 2;; n++) {
    const suffix = `-${n}`;
    const candidate = base.slice(0, 32 - suffix.length) + suffix;
    if (!taken.has(candidate)) return candidate;
  }
}

/**
 * Converts the client's servers. `taken` holds the configured servers' names. `sse` servers are
 * refused (scv advertises `mcpCapabilities.sse: false`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { clientMcpServers } from "./client_mcp.ts";
 * const r = clientMcpServers(
 *   [{ name: "echo", command: "/usr/bin/mcp-echo", args: [], env: [{ name: "A", value: "1" }] }],
 *   new Set(),
 * );
 * assert(r.ok && "command" in r.servers.echo! && r.servers.echo.env.A === "1");
 * ```
 */
export function clientMcpServers(
  servers: readonly McpServer[],
  taken: ReadonlySet<string>,
): ClientMcpServers {
  const names = new Set(taken);
  const raw: Record<string, unknown> = {};
  for (const s of servers) {
    const name = serverName(s.name, names);
    names.add(name);
    if ("type" in s && s.type === "sse") {
      return {
        ok: false,
        message: `MCP server ${JSON.stringify(s.name)} uses SSE, which scv does not support ` +
          `(mcpCapabilities.sse is false); use its Streamable HTTP endpoint`,
      };
    }
    raw[name] = "url" in s
      ? { url: s.url, headers: Object.fromEntries(s.headers.map((h) => [h.name, h.value])) }
      : {
        command: s.command,
        args: s.args,
        env: Object.fromEntries(s.env.map((e) => [e.name, e.value])),
      };
  }
  try {
    return { ok: true, servers: validateMcpServers(raw) };
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    return { ok: false, message: `the client's MCP servers: ${why}` };
  }
}

/**
 * The environment lookup for a client's servers: `${VAR}` in what the client sent may name only
 * the core variables, so a client cannot route scv's credentials into a server it starts.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { coreOnlyEnv } from "./client_mcp.ts";
 * const env = coreOnlyEnv((n) => ({ PATH: "/bin", OPENAI_API_KEY: "k" } as Record<string, string>)[n]);
 * assert.equal(env("PATH"), "/bin");
 * assert.equal(env("OPENAI_API_KEY"), undefined);
 * ```
 */
export function coreOnlyEnv(
  env: (name: string) => string | undefined,
): (name: string) => string | undefined {
  return (name) => isCoreEnvName(name) ? env(name) : undefined;
}
