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
  type McpServer,
  PROTOCOL_VERSION,
  RequestError,
} from "@agentclientprotocol/sdk";
import { SCV_VERSION } from "../../protocol/constants.ts";
import type { ConnectionDeps } from "../connection.ts";
import { agentDeps } from "../agent_deps.ts";
import { McpHost } from "../mcp/host.ts";
import { providerSecretEnv } from "../provider/secret_env.ts";
import { clientMcpServers, coreOnlyEnv } from "./client_mcp.ts";
import type { Provider } from "../provider/types.ts";
import type { ToolRegistry } from "../tools/registry.ts";
import { Session } from "../session.ts";
import type { SessionStore } from "../sessions/store.ts";
import { SessionLookupError } from "../sessions/store.ts";
import { openSessionStore } from "../sessions/open_store.ts";
import { type RecordedSessionView, Recorder } from "../sessions/recorder.ts";
import { answerInterruptedCalls, type ReplayedSession } from "../sessions/records.ts";
import type { SessionFile } from "../sessions/session_file.ts";
import { type ApprovalPolicy, type Config, CONFIG_RULES, readEnv } from "../config.ts";
import { planReplay } from "./replay.ts";
import { errorText } from "../error_text.ts";
import { boundedStream } from "./transport.ts";
import { AcpSession } from "./acp_session.ts";
import { workspaceDir } from "./workspace_dir.ts";

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
  /** The approval summary of a recorded call, from the tools; undefined when unknown. */
  const summarize = (tools: ToolRegistry) => (name: string, raw: string) => {
    const tool = tools.get(name);
    if (!tool) return undefined;
    try {
      const parsed = tool.schema.safeParse(raw.trim() === "" ? {} : JSON.parse(raw));
      return parsed.success ? tool.summary(parsed.data) : undefined;
    } catch {
      return undefined;
    }
  };
  const recorderFor = (
    tools: ToolRegistry,
    loaded?: { state: ReplayedSession; file: SessionFile },
  ) =>
  (view: RecordedSessionView) =>
    new Recorder(view, {
      store,
      summarize: summarize(tools),
      log,
      ...(loaded
        ? {
          file: loaded.file,
          resumed: {
            createdAt: loaded.state.header.created_at,
            turns: loaded.state.turns,
            title: loaded.state.title,
            toolMeta: loaded.state.toolMeta,
          },
        }
        : {}),
    });

  let capabilities: ClientCapabilities = {};
  const sessions = new Map<string, AcpSession>();
  const sessionOf = (sessionId: string): AcpSession => {
    const session = sessions.get(sessionId);
    if (!session) throw RequestError.sessionNotFound(sessionId);
    return session;
  };
  const open = async (
    cwd: string,
    client: AgentContext,
    mcpServers: readonly McpServer[],
    load?: string,
  ): Promise<AcpSession> => {
    if (sessions.size >= MAX_ACP_SESSIONS) {
      throw RequestError.invalidRequest(
        undefined,
        `this connection already has ${MAX_ACP_SESSIONS} sessions, the most it may open`,
      );
    }
    const dir = await workspaceDir(cwd);
    if (!dir.ok) throw RequestError.invalidParams({ cwd }, dir.message);
    const requested = clientMcpServers(mcpServers, new Set(Object.keys(config.mcp_servers)));
    if (!requested.ok) throw RequestError.invalidParams(undefined, requested.message);
    let loaded: ConnectionDeps;
    try {
      loaded = await loadDeps();
    } catch (e) {
      throw RequestError.internalError(undefined, `cannot start the agent: ${errorText(e)}`);
    }
    // The configured servers start with the first session; the client's with their session.
    mcp?.start(dir.path);
    const clientMcp = () => {
      const host = McpHost.create({
        servers: requested.servers,
        env: coreOnlyEnv(env),
        secretEnv: providerSecretEnv(config),
        log,
      });
      host?.start(dir.path);
      return host;
    };
    if (load === undefined) {
      const session = new AcpSession({
        mcp: clientMcp(),
        session: new Session(dir.path),
        config,
        deps: loaded,
        client,
        capabilities,
        log,
        ...(store ? { recorder: recorderFor(loaded.tools) } : {}),
      });
      sessions.set(session.id, session);
      return session;
    }
    if (!store) {
      throw RequestError.invalidRequest(
        undefined,
        "sessions are not recorded here, so none can be loaded",
      );
    }
    if (sessions.has(load)) {
      throw RequestError.invalidRequest(
        { sessionId: load },
        `session ${JSON.stringify(load)} is already open on this connection`,
      );
    }
    let recorded;
    try {
      recorded = await store.load(load, dir.path);
    } catch (e) {
      if (e instanceof SessionLookupError && e.code === "session_not_found") {
        throw new RequestError(-32002, `Resource not found: ${e.message}`, { sessionId: load });
      }
      if (e instanceof SessionLookupError) {
        throw RequestError.invalidParams({ sessionId: load }, e.message);
      }
      throw RequestError.internalError(undefined, `cannot load the session: ${errorText(e)}`);
    }
    const { state } = recorded;
    const core = new Session(dir.path, { id: state.header.session_id, lastSeq: state.seq });
    core.history = state.history;
    core.usage = { ...state.usage };
    core.compactedMessages = state.compacted;
    // A policy this build does not know (recorded by a newer one) falls back to the config's.
    const policy = state.configured && CONFIG_RULES.approval_policy.valid(state.approvalPolicy)
      ? state.approvalPolicy as ApprovalPolicy
      : undefined;
    const session = new AcpSession({
      session: core,
      config,
      deps: loaded,
      client,
      capabilities,
      log,
      recorder: recorderFor(loaded.tools, recorded),
      mcp: clientMcp(),
      ...(policy ? { policy } : {}),
    });
    // A crash may have cut a tool call off before its result: answer it, and record that.
    if (answerInterruptedCalls(core.history).length > 0) session.recorder?.sync();
    if (state.badLines > 0) {
      log(`scv-acp: ${state.badLines} damaged record(s) dropped from session ${core.id}'s file`);
    }
    sessions.set(session.id, session);
    const plan = planReplay(core.history, state.toolMeta, {
      cwd: core.cwd,
      maxUpdates: config.max_transcript_items,
      maxBytes: config.max_transcript_bytes,
      maxTextBytes: Math.min(
        16 * 1024,
        Math.max(256, Math.floor((config.max_server_frame_bytes - 1024) / 6)),
      ),
    });
    for (const update of plan.updates) await session.notify(update);
    return session;
  };

  const app = agent({ name: "scv" })
    .onRequest("initialize", ({ params }) => {
      capabilities = params.clientCapabilities ?? {};
      return {
        protocolVersion: PROTOCOL_VERSION,
        agentCapabilities: agentCapabilities(store !== undefined),
        agentInfo: { name: "scv", title: "scv", version: SCV_VERSION },
        authMethods: [],
      };
    })
    .onRequest("session/new", async ({ params, client }) => {
      const session = await open(params.cwd, client, params.mcpServers);
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
      const session = await open(params.cwd, client, params.mcpServers, params.sessionId);
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
  await Promise.all([...sessions.values()].map((s) => s.close(ACP_GRACE_MS)));
  await mcp?.close();
  return 0;
}
