/**
 * `scv acp`: an ACP v1 agent on any pair of byte streams (stdin/stdout in the command), the
 * second front-end of the agent core beside the Peon connection, on the same configuration,
 * provider, tools, approvals and context management.
 *
 * @module
 */
import {
  agent,
  type AgentApp,
  type AgentCapabilities,
  type AgentContext,
  type ClientCapabilities,
  type InitializeRequest,
  type InitializeResponse,
  type ListSessionsRequest,
  type ListSessionsResponse,
  type LoadSessionRequest,
  PROTOCOL_VERSION,
  RequestError,
} from "@agentclientprotocol/sdk";
import { SCV_VERSION } from "../../protocol/constants.ts";
import { runtimeLoader } from "../core/runtime.ts";
import type { Provider } from "../provider/types.ts";
import type { SessionStore } from "../sessions/store.ts";
import { openSessionStore } from "../core/open_store.ts";
import { followSessions } from "../checkpoints/follow_sessions.ts";
import { type Config, readEnv } from "../config.ts";
import { errorText } from "../error_text.ts";
import { boundedStream } from "./transport.ts";
import { cursorOffset, LIST_PAGE_SIZE, listPage } from "./session_list.ts";
import { workspaceDir } from "../workspace_dir.ts";
import type { AcpSession } from "./acp_session.ts";
import type { OpenContext } from "./open_session.ts";
import type { ToolRegistry } from "../tools/registry.ts";
import type { Runtime } from "../core/runtime.ts";
import type { McpHost } from "../mcp/host.ts";
import { after } from "../timer.ts";

/** Sessions one connection may have open at once (`session/close` frees a place). */
export const MAX_ACP_SESSIONS = 64;
/** How long running turns get to end after the client's EOF before the agent stops anyway. */
export const ACP_GRACE_MS = 2000;

/** Options of {@link serveAcp}. */
export interface AcpServeOptions {
  /** Client → agent bytes (NDJSON JSON-RPC). */
  readable: ReadableStream<Uint8Array>;
  /** Agent → client bytes; nothing but JSON-RPC messages is written here. */
  writable: WritableStream<Uint8Array>;
  /** The configuration, as for `scv server`. */
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

/** What `initialize` advertises; `session/load` and `session/list` only where sessions are recorded. */
export function agentCapabilities(recorded: boolean): AgentCapabilities {
  return {
    loadSession: recorded,
    promptCapabilities: { image: true, audio: false, embeddedContext: true },
    mcpCapabilities: { http: true, sse: false },
    sessionCapabilities: { close: {}, ...(recorded ? { list: {} } : {}) },
  };
}

/** What the handlers of one connection share. */
interface ConnectionState {
  config: Config;
  env: (name: string) => string | undefined;
  log: (line: string) => void;
  store: SessionStore | undefined;
  loadDeps: () => Promise<Runtime>;
  mcp: McpHost | undefined;
  sessions: AcpSessions;
  capabilities: ClientCapabilities;
}

/** Opens a session given what opening needs; the library is loaded with the first session. */
type Opener = (cx: OpenContext, lib: typeof import("./open_session.ts")) => Promise<AcpSession>;

/** The sessions of one connection, bounded by {@link MAX_ACP_SESSIONS}. */
class AcpSessions {
  #sessions = new Map<string, AcpSession>();
  #opening = 0;

  /** The session of an id, or the `-32002` error for an unknown one. */
  of(sessionId: string): AcpSession {
    const session = this.#sessions.get(sessionId);
    if (!session) throw RequestError.sessionNotFound(sessionId);
    return session;
  }

  /** Whether the id names an open session. */
  has(sessionId: string): boolean {
    return this.#sessions.has(sessionId);
  }

  /** Opens a session with `opener` and registers it, unless the bound is reached. */
  async open(state: ConnectionState, client: AgentContext, opener: Opener): Promise<AcpSession> {
    if (this.#sessions.size + this.#opening >= MAX_ACP_SESSIONS) {
      throw RequestError.invalidRequest(
        undefined,
        `this connection already has ${MAX_ACP_SESSIONS} sessions, the most it may open`,
      );
    }
    this.#opening++;
    try {
      const [cx, lib] = await Promise.all([
        openContext(state, client),
        import("./open_session.ts"),
      ]);
      const session = await opener(cx, lib);
      this.#sessions.set(session.id, session);
      return session;
    } finally {
      this.#opening--;
    }
  }

  /** Closes one session (its turn cancelled, given `graceMs`) and forgets it. */
  async close(sessionId: string, graceMs: number): Promise<void> {
    const session = this.of(sessionId);
    this.#sessions.delete(sessionId);
    await session.close(graceMs);
  }

