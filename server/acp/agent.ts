/**
 * `scv acp`: an ACP v1 agent on any pair of byte streams (stdin/stdout in the command), the
 * second front-end of the agent core beside the Peon connection, on the same configuration,
 * provider, tools, approvals and context management.
 *
 * @module
 */
import { McpHost } from "../mcp/host.ts";
import {
  agent,
  type AgentCapabilities,
  type AgentContext,
  type ClientCapabilities,
  PROTOCOL_VERSION,
  RequestError,
} from "@agentclientprotocol/sdk";
import { SCV_VERSION } from "../../protocol/constants.ts";
import type { ConnectionDeps } from "../connection.ts";
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
    mcpCapabilities: { http: false, sse: false },
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
  // The configured MCP servers (none loads any MCP code): started with the first session,
  // their tools synced into each session's registry before every provider call.
  const mcp = McpHost.create({
    servers: config.mcp_servers,
    env,
    secretEnv: [config.api_key_env],
    log,
  });
  let deps: Promise<ConnectionDeps> | undefined;
  const loadDeps = () =>
    deps ??= (async () => {
      const [
        { ToolRegistry },
        { builtinTools },
        { buildSystemPrompt },
        { createContextManager },
        { providerFromConfig },
      ] = await Promise.all([
        import("../tools/registry.ts"),
        import("../tools/builtin.ts"),
        import("../prompt.ts"),
        import("../context_manager.ts"),
        import("../serve.ts"),
      ]);
      const context = createContextManager(config);
      await context.ready;
      return {
        config,
        provider: options.provider ?? await providerFromConfig(config, env),
        tools: options.tools ?? new ToolRegistry(builtinTools()),
        context,
        systemPrompt: buildSystemPrompt,
        secretEnv: [config.api_key_env],
      };
    })();

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
    let loaded: ConnectionDeps;
    try {
      loaded = await loadDeps();
    } catch (e) {
      throw RequestError.internalError(undefined, `cannot start the agent: ${errorText(e)}`);
    }
    if (load === undefined) {
      const session = new AcpSession({
        session: new Session(dir.path),
        config,
        deps: loaded,
        client,
        capabilities,
        log,
        ...(store ? { recorder: recorderFor(loaded.tools) } : {}),
        ...(mcp ? { mcp } : {}),
      });
      sessions.set(session.id, session);
      mcp?.start(session.core.cwd);
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
      ...(policy ? { policy } : {}),
      ...(mcp ? { mcp } : {}),
    });
    mcp?.start(core.cwd);
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
      if (params.mcpServers.length > 0) {
        log(
          `scv-acp: the client's ${params.mcpServers.length} MCP server(s) are not connected: ` +
            "this build has no MCP client yet",
        );
      }
      const session = await open(params.cwd, client);
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
      const session = await open(params.cwd, client, params.sessionId);
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
