/**
 * The body of `session.started`, gathered in one place: a feature that reports something when a
 * session starts (the sandbox mode, MCP servers, a resumed session) adds its field to the
 * `SessionStartedEvent` schema and one line here.
 *
 * @module
 */
import type { EventOf } from "../../protocol/turn_events.ts";
import type { Session } from "../core/session.ts";
import { roundUsd } from "../provider/pricing.ts";
import { hookGroups } from "../hooks_config.ts";
import type { McpServerStatus } from "../mcp/host.ts";
import type { SandboxReport } from "../sandbox/mod.ts";
import { isLocalServer } from "../provider/local_server.ts";
import { ProviderMemory, providerMemoryPath } from "../provider/memory.ts";
import { type Config, readEnv } from "../config.ts";

/**
 * The context window in force when a session starts: `context_max_tokens`, or the smaller
 * window a local server reported to an earlier process within the day (the first turn asks the
 * server again and says so in a `turn.notice` when its window caps the configured one).
 */
export function contextWindowAtStart(
  config: Config,
  model: string,
  env: (name: string) => string | undefined = readEnv,
): number {
  if (config.provider !== "openai-chat" || !isLocalServer(config.base_url)) {
    return config.context_max_tokens;
  }
  const known = new ProviderMemory(providerMemoryPath(env)).window(config.base_url, model);
  return Math.min(config.context_max_tokens, known?.tokens ?? Infinity);
}

/** `session.started` without its `type` and `request_id`. */
export type SessionStartedBody = Omit<EventOf<"session.started">, "type" | "request_id">;

/** What the connection found out about a session's surroundings before it started. */
export interface SessionStartedExtras {
  /** Where bash runs in this workspace. */
  sandbox?: SandboxReport | undefined;
  /** Each enabled MCP server's state. */
  mcp_servers?: McpServerStatus[] | undefined;
  /** scv 0.3: whether the session keeps checkpoints, and why not. */
  checkpoints?: { enabled: boolean; reason?: string } | undefined;
}

/** What `session.started` reports for a session that was just opened. */
export function sessionStartedBody(
  session: Session,
  config: Config,
  extras: SessionStartedExtras = {},
): SessionStartedBody {
  return {
    session_id: session.id,
    cwd: session.cwd,
    // A resumed session keeps the model session.configure chose.
    model: session.model ?? config.model,
    context_max_tokens: contextWindowAtStart(config, session.model ?? config.model),
    max_server_frame_bytes: config.max_server_frame_bytes,
    max_transcript_bytes: config.max_transcript_bytes,
    max_transcript_items: config.max_transcript_items,
    max_prompt_history_bytes: config.max_prompt_history_bytes,
    max_prompt_history_items: config.max_prompt_history_items,
    ...(extras.sandbox ? { sandbox: extras.sandbox } : {}),
    ...(extras.mcp_servers ? { mcp_servers: extras.mcp_servers } : {}),
    ...(extras.checkpoints ? { checkpoints: extras.checkpoints } : {}),
    ...(session.inbox.recovered.length > 0
      ? {
        queued: session.inbox.recovered.map((w) => ({
          request_id: w.requestId,
          prompt: w.prompt,
          kind: w.kind,
          ...(w.images?.length ? { images: w.images } : {}),
        })),
      }
      : {}),
    ...(hookGroups(config.hooks).length > 0 ? { hooks: hookGroups(config.hooks) } : {}),
    // A resumed session's cost so far, so a client's total goes on from it.
    ...(session.usage.cost_usd !== undefined
      ? { session_cost_usd: roundUsd(session.usage.cost_usd) }
      : {}),
  };
}
