/**
 * `mcp.status`: the configured MCP servers' state and tool names right now (a client's `/mcp`);
 * an empty list when none is configured. Tool names are left out (`truncated`) when they would
 * not fit the frame limit.
 *
 * @module
 */
import { FrameTooLargeError } from "../../../protocol/ndjson.ts";
import type { ClientMessageOf } from "../../../protocol/schema.ts";
import type { ConnectionContext } from "../context.ts";

/** Answers `mcp.status`. */
export async function mcpStatus(
  msg: ClientMessageOf<"mcp.status">,
  cx: ConnectionContext,
): Promise<void> {
  const servers = cx.mcp?.details() ?? [];
  try {
    await cx.send<"mcp.status">({ type: "mcp.status", request_id: msg.request_id, servers });
  } catch (e) {
    if (!(e instanceof FrameTooLargeError)) throw e;
    await cx.send<"mcp.status">({
      type: "mcp.status",
      request_id: msg.request_id,
      servers: servers.map((s) => ({ ...s, tool_names: [] })),
      truncated: true,
    });
  }
}
