/**
 * Plan mode over the real server (`approval_policy: "plan"`, docs/plan_mode.md): a write and a
 * bash call are refused without asking, with a line saying plan mode is on; reads and
 * update_plan run; the system prompt says so; `session.configure` switches it on and off.
 */
import { assert, assertEquals, assertMatch } from "../support/assert.ts";
import { type MockOpenAI, text, toolCalls } from "../support/mock_openai.ts";
import { MockOpenAI as Mock } from "../support/mock_openai.ts";
import { type Ev, type ServerProcess, withServer } from "../support/server_process.ts";
import { PLAN_MODE_PROMPT } from "../../server/core/prompt.ts";

/** The tool result the provider was sent for a call. */
function resultOf(mock: MockOpenAI, callId: string): string | undefined {
  for (const r of mock.requests) {
    const m = r.body.messages.find((m) => m.role === "tool" && m.tool_call_id === callId);
    if (m) return m.content as string;
  }
  return undefined;
}

/** The model's calls of one step: a write, a bash command, a read and a plan. */
const CALLS = toolCalls([
  { id: "w", name: "write_file", arguments: { path: "made.txt", content: "x" } },
  { id: "b", name: "bash", arguments: { command: "touch ran.txt" } },
  { id: "r", name: "read_file", arguments: { path: "notes.txt" } },
  { id: "g", name: "grep", arguments: { pattern: "secret" } },
  { id: "p", name: "update_plan", arguments: { steps: [{ text: "Fix", status: "pending" }] } },
]);

/** Runs one turn of CALLS on a fresh workspace and returns its events. */
async function planTurn(
  p: ServerProcess,
  configure?: string,
): Promise<{ ws: string; events: Ev[] }> {
  const { sessionId, cwd } = await p.open();
  await Deno.writeTextFile(`${cwd}/notes.txt`, "the secret is 42\n");
  if (configure) {
    await p.send({
      type: "session.configure",
      request_id: "cfg",
      session_id: sessionId,
      approval_policy: configure,
    });
    assertEquals((await p.nextOf("session.configured")).approval_policy, configure);
  }
  const { t, done } = await p.runTurn(sessionId, "look around");
  assertEquals(done.type, "turn.completed");
  return { ws: cwd, events: p.turnEvents(t.turn_id) };
}

async function assertPlanned(mock: MockOpenAI, ws: string, events: Ev[]): Promise<void> {
  // Nothing asked, nothing changed.
  assert(!events.some((e) => e.type === "approval.requested"), JSON.stringify(events));
  assertEquals(await Deno.stat(`${ws}/made.txt`).then(() => true, () => false), false);
  assertEquals(await Deno.stat(`${ws}/ran.txt`).then(() => true, () => false), false);
  const completed = (id: string) =>
    events.find((e) => e.type === "tool.completed" && e.call_id === id)!;
  for (const id of ["w", "b"]) {
    assertEquals(completed(id).success, false);
    assertMatch(completed(id).output, /^Plan mode is on: /);
    assertMatch(resultOf(mock, id) ?? "", /^Plan mode is on: /);
    // A refused call never started.
    assert(!events.some((e) => e.type === "tool.started" && e.call_id === id));
  }
  assertEquals(completed("r").success, true);
  assertMatch(completed("r").output, /the secret is 42/);
  assertEquals(completed("g").success, true);
  assertMatch(completed("g").output, /notes\.txt/);
  assert(events.some((e) => e.type === "plan.updated"));
  // The model was told, at every request of the turn.
  for (const r of mock.requests) {
    const system = r.body.messages.find((m) => m.role === "system")!.content as string;
    assert(system.includes(PLAN_MODE_PROMPT), system.slice(-400));
  }
}

Deno.test("plan mode from the config refuses a write and a bash call, and runs reads and update_plan", async () => {
  const mock = await Mock.start([CALLS, text("Here is my plan.")]);
  await withServer(mock, { config: { approval_policy: "plan" } }, async (p) => {
    const { ws, events } = await planTurn(p);
    await assertPlanned(mock, ws, events);
    assertEquals(p.schemaErrors, []);
  });
});

Deno.test("session.configure switches plan mode on for the next turn, and off again", async () => {
  const mock = await Mock.start([
    CALLS,
    text("Here is my plan."),
    toolCalls([{ id: "w2", name: "write_file", arguments: { path: "made.txt", content: "x" } }]),
    text("Done."),
  ]);
  await withServer(mock, { config: { approval_policy: "never" } }, async (p) => {
    const { ws, events } = await planTurn(p, "plan");
    await assertPlanned(mock, ws, events);
    await p.send({
      type: "session.configure",
      request_id: "cfg2",
      session_id: events[0]!.session_id,
      approval_policy: "never",
    });
    assertEquals((await p.nextOf("session.configured")).approval_policy, "never");
    const { done } = await p.runTurn(events[0]!.session_id, "now do it");
    assertEquals(done.type, "turn.completed");
    assertEquals(await Deno.readTextFile(`${ws}/made.txt`), "x");
    const last = mock.requests.at(-1)!.body.messages.find((m) => m.role === "system")!;
    assert(!(last.content as string).includes("Plan mode is on"));
  });
});
