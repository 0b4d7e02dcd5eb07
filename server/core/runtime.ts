/**
 * The runtime: what every face of the core (the Peon server, the ACP agent) runs its sessions'
 * turns with, built one way for all of them: the configured provider, the built-in tools in the
 * configured sandbox, the configured MCP servers, the context manager and the system prompt. The
 * heavy parts load on first use, so no handshake waits for them.
 *
 * @module
 */
import { type Config, readEnv } from "../config.ts";
import type { AgentDeps } from "./deps.ts";
import type { Provider } from "../provider/types.ts";
import { providerSecretEnv } from "../provider/secret_env.ts";
import type { ToolRegistry } from "../tools/registry.ts";
import { McpHost, type McpServerStatus } from "../mcp/host.ts";
import { openSandbox, type Sandbox } from "../sandbox/mod.ts";
import { ProviderMemory, providerMemoryPath } from "../provider/memory.ts";
import { isLocalServer } from "../provider/local_server.ts";
import { keyHeader } from "../provider/request_headers.ts";
import type { ServerWindow } from "../provider/window.ts";

/**
 * What a face's turns run with: {@link AgentDeps} without the per-turn parts (approvals, the
 * signal), the system prompt built per workspace.
 */
export type Runtime = Omit<AgentDeps, "systemPrompt" | "approvals" | "signal"> & {
  /** The system prompt for a session's canonical workspace. */
  systemPrompt: (cwd: string) => Promise<string>;
};

/** Options of {@link runtimeLoader}. */
export interface RuntimeOptions {
  /** The configuration: provider, sandbox, MCP servers, limits. */
  config: Config;
  /** Defaults to the configured provider. */
  provider?: Provider | undefined;
  /** Defaults to the built-in tools, `bash` in the sandbox. */
  tools?: ToolRegistry | undefined;
  /** Diagnostics. Never receives secrets. */
  log: (line: string) => void;
  /** Environment lookup, for the API key and MCP settings; defaults to `Deno.env.get`. */
  env?: ((name: string) => string | undefined) | undefined;
  /** Told when an MCP server became ready or failed. */
  onMcpStatus?: ((status: McpServerStatus) => void) | undefined;
  /**
   * Opens the sandbox bash runs in; defaults to opening the one `config` asks for. Called once,
   * on the sandbox's first use.
   */
  sandbox?: (() => Promise<Sandbox>) | undefined;
}

/** A face's runtime, loaded on first use, and the parts it reports on. */
export interface RuntimeLoader {
  /** Loads (once) what turns run with. */
  load: () => Promise<Runtime>;
  /** The configured MCP servers, when some are enabled; the front-end starts and stops them. */
  mcp: McpHost | undefined;
  /**
   * The sandbox, opened (its probe spawned) on the first call: a face calls it once its
   * handshake is answered, so that the spawn does not delay the answer.
   */
  sandbox: () => Promise<Sandbox>;
  /** Closes the sandbox (its proxies, the cgroups its calls left), when it was opened. */
  closeSandbox: () => Promise<void>;
}

/** Builds the configured provider (`provider`, `base_url`, `api_key_env`, `provider_headers`). */
export function providerFromConfig(
  config: Config,
  env: (name: string) => string | undefined = readEnv,
): Promise<Provider> {
  return configuredProvider(config, env, undefined);
}

/** The configured provider, remembering what it learns in `memory` (the state directory's). */
async function configuredProvider(
  config: Config,
  env: (name: string) => string | undefined,
  memory: ProviderMemory | undefined,
): Promise<Provider> {
  const { providerFromConfig } = await import("../provider/from_config.ts");
  return await providerFromConfig(config, env, memory);
}

/**
 * Asks the configured server for its context window, once (Chat Completions servers on this
 * machine or the local network only: llama.cpp, Ollama, LM Studio, vLLM), remembering what it
 * said for the next process's `session.started`. `start` asks in the background; `forTurn` is
 * what a turn waits for before its first request. Neither rejects.
 *
 * A server that, asked within the last day, listed the model and named no window (a proxy,
 * LocalAI, a mock) is not asked for the process's first turn, which then goes out at once: it is
 * asked when the next turn starts (docs/local_models.md).
 */
