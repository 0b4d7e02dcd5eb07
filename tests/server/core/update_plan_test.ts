/**
 * `update_plan` in the agent loop (CONTRACT.md "More tools and plan mode"): a valid plan is
 * announced as `plan.updated` between the call's start and its completion, never asks, and the
 * model reads the checklist back; a plan past the limits is refused with a message naming the
 * limit, and nothing is announced.
 */
import { assert, assertEquals } from "../../support/assert.ts";
import { MAX_PLAN_STEP_CHARS, MAX_PLAN_STEPS } from "../../../protocol/constants.ts";
import { PlanUpdatedEvent } from "../../../protocol/schema.ts";
import { encodeFrame } from "../../../protocol/ndjson.ts";
import { updatePlanTool } from "../../../server/tools/update_plan.ts";
import {
  answer,
  call,
  callTools,
  eventsOf,
  only,
  runScripted,
  ScriptedApprovals,
} from "./support.ts";

const PLAN = [
  { text: "Read the failing test", status: "done" },
  { text: "Fix the parser", status: "in_progress" },
  { text: "Run the tests", status: "pending" },
] as const;

/**
 * One turn whose model calls update_plan with `args`, then answers; its events must fit the
 * frame limit, as the Peon writer requires.
 */
function planTurn(args: unknown, config: { max_server_frame_bytes?: number } = {}) {
  const approvals = new ScriptedApprovals();
  const limit = config.max_server_frame_bytes ?? 8 * 1024 * 1024;
  return runScripted({
    tools: [updatePlanTool],
    approvals,
    sink: (event) => void encodeFrame(event, limit),
    config: { approval_policy: "always", ...config },
    steps: [callTools([call("p1", "update_plan", args)]), answer("ok")],
  }).then((ran) => ({ ...ran, approvals }));
}

Deno.test("update_plan announces the plan as plan.updated before its call completes", async () => {
  const { events, types, approvals } = await planTurn({ steps: PLAN });
  assertEquals(types.slice(2, 6), [
    "tool.proposed",
    "tool.started",
    "plan.updated",
    "tool.completed",
  ]);
  const updated = only(events, "plan.updated");
  assertEquals(updated.steps, PLAN.map((s) => ({ ...s })));
  assert(PlanUpdatedEvent.safeParse(updated).success, "the event matches its wire schema");
  // Never asks, even under approval_policy "always".
  assertEquals(approvals.requests, []);
});

Deno.test("update_plan gives the model the plan back as a checklist", async () => {
  const { events, requests } = await planTurn({ steps: PLAN });
  const done = only(events, "tool.completed");
  assertEquals(done.success, true);
  assertEquals(
    done.output,
    "Plan updated (1 of 3 steps done):\n[x] Read the failing test\n[>] Fix the parser\n[ ] Run the tests",
  );
  assertEquals(requests[1]!.at(-1), { role: "tool", tool_call_id: "p1", content: done.output });
});

Deno.test("update_plan with an empty list clears the plan", async () => {
  const { events } = await planTurn({ steps: [] });
  assertEquals(only(events, "plan.updated").steps, []);
});

Deno.test("update_plan refuses a 51st step, naming the limit, and announces nothing", async () => {
  const steps = Array.from({ length: MAX_PLAN_STEPS + 1 }, (_, i) => ({
    text: `step ${i + 1}`,
    status: "pending",
  }));
  const { events } = await planTurn({ steps });
  assertEquals(eventsOf(events, "plan.updated"), []);
  const done = only(events, "tool.completed");
  assertEquals(done.success, false);
  assert(done.output.includes(`at most ${MAX_PLAN_STEPS} steps`), done.output);
  // Exactly 50 is fine.
  const ok = await planTurn({ steps: steps.slice(0, MAX_PLAN_STEPS) });
  assertEquals(only(ok.events, "plan.updated").steps.length, MAX_PLAN_STEPS);
});

Deno.test("update_plan refuses two steps in progress, naming them", async () => {
  const { events } = await planTurn({
    steps: [
      { text: "a", status: "in_progress" },
      { text: "b", status: "pending" },
      { text: "c", status: "in_progress" },
    ],
  });
  assertEquals(eventsOf(events, "plan.updated"), []);
  const done = only(events, "tool.completed");
  assertEquals(done.success, false);
  assert(
    done.output.includes(`at most one step may be "in_progress", got 2 (steps 1, 3)`),
    done.output,
  );
});

Deno.test("update_plan refuses a step text over the bound, a multi-line step and a bad status", async () => {
  const cases: [unknown, string][] = [
    [
      { text: "x".repeat(MAX_PLAN_STEP_CHARS + 1), status: "pending" },
      `at most ${MAX_PLAN_STEP_CHARS} characters`,
    ],
    [{ text: "one\ntwo", status: "pending" }, "must be one line"],
    [{ text: "", status: "pending" }, "non-empty"],
    [{ text: "a", status: "completed" }, '"steps.0.status"'],
  ];
  for (const [step, want] of cases) {
    const { events } = await planTurn({ steps: [step] });
    assertEquals(eventsOf(events, "plan.updated"), []);
    const done = only(events, "tool.completed");
    assertEquals(done.success, false);
    assert(done.output.startsWith("Invalid arguments for update_plan: "), done.output);
    assert(done.output.includes(want), `${want} in ${done.output}`);
  }
  // Exactly the bound is fine.
  const ok = await planTurn({ steps: [{ text: "x".repeat(MAX_PLAN_STEP_CHARS), status: "done" }] });
  assertEquals(only(ok.events, "plan.updated").steps.length, 1);
});

Deno.test("a plan whose event cannot fit a frame fails the call, for the model to shorten", async () => {
  const steps = Array.from({ length: 20 }, () => ({ text: "y".repeat(400), status: "pending" }));
  const { events, end } = await planTurn({ steps }, { max_server_frame_bytes: 4096 });
  assertEquals(end.type, "turn.completed");
  assertEquals(eventsOf(events, "plan.updated"), []);
  const done = only(events, "tool.completed");
  assertEquals(done.success, false);
  assert(done.output.includes("does not fit max_server_frame_bytes (4096)"), done.output);
});
