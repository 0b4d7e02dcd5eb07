import { assert, assertEquals } from "../../support/assert.ts";
import { planReplay } from "../../../server/acp/replay.ts";
import type { ChatMessage } from "../../../server/provider/types.ts";
import { COMPACTION_MARKER } from "../../../server/context/record.ts";

const limits = { cwd: "/ws", maxUpdates: 100, maxBytes: 1 << 20, maxTextBytes: 1024 };

const history: ChatMessage[] = [
  { role: "user", content: "edit it" },
  {
    role: "assistant",
    content: null,
    tool_calls: [{
      id: "c1",
      type: "function",
      function: {
        name: "edit_file",
        arguments: '{"path":"a.ts","old_string":"a","new_string":"b"}',
      },
    }],
  },
  { role: "tool", tool_call_id: "c1", content: "Edited" },
  { role: "assistant", content: "Done." },
];

Deno.test("replay shows a tool call with its recorded summary, kind, location and result", () => {
  const meta = new Map([["c1", { name: "edit_file", success: true, summary: "Edit file: a.ts" }]]);
  const { updates, omitted } = planReplay(history, meta, limits);
  assertEquals(omitted, 0);
  assertEquals(updates[1], {
    sessionUpdate: "tool_call",
    toolCallId: "c1",
    title: "Edit file: a.ts",
    kind: "edit",
    status: "pending",
    locations: [{ path: "/ws/a.ts" }],
  });
  assertEquals(updates[2], {
    sessionUpdate: "tool_call_update",
    toolCallId: "c1",
    status: "completed",
    content: [{ type: "content", content: { type: "text", text: "Edited" } }],
  });
});

Deno.test("replay marks a call recorded as failed as failed", () => {
  const meta = new Map([["c1", { name: "edit_file", success: false }]]);
  const update = planReplay(history, meta, limits).updates[2] as { status: string };
  assertEquals(update.status, "failed");
});

Deno.test("replay shows a compaction record as a thought, not as something the user said", () => {
  const { updates } = planReplay(
    [{ role: "user", content: `${COMPACTION_MARKER}\nsummary` }],
    new Map(),
    limits,
  );
  assertEquals(updates[0]!.sessionUpdate, "agent_thought_chunk");
});

Deno.test("replay announces a result whose call was compacted away before its update", () => {
  const { updates } = planReplay(
    [{ role: "tool", tool_call_id: "old", content: "x" }],
    new Map(),
    limits,
  );
  assertEquals(updates.map((u) => u.sessionUpdate), ["tool_call", "tool_call_update"]);
});

Deno.test("replay cuts a long text to the head bound and says so", () => {
  const { updates } = planReplay([{ role: "user", content: "é".repeat(1000) }], new Map(), {
    ...limits,
    maxTextBytes: 100,
  });
  const t = (updates[0] as { content: { text: string } }).content.text;
  assert(
    t.startsWith("é".repeat(50)) && !t.startsWith("é".repeat(51)) &&
      t.endsWith("[... cut for the replay]"),
  );
});

Deno.test("replay keeps the newest updates within the count bound", () => {
  const many: ChatMessage[] = Array.from(
    { length: 10 },
    (_, i) => ({ role: "user" as const, content: `m${i}` }),
  );
  const { updates, omitted } = planReplay(many, new Map(), { ...limits, maxUpdates: 3 });
  assertEquals(updates.map((u) => (u as { content: { text: string } }).content.text), [
    "m7",
    "m8",
    "m9",
  ]);
  assertEquals(omitted, 7);
});

Deno.test("replay keeps the newest updates within the byte bound, one byte over dropping one", () => {
  const two: ChatMessage[] = [{ role: "user", content: "a" }, { role: "user", content: "b" }];
  const size =
    JSON.stringify({ sessionUpdate: "user_message_chunk", content: { type: "text", text: "a" } })
      .length + 1;
  assertEquals(planReplay(two, new Map(), { ...limits, maxBytes: 2 * size }).updates.length, 2);
  assertEquals(planReplay(two, new Map(), { ...limits, maxBytes: 2 * size - 1 }).updates.length, 1);
});

Deno.test("replay drops a result whose call fell outside the bound", () => {
  const { updates } = planReplay(history, new Map(), { ...limits, maxUpdates: 2 });
  // tool_call_update c1 and "Done." are the newest two; the update's call was cut, so it goes.
  assertEquals(updates.map((u) => u.sessionUpdate), ["agent_message_chunk"]);
});

Deno.test("replay shows a recorded update_plan's plan as a plan update after its result", () => {
  const planned: ChatMessage[] = [
    { role: "user", content: "plan it" },
    {
      role: "assistant",
      content: null,
      tool_calls: [{
        id: "p1",
        type: "function",
        function: { name: "update_plan", arguments: '{"steps":[]}' },
      }],
    },
    {
      role: "tool",
      tool_call_id: "p1",
      content: "Plan updated (1 of 2 steps done):\n[x] Read\n[ ] Fix",
    },
  ];
  const meta = new Map([["p1", { name: "update_plan", success: true }]]);
  const { updates } = planReplay(planned, meta, limits);
  assertEquals(updates.at(-1), {
    sessionUpdate: "plan",
    entries: [
      { content: "Read", priority: "medium", status: "completed" },
      { content: "Fix", priority: "medium", status: "pending" },
    ],
  });
  // A failed update_plan set no plan.
  const failed = new Map([["p1", { name: "update_plan", success: false }]]);
  assert(!planReplay(planned, failed, limits).updates.some((u) => u.sessionUpdate === "plan"));
});
