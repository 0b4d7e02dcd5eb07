/**
 * All configured MCP servers of one scv process: started in the background when the first
 * session starts, waited for (each at most its startup timeout) before a provider call, their
 * tools kept in the tool registry under `mcp__<server>__<tool>` names, and all stopped on exit.
 *
 * Loaded only when `mcp_servers` has an enabled entry (it imports the MCP SDK).
 *
 * @module
 */
import type { ToolRegistry } from "../tools/registry.ts";
import type { McpServerConfig } from "../mcp_servers.ts";
import { environmentNames } from "./env.ts";
import { toolName } from "./names.ts";
import { McpServer, type McpStatus, type SandboxLauncher } from "./server.ts";
import { mcpTool } from "./tools.ts";

/** One server's line in `session.started.mcp_servers`. */
export interface McpServerStatus {
  /** The server's name, its key in `mcp_servers`. */
  name: string;
  /** Whether its tools are available yet. */
  status: McpStatus;
  /** Tools offered from it (0 unless ready). */
  tools: number;
  /** Why it failed. */
  error?: string;
}

/** One server's status with the names its tools are offered by (`mcp.status`). */
export interface McpServerDetail extends McpServerStatus {
  tool_names: string[];
}

/** What the manager runs with. */
export interface McpManagerOptions {
  servers: Readonly<Record<string, McpServerConfig>>;
  env: (name: string) => string | undefined;
  /** Never passed to a server unless configured for it. */
  secretEnv: readonly string[];
  /** Notices and failures, one line each, for the log. */
  log: (line: string) => void;
  /** Told whenever a server's status changed (`scv exec` warns about failures). */
  onStatus?: (status: McpServerStatus) => void;
  /** Starts `"sandbox": true` servers in the OS sandbox. */
  launch?: SandboxLauncher;
}

interface Synced {
  registered: Map<string, number>;
  names: Map<string, string[]>;
}

/** Notices kept for the next turn; more are only logged, and counted. */
export const MAX_PENDING_NOTICES = 16;

/** The longest error a status line carries (the full text is in the tool failures). */
const MAX_STATUS_ERROR = 1000;

/**
 * The MCP servers and their tools.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { McpManager } from "./manager.ts";
 * const m = new McpManager({ servers: {}, env: () => undefined, secretEnv: [], log: () => {} });
 * assert.deepEqual(m.statuses(), []);
 * await m.close();
 * ```
 */
export class McpManager {
  #o: McpManagerOptions;
  #servers: McpServer[] = [];
  #started = false;
  #notices: string[] = [];
  #droppedNotices = 0;
  // Per registry (a Peon connection has one, an ACP agent one per session): each server's
  // generation last registered and its tool names there.
  #synced = new WeakMap<ToolRegistry, Synced>();
  /** The names of the registry synced last, for `details()`. */
  #lastSynced: Synced | undefined;

  /** Prepares every enabled server; none starts before {@link start}. */
  constructor(options: McpManagerOptions) {
    this.#o = options;
    for (const [name, config] of Object.entries(options.servers)) {
      if (!config.enabled) continue;
      const server = new McpServer(name, config);
      let told: string | undefined;
      server.onChange = () => {
        const s = this.#status(server);
        if (s.status === "starting") return;
        // A crash is told once, with its exit status when that arrives.
        const key = `${s.status}:${server.error ?? ""}`;
        if (key === told) return;
        told = key;
        if (server.error) options.log(`scv-server: ${server.error}`);
        options.onStatus?.(s);
      };
      this.#servers.push(server);
    }
  }

  /** Starts every server in the background (once; later calls do nothing). */
  start(cwd: string): void {
    if (this.#started) return;
    this.#started = true;
    const envNames = environmentNames();
    for (const server of this.#servers) {
      void server.start({
        cwd,
        env: this.#o.env,
        envNames,
        secretEnv: this.#o.secretEnv,
        notice: (message) => this.#notice(message),
        launch: this.#o.launch,
      });
    }
  }

  /** Logs a notice and keeps it (bounded) for the next turn to show. */
  #notice(message: string): void {
    this.#o.log(`scv-server: ${message}`);
    if (this.#notices.length < MAX_PENDING_NOTICES) this.#notices.push(message);
    else this.#droppedNotices++;
  }

  #status(s: McpServer): McpServerStatus {
    const out: McpServerStatus = {
      name: s.name,
      status: s.status,
      tools: s.status === "ready" ? s.tools.length : 0,
    };
    if (s.status === "failed" && s.error) {
      out.error = s.error.length > MAX_STATUS_ERROR
        ? s.error.slice(0, MAX_STATUS_ERROR) + "…"
        : s.error;
    }
    return out;
  }

  /** Every enabled server's status, in config order. */
  statuses(): McpServerStatus[] {
    return this.#servers.map((s) => this.#status(s));
  }

  /**
   * Every enabled server's status and tool names: the registered names once a turn synced them,
   * else the names they will get (before any turn, uniqueness against built-ins aside).
   */
  details(): McpServerDetail[] {
    const taken = new Set<string>();
    return this.#servers.map((s) => {
      const status = this.#status(s);
      let names: string[] = [];
      if (status.status === "ready") {
        const synced = this.#lastSynced;
        names = synced && synced.registered.get(s.name) === s.generation
          ? [...(synced.names.get(s.name) ?? [])]
          : s.tools.map((t) => {
            const n = toolName(s.name, t.name, taken);
            taken.add(n);
            return n;
          });
      }
      return { ...status, tool_names: names };
    });
  }

  /** The servers (for tests and the status display). */
  get servers(): readonly McpServer[] {
    return this.#servers;
  }

  /**
   * Before a provider call: waits for servers still starting (each at most its startup
   * timeout, or until `signal` aborts), refreshes tools that changed, and puts the current
   * tools in `registry` (any number of registries may be kept in sync this way). Resolves
   * with the notices since the last call (tools left out, junk on stdout, a restart): a
   * server's failure is not among them, it is reported in its status.
   */
  async prepare(registry: ToolRegistry, signal: AbortSignal): Promise<string[]> {
    await Promise.all(this.#servers.map((s) => s.ready(signal)));
    await Promise.all(this.#servers.map((s) => s.refresh(signal)));
    let synced = this.#synced.get(registry);
    if (!synced) {
      synced = { registered: new Map(), names: new Map() };
      this.#synced.set(registry, synced);
    }
    this.#lastSynced = synced;
    for (const server of this.#servers) {
      // A failed server keeps its tools registered: calling one says why it failed.
      if (synced.registered.get(server.name) === server.generation) continue;
      for (const name of synced.names.get(server.name) ?? []) registry.unregister(name);
      const taken = new Set(registry.list().map((t) => t.name));
      const names: string[] = [];
      for (const info of server.tools) {
        const name = toolName(server.name, info.name, taken);
        const tool = mcpTool(server, info, name);
        if (typeof tool === "string") {
          this.#notice(`MCP server "${server.name}": ${tool}`);
          continue;
        }
        registry.register(tool);
        taken.add(name);
        names.push(name);
      }
      synced.names.set(server.name, names);
      synced.registered.set(server.name, server.generation);
    }
    const notices = this.#notices.splice(0);
    if (this.#droppedNotices > 0) {
      notices.push(`${this.#droppedNotices} more MCP notice(s) are in the log`);
      this.#droppedNotices = 0;
    }
    return notices;
  }

  /** Stops every server and waits for them to be gone. */
  async close(): Promise<void> {
    await Promise.all(this.#servers.map((s) => s.stop()));
  }
}
