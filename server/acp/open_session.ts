/**
 * Opening an ACP session on the agent core: a new one for `session/new`, or a recorded one
 * reopened for `session/load` with the updates that replay its history. Both check the
 * workspace and the client's MCP servers, start the MCP servers, and give the session its
 * recorder when sessions are recorded.
 *
 * @module
 */
import {
  type AgentContext,
  type ClientCapabilities,
  type McpServer,
  RequestError,
  type SessionUpdate,
} from "@agentclientprotocol/sdk";
import type { ApprovalPolicy, Config } from "../config.ts";
import type { Runtime } from "../core/runtime.ts";
import { errorText } from "../error_text.ts";
import { McpHost } from "../mcp/host.ts";
import { providerSecretEnv } from "../provider/secret_env.ts";
import { newRecorder, type Recording, reopenSession } from "../core/recorded_session.ts";
import { Session } from "../core/session.ts";
import { SessionLookupError, type SessionStore } from "../sessions/store.ts";
import { AcpSession, type AcpSessionOptions } from "./acp_session.ts";
import { clientMcpServers, coreOnlyEnv } from "./client_mcp.ts";
import { planReplay } from "./replay.ts";
import { workspaceDir } from "../workspace_dir.ts";
import { loadRules } from "../core/rules/load.ts";
import { startSessionHooks } from "../core/hook_points.ts";
import { RuleFileError } from "../core/rules/rule.ts";

/** What opening a session needs from the connection. */
export interface OpenContext {
  /** The configuration. */
  config: Config;
  /** Environment lookup (the client's MCP servers get only the core variables of it). */
  env: (name: string) => string | undefined;
  /** Diagnostics; never receives secrets. */
  log: (line: string) => void;
  /** Where sessions are recorded; undefined: nowhere. */
  store: SessionStore | undefined;
  /** What turns run with. */
  deps: Runtime;
  /** The configured MCP servers, started with the first session. */
  mcp: McpHost | undefined;
  /** Calls the client's side of the connection. */
  client: AgentContext;
  /** What the client said it can do in `initialize`. */
  capabilities: ClientCapabilities;
}

/** How this agent's sessions are recorded in `store`. */
function recording<S extends SessionStore | undefined>(
  cx: OpenContext,
  store: S,
): Recording & { store: S } {
  const tools = cx.deps.tools;
  return { store, config: cx.config, tools: () => tools, log: cx.log };
}

/** The canonical workspace and the client's MCP servers started, or an invalid-params error. */
async function prepare(cx: OpenContext, cwd: string, mcpServers: readonly McpServer[]) {
  const dir = await workspaceDir(cwd);
  if (!dir.ok) throw RequestError.invalidParams({ cwd }, dir.message);
  const requested = clientMcpServers(mcpServers, new Set(Object.keys(cx.config.mcp_servers)));
  if (!requested.ok) throw RequestError.invalidParams(undefined, requested.message);
  let rules;
  try {
    rules = await loadRules(dir.path, { env: cx.env });
  } catch (e) {
    if (e instanceof RuleFileError) throw RequestError.invalidParams({ cwd }, e.message);
    throw e;
  }
  // The configured servers start with the first session; the client's with their session.
  cx.mcp?.start(dir.path);
  const mcp = McpHost.create({
    servers: requested.servers,
    env: coreOnlyEnv(cx.env),
    secretEnv: providerSecretEnv(cx.config),
    log: cx.log,
  });
  mcp?.start(dir.path);
  return { cwd: dir.path, mcp, rules };
}

/** The session with the workspace's rules in force. */
function withRules(session: Session, rules: Session["rules"]): Session {
  session.rules = rules;
  return session;
}

/** What a new and a loaded session both get from the connection. */
function sessionOptions(
  cx: OpenContext,
  session: Session,
  mcp: AcpSessionOptions["mcp"],
): AcpSessionOptions {
  return {
    session,
    config: cx.config,
    deps: cx.deps,
    client: cx.client,
    capabilities: cx.capabilities,
    log: cx.log,
    mcp,
  };
}

/** A new session on `cwd` (`session/new`). */
export async function newSession(
  cx: OpenContext,
  cwd: string,
  mcpServers: readonly McpServer[],
): Promise<AcpSession> {
  const ready = await prepare(cx, cwd, mcpServers);
  const session = new AcpSession({
    ...sessionOptions(cx, withRules(new Session(ready.cwd), ready.rules), ready.mcp),
    ...(cx.store ? { recorder: (view) => newRecorder(view, recording(cx, cx.store)) } : {}),
  });
  startSessionHooks(session.core, cx.config, "startup");
  return session;
}

/** The bytes of one text in a replayed update: a head, well inside a frame. */
function replayTextBytes(config: Config): number {
  return Math.min(16 * 1024, Math.max(256, Math.floor((config.max_server_frame_bytes - 1024) / 6)));
}

/**
 * A recorded session of `cwd` reopened (`session/load`), with the updates that replay its
 * history; errors are JSON-RPC errors (`-32002` for an unknown id).
 */
export async function loadSession(
  cx: OpenContext,
  cwd: string,
  mcpServers: readonly McpServer[],
  sessionId: string,
): Promise<{ session: AcpSession; replay: SessionUpdate[] }> {
  const store = cx.store;
  if (!store) {
    throw RequestError.invalidRequest(
      undefined,
      "sessions are not recorded here, so none can be loaded",
    );
  }
  const dir = await workspaceDir(cwd);
  if (!dir.ok) throw RequestError.invalidParams({ cwd }, dir.message);
  let reopened;
  try {
    reopened = await reopenSession(sessionId, dir.path, recording(cx, store));
  } catch (e) {
    if (e instanceof SessionLookupError && e.code === "session_not_found") {
      throw new RequestError(-32002, `Resource not found: ${e.message}`, { sessionId });
    }
    if (e instanceof SessionLookupError) throw RequestError.invalidParams({ sessionId }, e.message);
    throw RequestError.internalError(undefined, `cannot load the session: ${errorText(e)}`);
  }
  let ready;
  try {
    ready = await prepare(cx, cwd, mcpServers);
  } catch (e) {
    reopened.discard();
    throw e;
  }
  const { session: core, state } = reopened;
  const policy = core.approvalPolicy as ApprovalPolicy | undefined;
  const session = new AcpSession({
    ...sessionOptions(cx, withRules(core, ready.rules), ready.mcp),
    recorder: reopened.recorder,
    ...(policy ? { policy } : {}),
  });
  startSessionHooks(core, cx.config, "resume");
  if (state.badLines > 0) {
    cx.log(`scv-acp: ${state.badLines} damaged record(s) dropped from session ${core.id}'s file`);
  }
  const { updates } = planReplay(core.history, state.toolMeta, {
    cwd: core.cwd,
    maxUpdates: cx.config.max_transcript_items,
    maxBytes: cx.config.max_transcript_bytes,
    maxTextBytes: replayTextBytes(cx.config),
  });
  return { session, replay: updates };
}