function askServerWindow(
  config: Config,
  env: (name: string) => string | undefined,
  memory: ProviderMemory,
): { start: () => void; forTurn: () => Promise<ServerWindow | undefined> } {
  const local = config.provider === "openai-chat" && isLocalServer(config.base_url);
  let skipFirst = local && memory.namedNoWindow(config.base_url, config.model);
  let asked: Promise<ServerWindow | undefined> | undefined;
  const ask = () =>
    asked ??= (async () => {
      if (!local) return undefined;
      try {
        const [{ probeServerWindow }, { expandHeaders }] = await Promise.all([
          import("../provider/window.ts"),
          import("../provider/from_config.ts"),
        ]);
        const headers = {
          ...expandHeaders(config.provider_headers, env).headers,
          ...keyHeader(config.provider, env(config.api_key_env)),
        };
        const { window, listed } = await probeServerWindow({
          baseUrl: config.base_url,
          model: config.model,
          headers,
        });
        if (window) {
          await memory.rememberWindow(config.base_url, config.model, window.tokens, window.source);
        } else if (listed) {
          await memory.rememberNoWindow(config.base_url, config.model);
        }
        return window ?? memory.window(config.base_url, config.model);
      } catch {
        return undefined; // a header that cannot be expanded fails the turn itself, clearly
      }
    })();
  return {
    start: () => void (skipFirst ? undefined : ask().catch(() => {})),
    forTurn: () => {
      if (!skipFirst) return ask();
      skipFirst = false;
      return Promise.resolve(undefined);
    },
  };
}

/**
 * The runtime of one face (a Peon server, an ACP agent).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { runtimeLoader } from "./runtime.ts";
 * import { DEFAULT_CONFIG } from "../config.ts";
 * const deps = runtimeLoader({ config: { ...DEFAULT_CONFIG, sandbox: "off" }, log: () => {} });
 * assert.equal(deps.mcp, undefined); // no MCP server configured: no MCP code loaded
 * ```
 */
export function runtimeLoader(options: RuntimeOptions): RuntimeLoader {
  const { config, log } = options;
  const env = options.env ?? readEnv;
  // Only a config with an enabled MCP server gets a host; the MCP client loads when the first
  // session starts.
  // Opened on first use (session.started reports it): spawning its probe blocks the event loop
  // for milliseconds, the first spawn of a process most.
  let opened: Promise<Sandbox> | undefined;
  let closed = false;
  const sandbox = () => {
    if (opened === undefined) {
      // Once closed, a late first use (a warm-up timer) spawns nothing.
      opened = closed
        ? Promise.reject(new Error("the sandbox was closed"))
        : options.sandbox?.() ?? openSandbox(config);
      opened.catch(() => {});
    }
    return opened;
  };
  const closeSandbox = async () => {
    closed = true;
    await opened?.then((s) => s.close()).catch(() => {});
  };
  const mcp = McpHost.create({
    servers: config.mcp_servers,
    env,
    secretEnv: providerSecretEnv(config),
    log,
    ...(options.onMcpStatus ? { onStatus: options.onMcpStatus } : {}),
    // "sandbox": true servers run in the same sandbox as bash, with their own network rule.
    launch: async (server) => (await sandbox()).launchServer(server),
  });
  // Tools, provider and the tokenizer load on first use (the connection warms them up right
  // after the first session.started): evaluating the tokenizer blocks the event loop for a few
  // hundred milliseconds, which must not delay the handshake.
  let deps: Promise<Runtime> | undefined;
  const load = () =>
    deps ??= (async () => {
      // Asked first, in the background: its answer comes over the network while the turns'
      // modules load, and the first turn waits for it.
      const memory = new ProviderMemory(providerMemoryPath(env));
      const serverWindow = askServerWindow(config, env, memory);
      serverWindow.start();
      const [
        { ToolRegistry },
        { lazyBuiltinTools },
        { buildSystemPrompt },
        { createContextManager },
      ] = await Promise.all([
        import("../tools/registry.ts"),
        // The tools' code (and zod) loads with the first call: a turn without one needs neither.
        import("../tools/lazy_builtin.ts"),
        import("./prompt.ts"),
        import("./context_manager.ts"),
      ]);
      const context = createContextManager(config);
      await context.ready;
      const tools = options.tools ?? new ToolRegistry(lazyBuiltinTools({
        sandbox: await sandbox(),
        passthrough: config.shell_env_passthrough,
      }, {
        allow: config.web_fetch_allow,
        timeoutMs: config.web_fetch_timeout_ms,
        maxBytes: config.web_fetch_max_bytes,
      }));
      return {
        config,
        provider: options.provider ?? await configuredProvider(config, env, memory),
        serverWindow: serverWindow.forTurn,
        tools,
        ...(mcp ? { prepareTools: (signal: AbortSignal) => mcp.prepare(tools, signal) } : {}),
        context,
        systemPrompt: buildSystemPrompt,
        secretEnv: providerSecretEnv(config),
      };
    })();
  return { load, mcp, sandbox, closeSandbox };
}
