/**
 * A recorded session's history as the `session/update` notifications `session/load` replays:
 * prompts as user chunks, answers as agent chunks, each tool call as a `tool_call` with its
 * result as a finished `tool_call_update` (and an `update_plan` call's plan as a `plan`). Pure; each text is cut to a head and the run is
 * bounded like the TUI's transcript (newest kept).
 *
 * @module
 */
import type { SessionUpdate } from "@agentclientprotocol/sdk";
import type { ChatMessage } from "../provider/types.ts";
import type { ToolMeta } from "../sessions/records.ts";
import { isCompactionRecord } from "../context/record.ts";
import { headOf } from "../tools/output.ts";
import { utf8Length } from "../utf8.ts";
import { toolKind, toolLocations } from "./tool_view.ts";
import { parsePlanText } from "../../protocol/plan_text.ts";
import { planUpdate } from "./plan_update.ts";

/** Bounds of a replay. */
export interface ReplayLimits {
  /** The session's workspace, for tool locations. */
  cwd: string;
  /** Most updates sent (newest kept). */
  maxUpdates: number;
  /** Most UTF-8 bytes of all updates together, as encoded (newest kept). */
  maxBytes: number;
  /** Most UTF-8 bytes of one text in an update. */
  maxTextBytes: number;
}

/** The planned replay. */
export interface ReplayPlan {
  /** The updates to send, oldest first. */
  updates: SessionUpdate[];
  /** Updates left out (the oldest) to keep within the limits. */
  omitted: number;
}

function text(s: string, max: number): { type: "text"; text: string } {
  const head = headOf(s, max);
  return { type: "text", text: head === s ? s : `${head}\n[... cut for the replay]` };
}

function parsed(raw: string): unknown {
  try {
    return raw.trim() === "" ? {} : JSON.parse(raw);
  } catch {
    return undefined;
  }
}

/**
 * Plans the replay of a history.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { planReplay } from "./replay.ts";
 * const plan = planReplay(
 *   [{ role: "user", content: "hi" }, { role: "assistant", content: "hello" }],
 *   new Map(),
 *   { cwd: "/ws", maxUpdates: 100, maxBytes: 1 << 20, maxTextBytes: 1024 },
 * );
 * assert.deepEqual(plan.updates.map((u) => u.sessionUpdate), [
 *   "user_message_chunk", "agent_message_chunk",
 * ]);
 * ```
 */
export function planReplay(
  history: readonly ChatMessage[],
  meta: ReadonlyMap<string, ToolMeta>,
  limits: ReplayLimits,
): ReplayPlan {
  const all: SessionUpdate[] = [];
  const announced = new Set<string>();
  const max = limits.maxTextBytes;
  const call = (id: string, name: string, args: unknown): SessionUpdate => {
    announced.add(id);
    const m = meta.get(id);
    return {
      sessionUpdate: "tool_call",
      toolCallId: id,
      title: headOf(m?.summary ?? name, max),
      kind: toolKind(name),
      status: "pending",
      locations: toolLocations(name, args, limits.cwd),
    };
  };
  for (const m of history) {
    switch (m.role) {
      case "user":
        all.push(
          isCompactionRecord(m)
            ? { sessionUpdate: "agent_thought_chunk", content: text(m.content, max) }
            : { sessionUpdate: "user_message_chunk", content: text(m.content, max) },
        );
        break;
      case "assistant":
        if (m.content) {
          all.push({ sessionUpdate: "agent_message_chunk", content: text(m.content, max) });
        }
        for (const c of m.tool_calls ?? []) {
          all.push(call(c.id, c.function.name, parsed(c.function.arguments)));
        }
        break;
      case "tool": {
        const m2 = meta.get(m.tool_call_id);
        // A call whose assistant message was compacted away still shows as a call.
        if (!announced.has(m.tool_call_id)) {
          all.push(call(m.tool_call_id, m2?.name ?? "tool", undefined));
        }
        all.push({
          sessionUpdate: "tool_call_update",
          toolCallId: m.tool_call_id,
          status: m2?.success === false ? "failed" : "completed",
          content: [{ type: "content", content: text(m.content, max) }],
        });
        // The plan a recorded update_plan set, shown again as the plan.
        const plan = m2?.name === "update_plan" && m2.success
          ? parsePlanText(m.content)
          : undefined;
        if (plan) all.push(planUpdate(plan));
        break;
      }
      default:
        break;
    }
  }
  // Newest kept: walk back from the end while the bounds hold.
  let bytes = 0;
  let first = all.length;
  while (first > 0 && all.length - first < limits.maxUpdates) {
    const size = utf8Length(JSON.stringify(all[first - 1])) + 1;
    if (bytes + size > limits.maxBytes) break;
    bytes += size;
    first--;
  }
  const kept = all.slice(first);
  // An update whose call was cut off with the older updates would name an unknown call.
  const shown = new Set<string>();
  const updates = kept.filter((u) => {
    if (u.sessionUpdate === "tool_call") shown.add(u.toolCallId);
    return u.sessionUpdate !== "tool_call_update" || shown.has(u.toolCallId);
  });
  return { updates, omitted: all.length - updates.length };
}
