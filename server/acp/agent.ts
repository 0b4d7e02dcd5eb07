/**
 * `scv acp`: an ACP v1 agent on any pair of byte streams (stdin/stdout in the command), the
 * second front-end of the agent core beside the Peon connection, on the same configuration,
 * provider, tools, approvals and context management.
 *
 * @module
 */
import {
  agent,
  type AgentCapabilities,
  type AgentContext,
  type ClientCapabilities,
  PROTOCOL_VERSION,
  RequestError,
} from "@agentclientprotocol/sdk";
import { SCV_VERSION } from "../../protocol/constants.ts";
import { agentDeps } from "../agent_deps.ts";
import type { Provider } from "../provider/types.ts";
import type { SessionStore } from "../sessions/store.ts";
import { openSessionStore } from "../sessions/open_store.ts";
import { type Config, readEnv } from "../config.ts";
import { errorText } from "../error_text.ts";
import { boundedStream } from "./transport.ts";
import type { AcpSession } from "./acp_session.ts";
import type { OpenContext } from "./open_session.ts";
import type { ToolRegistry } from "../tools/registry.ts";

/** Sessions one connection may open (ACP v1 has no way to close one). */
export const MAX_ACP_SESSIONS = 64;
/** How long running turns get to end after the client's EOF before the agent stops anyway. */
export const ACP_GRACE_MS = 2000;

/** Options of {@link serveAcp}. */
export interface AcpServeOptions {
  /** Client → agent bytes (NDJSON JSON-RPC). */
  readable: ReadableStream<Uint8Array>;
  /** Agent → client bytes; nothing but JSON-RPC messages is written here. */
  writable: WritableStream<Uint8Array>;
  config: Config;
  /** Defaults to the configured provider. */
  provider?: Provider;
  /** Defaults to the built-in tools. */
  tools?: ToolRegistry;
  /** Diagnostics; defaults to stderr. Never receives secrets. */
  log?: (line: string) => void;
  /** Environment lookup, for the API key; defaults to `Deno.env.get`. */
  env?: (name: string) => string | undefined;
  /**
   * Where sessions are recorded; omitted: the state directory of `env` when `persist_sessions`
   * is on; null: nowhere.
   */
  sessions?: SessionStore | null;
}

/** What `initialize` advertises; `session/load` only where sessions are recorded. */
export function agentCapabilities(recorded: boolean): AgentCapabilities {
  return {
    loadSession: recorded,
    promptCapabilities: { image: false, audio: false, embeddedContext: true },
    mcpCapabilities: { http: true, sse: false },
  };
}

/**
 * Serves one ACP connection until the client's EOF; resolves with the exit status (0). Every
 * running turn is cancelled at EOF and given {@link ACP_GRACE_MS} to end.
 */
export async function serveAcp(options: AcpServeOptions): Promise<number> {
  const { config } = options;
  const log = options.log ?? ((line: string) => console.error(line));
  const env = options.env ?? readEnv;
  const { load: loadDeps, mcp } = agentDeps({
    config,
    provider: options.provider,
    tools: options.tools,
    log,
    env,
  });
  const store = options.sessions === undefined
    ? openSessionStore(config, env, log)
    : options.sessions ?? undefined;
  let capabilities: ClientCapabilities = {};
  const sessions = new Map<string, AcpSession>();
  let opening = 0;
  const sessionOf = (sessionId: string): AcpSession => {
    const session = sessions.get(sessionId);
    if (!session) throw RequestError.sessionNotFound(sessionId);
    return session;
  };
  // The agent core (and zod with it) loads with the first session, not before `initialize`.
  const openContext = async (client: AgentContext): Promise<OpenContext> => {
    try {
      return { config, env, log, store, deps: await loadDeps(), mcp, client, capabilities };
    } catch (e) {
      throw RequestError.internalError(undefined, `cannot start the agent: ${errorText(e)}`);
    }
  };
  /** Opens a session (new, or loaded with its replay sent first) and registers it. */
  const open = async (
    client: AgentContext,
    opener: (cx: OpenContext, lib: typeof import("./open_session.ts")) => Promise<AcpSession>,
  ): Promise<AcpSession> => {
    if (sessions.size + opening >= MAX_ACP_SESSIONS) {
      throw RequestError.invalidRequest(
        undefined,
        `this connection already has ${MAX_ACP_SESSIONS} sessions, the most it may open`,
      );
    }
    opening++;
    try {
      const [cx, lib] = await Promise.all([openContext(client), import("./open_session.ts")]);
      const session = await opener(cx, lib);
      sessions.set(session.id, session);
      return session;
    } finally {
      opening--;
    }
  };

  const app = agent({ name: "scv" })
    .onRequest("initialize", ({ params }) => {
      capabilities = params.clientCapabilities ?? {};
      // Warm up while the client sets up its first session; a failure shows there.
      setTimeout(() => {
        void loadDeps().catch(() => {});
        void import("./open_session.ts").catch(() => {});
      }, 0);
      return {
        protocolVersion: PROTOCOL_VERSION,
        agentCapabilities: agentCapabilities(store !== undefined),
        agentInfo: { name: "scv", title: "scv", version: SCV_VERSION },
        authMethods: [],
      };
    })
    .onRequest("session/new", async ({ params, client }) => {
      const session = await open(
        client,
        (cx, lib) => lib.newSession(cx, params.cwd, params.mcpServers),
      );
      return { sessionId: session.id, modes: session.modes };
    })
    .onRequest(
      "session/prompt",
      ({ params, signal, requestId }) =>
        sessionOf(params.sessionId).prompt(params.prompt, String(requestId), signal),
    )
    .onNotification("session/cancel", ({ params }) => {
      const session = sessions.get(params.sessionId);
      if (session) session.cancel();
      else {log(
          `scv-acp: session/cancel for an unknown session ${JSON.stringify(params.sessionId)}`,
        );}
    })
    .onRequest("session/set_mode", async ({ params }) => {
      await sessionOf(params.sessionId).setMode(params.modeId);
      return {};
    });
  if (store) {
    app.onRequest("session/load", async ({ params, client }) => {
      if (sessions.has(params.sessionId)) {
        throw RequestError.invalidRequest(
          { sessionId: params.sessionId },
          `session ${JSON.stringify(params.sessionId)} is already open on this connection`,
        );
      }
      const session = await open(client, async (cx, lib) => {
        const { session, replay } = await lib.loadSession(
          cx,
          params.cwd,
          params.mcpServers,
          params.sessionId,
        );
        // The history is replayed before the answer, as ACP asks.
        for (const update of replay) await session.notify(update);
        return session;
      });
      return { modes: session.modes };
    });
  }

  const connection = app.connect(
    boundedStream(options.readable, options.writable, {
      maxClientFrameBytes: config.max_client_frame_bytes,
      maxServerFrameBytes: config.max_server_frame_bytes,
      log,
    }),
  );
  await connection.closed;
  // EOF (or a broken output): every turn is cancelled, and the agent ends within the grace.
  // The MCP servers stop meanwhile: a turn cut off in a call to one ends cancelled anyway.
  await Promise.all([
    ...[...sessions.values()].map((s) => s.close(ACP_GRACE_MS)),
    mcp?.close(),
  ]);
  return 0;
}
