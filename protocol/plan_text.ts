/**
 * A plan (`update_plan`, `plan.updated`) as plain checklist text, one step a line, and back: the
 * one format the model reads as `update_plan`'s result, a recorded session keeps, `scv exec`
 * prints and the TUI reads back from a resumed session's history. Kept free of zod.
 *
 * ```text
 * [x] Read the failing test
 * [>] Fix the parser
 * [ ] Run the tests
 * ```
 *
 * @module
 */
import type { PlanStatus } from "./constants.ts";

/** One step of a plan: what {@link planText} writes and {@link parsePlanText} gives back. */
export interface PlanLine {
  /** What the step does, one line. */
  text: string;
  /** Its state. */
  status: PlanStatus;
}

/** The mark of each state in the checklist. */
const MARKS: Readonly<Record<PlanStatus, string>> = {
  pending: "[ ]",
  in_progress: "[>]",
  done: "[x]",
};

/** The first line of `update_plan`'s result, before the checklist. */
const HEAD = /^Plan updated \(\d+ of \d+ steps? done\):$/;

/**
 * The plan as checklist lines (no trailing newline); an empty plan is empty text.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { planText } from "./plan_text.ts";
 * assert.equal(
 *   planText([{ text: "Read", status: "done" }, { text: "Fix", status: "in_progress" }]),
 *   "[x] Read\n[>] Fix",
 * );
 * ```
 */
export function planText(steps: readonly PlanLine[]): string {
  return steps.map((s) => `${MARKS[s.status]} ${s.text.replace(/[\r\n]+/g, " ")}`).join("\n");
}

/**
 * `update_plan`'s result for the model: a count, then the checklist.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { planResult } from "./plan_text.ts";
 * assert.equal(planResult([{ text: "Read", status: "done" }]), "Plan updated (1 of 1 step done):\n[x] Read");
 * assert.equal(planResult([]), "Plan updated (0 of 0 steps done):\n(the plan is empty)");
 * ```
 */
export function planResult(steps: readonly PlanLine[]): string {
  const done = steps.filter((s) => s.status === "done").length;
  const head = `Plan updated (${done} of ${steps.length} step${
    steps.length === 1 ? "" : "s"
  } done):`;
  return `${head}\n${steps.length === 0 ? "(the plan is empty)" : planText(steps)}`;
}

/**
 * The plan a text of {@link planResult} (or {@link planText}) shows, or undefined when the text
 * is not one (another tool's output, a failed call's message).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parsePlanText, planResult } from "./plan_text.ts";
 * const steps = [{ text: "Read", status: "done" as const }, { text: "Fix", status: "pending" as const }];
 * assert.deepEqual(parsePlanText(planResult(steps)), steps);
 * assert.equal(parsePlanText("Invalid arguments for update_plan: ..."), undefined);
 * ```
 */
export function parsePlanText(text: string): PlanLine[] | undefined {
  const lines = text.split("\n");
  if (lines[0] !== undefined && HEAD.test(lines[0])) lines.shift();
  if (lines.length === 1 && lines[0] === "(the plan is empty)") return [];
  const steps: PlanLine[] = [];
  for (const line of lines) {
    const m = /^\[( |>|x)\] (.*)$/.exec(line);
    if (!m) return undefined;
    const status: PlanStatus = m[1] === "x" ? "done" : m[1] === ">" ? "in_progress" : "pending";
    steps.push({ text: m[2]!, status });
  }
  return steps.length > 0 ? steps : undefined;
}
