/**
 * The model's plan (`plan.updated`): the checklist shown above the composer while the turn
 * runs, and written once into the transcript each time it changes. A resumed session's
 * `update_plan` results are read back as plans too, so the transcript shows them the same way.
 *
 * @module
 */
import { type PlanLine, planText } from "../../protocol/mod.ts";
import type { ClientState } from "./model.ts";
import { finishItem } from "./transcript.ts";

/**
 * A plan arrived: it becomes the live checklist, and goes into the transcript unless it is the
 * plan the transcript shows last (the model sent the same plan again).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createState } from "./model.ts";
 * import { applyPlan } from "./plan.ts";
 * const s = createState({ model: "m", cwd: "/w", historyLimits: { maxItems: 1, maxBytes: 9 } });
 * const steps = [{ text: "Fix", status: "in_progress" as const }];
 * applyPlan(s, steps);
 * applyPlan(s, steps);
 * assert.equal(s.transcript.filter((i) => i.kind === "plan").length, 1);
 * assert.deepEqual(s.plan, steps);
 * ```
 */
export function applyPlan(state: ClientState, steps: readonly PlanLine[]): void {
  const copy = steps.map((s) => ({ text: s.text, status: s.status }));
  state.plan = copy;
  const text = planText(copy);
  if (text === state.planWritten) return;
  state.planWritten = text;
  finishItem(state, { kind: "plan", steps: copy });
}

/** The turn ended: the checklist leaves the live region (the transcript keeps the plan). */
export function endPlan(state: ClientState): void {
  state.plan = undefined;
}

/** A new or cleared conversation: no plan was written into its transcript yet. */
export function forgetPlan(state: ClientState): void {
  state.plan = undefined;
  state.planWritten = undefined;
}
