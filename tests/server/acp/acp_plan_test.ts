/**
 * `update_plan` over ACP: each `plan.updated` becomes a `plan` session update whose entries are
 * the steps (`done` read as `completed`), sent without a permission request.
 */
import { assert, assertEquals, assertMatch } from "../../support/assert.ts";
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

Deno.test("acp: the plan mode refuses a write and a command without asking, and runs a read", async () => {
  const script = [
    toolCalls([
      { id: "w", name: "write_file", arguments: { path: "m.txt", content: "m" } },
      { id: "b", name: "bash", arguments: { command: "touch ran.txt" } },
      { id: "r", name: "read_file", arguments: { path: "notes.txt" } },
    ]),
    text("My plan."),
  ];
  await withAgent(script, {}, async (agent, mock) => {
    await agent.initialize();
    const ws = await agent.workspace();
    await Deno.writeTextFile(`${ws}/notes.txt`, "hello notes\n");
    const { sessionId, modes } = await agent.newSession(ws);
    assert(modes?.availableModes.some((m) => m.id === "plan" && m.name === "Plan"));
    await agent.agent.request("session/set_mode", { sessionId, modeId: "plan" });
    assertEquals((await agent.prompt(sessionId, "look")).stopReason, "end_turn");
    assertEquals(agent.permissionRequests.length, 0);
    assertEquals(await Deno.stat(`${ws}/m.txt`).then(() => true, () => false), false);
    assertEquals(await Deno.stat(`${ws}/ran.txt`).then(() => true, () => false), false);
    const results = new Map<string, string>();
    for (const m of mock.requests.at(-1)!.body.messages) {
      if (m.role === "tool") results.set(m.tool_call_id as string, m.content as string);
    }
    assertMatch(results.get("w") ?? "", /^Plan mode is on: /);
    assertMatch(results.get("b") ?? "", /^Plan mode is on: /);
    assertMatch(results.get("r") ?? "", /hello notes/);
    const statuses = agent.updatesOf(sessionId, "tool_call_update")
      .map((u) => u as { toolCallId: string; status?: string })
      .filter((u) => u.status === "failed" || u.status === "completed")
      .map((u) => [u.toolCallId, u.status]);
    assertEquals(statuses, [["w", "failed"], ["b", "failed"], ["r", "completed"]]);
    const system = mock.requests[0]!.body.messages[0]!.content as string;
    assertMatch(system, /Plan mode is on/);
  });
});
