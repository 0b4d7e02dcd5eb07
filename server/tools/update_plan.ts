/**
 * The `update_plan` tool: the model keeps its plan where the user can see it. Each call gives
 * the whole plan (at most 50 one-line steps, at most one `in_progress`); the turn announces it
 * as `plan.updated`, and the model reads it back as a checklist. It changes nothing and never
 * asks.
 *
 * @module
 */
import * as z from "zod";
import { PlanSteps } from "../../protocol/plan_schema.ts";
import { planResult } from "../../protocol/plan_text.ts";
import { defineTool } from "./tool.ts";

const schema = z.object({
  steps: PlanSteps.describe(
    "The whole plan, in order; each call replaces the previous plan (an empty list clears it)",
  ),
});

/**
 * `update_plan`: risk `read`, read-only, never asks; its result carries the plan for the turn to
 * announce.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { updatePlanTool } from "./update_plan.ts";
 * const ok = updatePlanTool.schema.safeParse({ steps: [{ text: "Fix", status: "in_progress" }] });
 * assert(ok.success);
 * const two = updatePlanTool.schema.safeParse({
 *   steps: [{ text: "A", status: "in_progress" }, { text: "B", status: "in_progress" }],
 * });
 * assert(!two.success);
 * ```
 */
export const updatePlanTool = defineTool({
  name: "update_plan",
  description: "Show the user your plan for this task as a checklist and keep it current: " +
    "call it with the whole plan when you start a multi-step task and again whenever a step " +
    "starts or is done. Mark at most one step in_progress.",
  schema,
  readOnly: true,
  neverAsks: true,
  risk: () => "read",
  summary: (a) => {
    const done = a.steps.filter((s) => s.status === "done").length;
    return `Update plan: ${a.steps.length} step${a.steps.length === 1 ? "" : "s"}, ${done} done`;
  },
  run: (a) =>
    Promise.resolve({
      success: true,
      output: planResult(a.steps),
      truncated: false,
      plan: a.steps.map((s) => ({ text: s.text, status: s.status })),
    }),
});
