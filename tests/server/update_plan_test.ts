/**
 * `update_plan` over the real server (`main.ts server` against a scripted provider on
 * 127.0.0.1): `plan.updated` reaches the client under the strictest policy without an approval,
 * and a resumed session's history gives the plan back.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { text, toolCalls } from "../support/mock_openai.ts";
import { parsePlanText } from "../../protocol/plan_text.ts";
import { startServer, startSession, withRecording, withServer } from "./sessions/support.ts";

const STEPS = [
  { text: "Read the failing test", status: "done" },
  { text: "Fix the parser", status: "in_progress" },
  { text: "Run the tests", status: "pending" },
];

Deno.test("update_plan's plan reaches a Peon client as plan.updated, without asking, and a resume shows it", async () => {
  await withRecording([
    toolCalls([{ id: "p1", name: "update_plan", arguments: { steps: STEPS } }]),
    text("Planned."),
  ], async ({ mock, state, cwd }) => {
    const a = await startServer(state, mock.baseUrl, { config: { approval_policy: "always" } });
    let id: string;
    try {
      id = (await startSession(a, cwd)).session_id;
      const { t, done } = await a.runTurn(id, "plan it");
      assertEquals(done.type, "turn.completed");
      const events = a.turnEvents(t.turn_id).map((e) => e.type);
      assert(!events.includes("approval.requested"), events.join());
      const i = events.indexOf("plan.updated");
      assertEquals(events.slice(i - 1, i + 2), ["tool.started", "plan.updated", "tool.completed"]);
      const plan = a.eventOf(t.turn_id, "plan.updated");
      assertEquals(plan.steps, STEPS);
      assertEquals(plan.seq, a.eventOf(t.turn_id, "tool.started").seq + 1);
      assertEquals(a.schemaErrors, []);
      assertEquals(await a.stop(), 0);
    } catch (e) {
      await a.kill();
      throw e;
    }
    await withServer(state, mock.baseUrl, async (b) => {
      assertEquals((await startSession(b, cwd, id)).resumed, true);
      await b.send({ type: "session.history", request_id: "h", session_id: id });
      await b.next((e) => e.type === "history.end" && e.request_id === "h");
      const item = b.events.find((e) =>
        e.type === "history.item" && e.request_id === "h" && e.name === "update_plan"
      );
      assert(item, "the update_plan call is in the recorded history");
      assertEquals(item.success, true);
      assertEquals(parsePlanText(item.content), STEPS);
    });
  });
});
