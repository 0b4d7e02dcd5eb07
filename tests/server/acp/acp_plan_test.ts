/**
 * `update_plan` over ACP: each `plan.updated` becomes a `plan` session update whose entries are
 * the steps (`done` read as `completed`), sent without a permission request.
 */
import { assertEquals } from "../../support/assert.ts";
import { text, toolCalls } from "../../support/mock_openai.ts";
import { withAgent } from "./support.ts";

Deno.test("acp: update_plan sends the plan as plan session updates, without asking", async () => {
  const plan = (statuses: string[]) =>
    toolCalls([{
      id: `p${statuses.join("")}`,
      name: "update_plan",
      arguments: {
        steps: statuses.map((status, i) => ({ text: `step ${i + 1}`, status })),
      },
    }]);
  const script = [plan(["in_progress", "pending"]), plan(["done", "in_progress"]), text("ok")];
  await withAgent(script, { config: { approval_policy: "always" } }, async (agent) => {
    await agent.initialize();
    const { sessionId } = await agent.newSession(await agent.workspace());
    assertEquals((await agent.prompt(sessionId, "plan")).stopReason, "end_turn");
    assertEquals(agent.permissionRequests.length, 0);
    const plans = agent.updatesOf(sessionId, "plan") as Array<{ entries: unknown[] }>;
    assertEquals(plans.map((p) => p.entries), [
      [
        { content: "step 1", priority: "medium", status: "in_progress" },
        { content: "step 2", priority: "medium", status: "pending" },
      ],
      [
        { content: "step 1", priority: "medium", status: "completed" },
        { content: "step 2", priority: "medium", status: "in_progress" },
      ],
    ]);
  });
});
