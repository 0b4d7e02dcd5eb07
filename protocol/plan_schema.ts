/**
 * The plan of `update_plan` and `plan.updated` (scv 0.3), declared once: apart from the rest of
 * the protocol's tables (`schema.ts`, which re-exports it), so that the tool loads without them:
 * evaluating all the tables cost a first tool call ~24 ms.
 *
 * @module
 */
import * as z from "zod";
import { MAX_PLAN_STEP_CHARS, MAX_PLAN_STEPS, PLAN_STATUSES } from "./constants.ts";

/**
 * scv 0.3: one step of a plan, as `update_plan` takes it and `plan.updated` carries it: one line
 * of text and its state.
 */
export const PlanStep = z.object({
  text: z.string()
    .min(1, "must be a non-empty string")
    .max(MAX_PLAN_STEP_CHARS, `must be at most ${MAX_PLAN_STEP_CHARS} characters; say it shorter`)
    .refine((t) => !/[\r\n]/.test(t), "must be one line: one step per entry, no line breaks")
    .describe("What the step does, in one line"),
  status: z.enum(PLAN_STATUSES).describe('"pending", "in_progress" (at most one) or "done"'),
});
/** One step of a plan, as a type. */
export type PlanStep = z.infer<typeof PlanStep>;

/**
 * scv 0.3: a whole plan: at most {@link MAX_PLAN_STEPS} steps, at most one of them
 * `in_progress`; each failure names the limit and what to do about it.
 */
export const PlanSteps = z.array(PlanStep)
  .max(
    MAX_PLAN_STEPS,
    `must have at most ${MAX_PLAN_STEPS} steps; merge small steps into larger ones`,
  )
  .superRefine((steps, ctx) => {
    const busy = steps.flatMap((s, i) => s.status === "in_progress" ? [i + 1] : []);
    if (busy.length > 1) {
      ctx.addIssue({
        code: "custom",
        message: `at most one step may be "in_progress", got ${busy.length} (steps ${
          busy.join(", ")
        }); mark the others "pending" or "done"`,
      });
    }
  });
