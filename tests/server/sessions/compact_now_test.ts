/** `session.compact`'s plan: what is dropped, what is kept, the instructions, nothing to drop. */
import assert from "node:assert/strict";
import { INSTRUCTIONS_CHARS, planCompactNow } from "../../../server/sessions/compact_now.ts";
import { isCompactionRecord } from "../../../server/context/record.ts";
import type { ChatMessage } from "../../../server/provider/types.ts";

const turn = (n: number): ChatMessage[] => [
  { role: "user", content: `prompt ${n}` },
  { role: "assistant", content: `answer ${n}` },
];

Deno.test("every turn but the last becomes one compaction record", () => {
  const history = [...turn(1), ...turn(2), ...turn(3)];
  const plan = planCompactNow(history)!;
  assert.equal(plan.removedMessages, 4);
  assert.ok(isCompactionRecord(plan.history[0]!));
  assert.match(String(plan.history[0]!.content), /prompt 1/);
  assert.deepEqual(plan.history.slice(1), history.slice(4));
  assert.equal(plan.history[1], history[4], "the kept messages are the same objects");
});

Deno.test("nothing to drop: an empty history, one turn, or a record and one turn", () => {
  assert.equal(planCompactNow([]), undefined);
  assert.equal(planCompactNow(turn(1)), undefined);
  const once = planCompactNow([...turn(1), ...turn(2)])!;
  assert.equal(planCompactNow(once.history), undefined);
});

Deno.test("instructions are quoted in the record, whitespace collapsed and bounded", () => {
  const plan = planCompactNow([...turn(1), ...turn(2)], "keep\n\nthe   colour")!;
  assert.match(
    String(plan.history[0]!.content),
    /Instructions given when compacting: "keep the colour"$/,
  );
  const long = planCompactNow([...turn(1), ...turn(2)], "x".repeat(5000))!;
  const line = String(long.history[0]!.content).split("\n").at(-1)!;
  const quoted = JSON.parse(line.slice(line.indexOf('"')));
  assert.equal(Array.from(quoted).length, INSTRUCTIONS_CHARS);
  assert.ok(quoted.endsWith("…"));
});

Deno.test("a turn whose tool results follow its call is never split", () => {
  const history: ChatMessage[] = [
    { role: "user", content: "run it" },
    {
      role: "assistant",
      content: null,
      tool_calls: [{ id: "c", type: "function", function: { name: "bash", arguments: "{}" } }],
    },
    { role: "tool", tool_call_id: "c", content: "ok" },
    ...turn(2),
  ];
  const plan = planCompactNow(history)!;
  assert.equal(plan.removedMessages, 3);
  assert.deepEqual(plan.history.slice(1), turn(2));
});
