/**
 * Starts a Peon server on any pair of byte streams: stdin/stdout for `scv server`, in-memory
 * pipes for the TUI and `scv exec`, anything an embedder likes.
 *
 * @module
 */
import { type Config, readEnv } from "../config.ts";
import { Connection } from "./connection.ts";
import { runtimeLoader } from "../core/runtime.ts";
import type { Provider } from "../provider/types.ts";
import type { ToolRegistry } from "../tools/registry.ts";
import type { McpServerStatus } from "../mcp/host.ts";
import type { Sandbox } from "../sandbox/mod.ts";
import { openSessionStore } from "../core/open_store.ts";
import type { SessionStore } from "../sessions/store.ts";
import { followSessions } from "../checkpoints/follow_sessions.ts";

/** Options of {@link serve}. */
export interface ServeOptions {
  /** Client → server bytes (NDJSON). */
  readable: ReadableStream<Uint8Array>;
  /** Server → client bytes (NDJSON). */
  writable: WritableStream<Uint8Array>;
  /** The resolved configuration (`loadConfig`, or `DEFAULT_CONFIG` with changes). */
  config: Config;
  /** Defaults to the OpenAI-compatible provider of `config`. */
  provider?: Provider;
  /** Defaults to the built-in tools. */
  tools?: ToolRegistry;
  /** Diagnostics; defaults to stderr. Never receives secrets. */
  log?: (line: string) => void;
  /** Environment lookup, for the API key; defaults to `Deno.env.get`. */
  env?: (name: string) => string | undefined;
  /** Told when an MCP server became ready or failed (`scv exec` warns on stderr). */
  onMcpStatus?: (status: McpServerStatus) => void;
  /**
   * Opens the sandbox bash runs in (once, on first use); defaults to the one `config` asks for.
   * For scv's own commands and tests: not part of the library API.
   *
   * @ignore
   */
  sandbox?: () => Promise<Sandbox>;
  /**
   * Where sessions are recorded; omitted: the state directory of `env` when
   * `persist_sessions` is on; null: nowhere. For scv's own commands and tests: not part of
   * the library API.
   *
   * @ignore
   */
  sessions?: SessionStore | null;
  /**
   * The client is this process's own code, built on the protocol's types (`scv exec`): its
   * frames are not checked against the zod tables again. For scv's own commands: not part of
   * the library API.
   *
   * @ignore
   */
  trustedClient?: boolean;
}

export { providerFromConfig } from "../core/runtime.ts";

/**
 * Serves one Peon connection until the client's EOF (or a fatal error); resolves with the exit
 * status: 0 after EOF, 1 when the output failed, 2 after a version mismatch.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { serve } from "./serve.ts";
 * import { DEFAULT_CONFIG } from "../config.ts";
 * const input = ReadableStream.from<Uint8Array>([]);
 * const config = { ...DEFAULT_CONFIG, persist_sessions: false };
 * const status = await serve({ readable: input, writable: new WritableStream(), config });
 * assert(status === 0);
 * ```
 */
export function serve(options: ServeOptions): Promise<number> {
  const { config } = options;
  const log = options.log ?? ((line: string) => console.error(line));
  const env = options.env ?? readEnv;
  const { load: loadDeps, mcp, sandbox, closeSandbox } = runtimeLoader({
    config,
    provider: options.provider,
    tools: options.tools,
    log,
    env,
    onMcpStatus: options.onMcpStatus,
    sandbox: options.sandbox,
  });
  const sessions = options.sessions === undefined
    ? openSessionStore(config, env, log, followSessions(env, log))
    : options.sessions ?? undefined;
  const connection = new Connection({
    readable: options.readable,
    writable: options.writable,
    config,
    log,
    deps: loadDeps,
    ...(mcp ? { mcp } : {}),
    // Opened once `initialized` is out (the initialize handler asks for it), or by the first
    // session.start, whichever comes first.
    sandbox: async () => {
      const s = await sandbox();
      return (workspace) => s.report(workspace);
    },
    sessions,
    ...(options.trustedClient ? { trustedClient: true } : {}),
    // Loaded with the first session: the checkpoint modules need not delay the handshake.
    checkpoints: async () => (await import("../checkpoints/open.ts")).checkpointsState(config, env),
  });
  // Every way the connection ends (EOF, a signal, broken output) stops the MCP servers, and
  // the sandbox's proxies and the cgroups its killed calls left.
  return connection.run().finally(() => Promise.all([mcp?.close(), closeSandbox()]));
}
