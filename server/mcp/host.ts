/**
 * The connection's handle on MCP: light enough to build on every start (no SDK import), it
 * loads the MCP client only when the first session starts, so neither a config without
 * servers nor the handshake pays for it.
 *
 * @module
 */
import type { ToolRegistry } from "../tools/registry.ts";
import { hasEnabledServers, type McpServerConfig } from "../mcp_servers.ts";
import type { McpManager, McpServerDetail, McpServerStatus } from "./manager.ts";
import type { SandboxLauncher } from "./server.ts";

export type { McpServerDetail, McpServerStatus };

/** What {@link McpHost} runs with. */
export interface McpHostOptions {
  servers: Readonly<Record<string, McpServerConfig>>;
  env: (name: string) => string | undefined;
  secretEnv: readonly string[];
  log: (line: string) => void;
  onStatus?: (status: McpServerStatus) => void;
  /** Starts `"sandbox": true` servers in the OS sandbox (see server/mcp/server.ts). */
  launch?: SandboxLauncher;
}

/**
 * Starts, reports on and stops the configured MCP servers.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { McpHost } from "./host.ts";
 * const host = McpHost.create({
 *   servers: { a: { url: "http://127.0.0.1:9/mcp", headers: {}, enabled: true,
 *     startup_timeout_ms: 1000, trust: false } },
 *   env: () => undefined, secretEnv: [], log: () => {},
 * });
 * assert.deepEqual(host?.statuses(), [{ name: "a", status: "starting", tools: 0 }]);
 * await host?.close();
 * ```
 */
export class McpHost {
  #o: McpHostOptions;
  #manager: Promise<McpManager> | undefined;
  #loaded: McpManager | undefined;

  private constructor(options: McpHostOptions) {
    this.#o = options;
  }

  /** A host when some server is enabled, else undefined (and no MCP code is ever loaded). */
  static create(options: McpHostOptions): McpHost | undefined {
    return hasEnabledServers(options.servers) ? new McpHost(options) : undefined;
  }

  /** Loads the MCP client and starts every server in the background (first call only). */
  start(cwd: string): void {
    this.#manager ??= (async () => {
      const { McpManager } = await import("./manager.ts");
      const manager = new McpManager(this.#o);
      this.#loaded = manager;
      manager.start(cwd);
      return manager;
    })();
    this.#manager.catch((e) => this.#o.log(`scv-server: cannot load the MCP client: ${e}`));
  }

  /** Each enabled server's status; `starting` for all until the client is loaded. */
  statuses(): McpServerStatus[] {
    if (this.#loaded) return this.#loaded.statuses();
    return Object.entries(this.#o.servers)
      .filter(([, s]) => s.enabled)
      .map(([name]) => ({ name, status: "starting" as const, tools: 0 }));
  }

  /** Each enabled server's status and tool names (the `mcp.status` reply). */
  details(): McpServerDetail[] {
    if (this.#loaded) return this.#loaded.details();
    return this.statuses().map((s) => ({ ...s, tool_names: [] }));
  }

  /**
   * Before a provider call: waits for starting servers and syncs their tools into `registry`;
   * resolves with the notices gathered since the last call (see {@link McpManager.prepare}).
   */
  async prepare(registry: ToolRegistry, signal: AbortSignal): Promise<readonly string[]> {
    if (!this.#manager) return [];
    // A client that could not load was logged; the turn goes on with the other tools.
    const manager = await this.#manager.catch(() => undefined);
    return await manager?.prepare(registry, signal) ?? [];
  }

  /** Stops every server that was started. */
  async close(): Promise<void> {
    if (!this.#manager) return;
    const manager = await this.#manager.catch(() => undefined);
    await manager?.close();
  }
}
