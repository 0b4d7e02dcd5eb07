/**
 * A plan (`plan.updated`, or a recorded `update_plan` call) as ACP's `plan` session update: each
 * step an entry, `done` read as ACP's `completed`. ACP clients replace the whole plan with each
 * update, as `plan.updated` does.
 *
 * @module
 */
import type { PlanEntry, SessionUpdate } from "@agentclientprotocol/sdk";
import type { PlanLine } from "../../protocol/plan_text.ts";

/**
 * The `plan` update for these steps. scv's steps have no priority: every entry is `medium`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { planUpdate } from "./plan_update.ts";
 * assert.deepEqual(planUpdate([{ text: "Fix", status: "done" }]), {
 *   sessionUpdate: "plan",
 *   entries: [{ content: "Fix", priority: "medium", status: "completed" }],
 * });
 * ```
 */
export function planUpdate(steps: readonly PlanLine[]): SessionUpdate {
  const entries: PlanEntry[] = steps.map((s) => ({
    content: s.text,
    priority: "medium",
    status: s.status === "done" ? "completed" : s.status,
  }));
  return { sessionUpdate: "plan", entries };
}
