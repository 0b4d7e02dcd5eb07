/** Planning `session.history`'s items: roles, tool metadata, heads and every bound. */
import assert from "node:assert/strict";
import {
  HISTORY_HEAD_BYTES,
  type HistoryLimits,
  planHistory,
} from "../../../server/sessions/history_items.ts";
import type { ChatMessage } from "../../../server/provider/types.ts";
import type { ToolMeta } from "../../../server/sessions/records.ts";

const roomy: HistoryLimits = {
  maxItems: 10_000,
  maxBytes: 1 << 24,
  maxFrameBytes: 1 << 20,
  envelopeBytes: 100,
};

const frameSize = (item: object, envelope: number) =>
  new TextEncoder().encode(JSON.stringify(item)).length + envelope + 1;

Deno.test("items show prompts, answers and tool results; tool-only assistant messages and system prompts none", () => {
  const history: ChatMessage[] = [
    { role: "system", content: "be brief" },
    { role: "user", content: "[scv: earlier conversation compacted]\nsummary" },
    { role: "user", content: "list files" },
    {
      role: "assistant",
      content: null,
      tool_calls: [{ id: "c1", type: "function", function: { name: "glob", arguments: "{}" } }],
    },
    { role: "tool", tool_call_id: "c1", content: "a.ts" },
    { role: "tool", tool_call_id: "c2", content: "no metadata" },
    { role: "assistant", content: "One file." },
  ];
  const meta = new Map<string, ToolMeta>([["c1", {
    name: "glob",
    success: true,
    summary: "Find files: *",
  }]]);
  const plan = planHistory(history, meta, roomy);
  assert.deepEqual(plan.items, [
    { role: "user", content: "[scv: earlier conversation compacted]\nsummary", compaction: true },
    { role: "user", content: "list files" },
    { role: "tool", content: "a.ts", name: "glob", summary: "Find files: *", success: true },
    { role: "tool", content: "no metadata" },
    { role: "assistant", content: "One file." },
  ]);
  assert.equal(plan.omitted, 0);
});

Deno.test("a long content is cut to its head and marked truncated", () => {
  const long = "é".repeat(HISTORY_HEAD_BYTES); // twice the head in bytes
  const plan = planHistory([{ role: "user", content: long }], new Map(), roomy);
  const item = plan.items[0]!;
  assert.equal(item.truncated, true);
  assert.ok(long.startsWith(item.content));
  assert.ok(new TextEncoder().encode(item.content).length <= HISTORY_HEAD_BYTES);
});

Deno.test("every item frame fits max_server_frame_bytes, escapes included", () => {
  const limits = { ...roomy, maxFrameBytes: 600 };
  const history: ChatMessage[] = [
    { role: "user", content: "\u0001".repeat(5000) }, // 6 bytes each once escaped
    { role: "assistant", content: "plain ".repeat(500) },
  ];
  const plan = planHistory(history, new Map(), limits);
  assert.equal(plan.items.length, 2);
  for (const item of plan.items) {
    assert.equal(item.truncated, true);
    assert.ok(frameSize(item, limits.envelopeBytes) <= limits.maxFrameBytes);
  }
});

Deno.test("max_transcript_bytes keeps the newest items whose frames fit and counts the rest", () => {
  const history: ChatMessage[] = [];
  for (let i = 0; i < 10; i++) history.push({ role: "user", content: `prompt ${i} `.repeat(10) });
  const one = frameSize({ role: "user", content: history[0]!.content }, 100);
  const plan = planHistory(history, new Map(), { ...roomy, maxBytes: one * 3 + one - 1 });
  assert.equal(plan.items.length, 3);
  assert.equal(plan.omitted, 7);
  assert.deepEqual(plan.items.map((i) => i.content), history.slice(7).map((m) => m.content));
});

Deno.test("an empty history plans no items", () => {
  assert.deepEqual(planHistory([], new Map(), roomy), { items: [], omitted: 0 });
});