  /** Cancels every turn and closes every session, each turn given `graceMs` to end. */
  async closeAll(graceMs: number): Promise<void> {
    await Promise.all([...this.#sessions.values()].map((s) => s.close(graceMs)));
  }
}

/** The agent core (and zod with it) loads with the first session, not before `initialize`. */
async function openContext(state: ConnectionState, client: AgentContext): Promise<OpenContext> {
  const { config, env, log, store, mcp, capabilities } = state;
  try {
    return { config, env, log, store, deps: await state.loadDeps(), mcp, client, capabilities };
  } catch (e) {
    throw RequestError.internalError(undefined, `cannot start the agent: ${errorText(e)}`);
  }
}

/** The agent's answer to `initialize`; it also starts loading the core in the background. */
function initialize(state: ConnectionState, params: InitializeRequest): InitializeResponse {
  state.capabilities = params.clientCapabilities ?? {};
  // Warm up while the client sets up its first session; a failure shows there.
  after(0, () => {
    void state.loadDeps().catch(() => {});
    void import("./open_session.ts").catch(() => {});
  });
  return {
    protocolVersion: PROTOCOL_VERSION,
    agentCapabilities: agentCapabilities(state.store !== undefined),
    agentInfo: { name: "scv", title: "scv", version: SCV_VERSION },
    authMethods: [],
  };
}

/** `session/load`: the recorded session reopened, its history replayed before the answer. */
function loadHandler(state: ConnectionState) {
  return async ({ params, client }: { params: LoadSessionRequest; client: AgentContext }) => {
    if (state.sessions.has(params.sessionId)) {
      throw RequestError.invalidRequest(
        { sessionId: params.sessionId },
        `session ${JSON.stringify(params.sessionId)} is already open on this connection`,
      );
    }
    const session = await state.sessions.open(state, client, async (cx, lib) => {
      const { session, replay } = await lib.loadSession(
        cx,
        params.cwd,
        params.mcpServers,
        params.sessionId,
      );
      for (const update of replay) await session.notify(update);
      return session;
    });
    return { modes: session.modes };
  };
}

/** `session/list`: a page of the recorded sessions, newest first, of one `cwd` or all. */
function listHandler(state: ConnectionState, store: SessionStore) {
  return async ({ params }: { params: ListSessionsRequest }): Promise<ListSessionsResponse> => {
    const offset = cursorOffset(params.cursor);
    if (offset === undefined) {
      throw RequestError.invalidParams(
        { cursor: params.cursor },
        "the cursor is not one scv handed out",
      );
    }
    let cwd: string | undefined;
    if (params.cwd !== undefined && params.cwd !== null) {
      const dir = await workspaceDir(params.cwd);
      if (!dir.ok) throw RequestError.invalidParams({ cwd: params.cwd }, dir.message);
      cwd = dir.path;
    }
    try {
      const { sessions, matched } = await store.list({ cwd, limit: offset + LIST_PAGE_SIZE });
      return listPage(sessions, matched, offset);
    } catch (e) {
      state.log(`scv-acp: cannot list sessions: ${errorText(e)}`);
      throw RequestError.internalError(undefined, `cannot list sessions: ${errorText(e)}`);
    }
  };
}

/** The ACP methods scv answers, by name. */
function acpApp(state: ConnectionState): AgentApp {
  const { sessions } = state;
  const app = agent({ name: "scv" })
    .onRequest("initialize", ({ params }) => initialize(state, params))
    .onRequest("session/new", async ({ params, client }) => {
      const session = await sessions.open(
        state,
        client,
        (cx, lib) => lib.newSession(cx, params.cwd, params.mcpServers),
      );
      return { sessionId: session.id, modes: session.modes };
    })
    .onRequest(
      "session/prompt",
      ({ params, signal, requestId }) =>
        sessions.of(params.sessionId).prompt(params.prompt, String(requestId), signal),
    )
    .onNotification("session/cancel", ({ params }) => {
      // A notification has no answer: an unknown session is only logged.
      if (sessions.has(params.sessionId)) sessions.of(params.sessionId).cancel();
      else {state.log(
          `scv-acp: session/cancel for an unknown session ${JSON.stringify(params.sessionId)}`,
        );}
    })
    .onRequest("session/set_mode", async ({ params }) => {
      await sessions.of(params.sessionId).setMode(params.modeId);
      return {};
    })
    .onRequest("session/close", async ({ params }) => {
      await sessions.close(params.sessionId, ACP_GRACE_MS);
      return {};
    });
  // Without recorded sessions there is nothing to load or list: the methods are unknown.
  if (state.store) {
    app.onRequest("session/load", loadHandler(state));
    app.onRequest("session/list", listHandler(state, state.store));
  }
  return app;
}

/**
 * Serves one ACP connection until the client's EOF; resolves with the exit status (0). Every
 * running turn is cancelled at EOF and given {@link ACP_GRACE_MS} to end.
 */
export async function serveAcp(options: AcpServeOptions): Promise<number> {
  const { config } = options;
  const log = options.log ?? ((line: string) => console.error(line));
  const env = options.env ?? readEnv;
  const { load: loadDeps, mcp, sandbox, closeSandbox } = runtimeLoader({
    config,
    provider: options.provider,
    tools: options.tools,
    log,
    env,
  });
  // Probed from the start, in the background: the SDK answers initialize itself.
  sandbox().catch(() => {});
  const store = options.sessions === undefined
    ? openSessionStore(config, env, log, followSessions(env, log))
    : options.sessions ?? undefined;
  const state: ConnectionState = {
    config,
    env,
    log,
    store,
    loadDeps,
    mcp,
    sessions: new AcpSessions(),
    capabilities: {},
  };
  const connection = acpApp(state).connect(
    boundedStream(options.readable, options.writable, {
      maxClientFrameBytes: config.max_client_frame_bytes,
      maxServerFrameBytes: config.max_server_frame_bytes,
      log,
    }),
  );
  await connection.closed;
  // EOF (or a broken output): every turn is cancelled, and the agent ends within the grace.
  // The MCP servers stop meanwhile: a turn cut off in a call to one ends cancelled anyway.
  await Promise.all([state.sessions.closeAll(ACP_GRACE_MS), mcp?.close()]);
  await closeSandbox();
  return 0;
}
