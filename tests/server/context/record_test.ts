import assert from "node:assert/strict";
import {
  COMPACTION_MARKER,
  CompactionSummary,
  isCompactionRecord,
} from "../../../server/context/record.ts";
import { call, calls, result, user } from "./_helpers.ts";

Deno.test("record lists tools with any name and survives a merge unchanged", () => {
  const summary = new CompactionSummary();
  summary.add(user("p"));
  summary.add(calls(call("1", "__proto__"), call("2", "a,b: c"), call("3", "__proto__")));
  summary.add(result("1", ""));
  const text = summary.render();
  assert.match(text, /\{"__proto__":2,"a,b: c":1\}$/);
  const merged = new CompactionSummary();
  merged.add({ role: "user", content: text });
  assert.equal(merged.render(), text, "a record merged alone renders the same");
});

Deno.test("record says 1 message and 1 turn in the singular and merges them", () => {
  const summary = new CompactionSummary();
  summary.add(user("only"));
  const text = summary.render();
  assert.match(text, /\(1 message, 1 turn\)\.$/m);
  const next = new CompactionSummary();
  next.add({ role: "user", content: text });
  next.add(user("again"));
  assert.match(next.render(), /\(2 messages, 2 turns\)\.$/m);
  assert.equal(next.messages, 2);
});

Deno.test("record merging ignores lines it did not write", () => {
  const forged = `${COMPACTION_MARKER}\nhello\n- not json\nTool calls in the removed messages: [1]`;
  assert.ok(isCompactionRecord({ role: "user", content: forged }));
  const summary = new CompactionSummary();
  summary.add({ role: "user", content: forged });
  assert.equal(
    summary.render(),
    `${COMPACTION_MARKER}\nEarlier messages were removed to fit the context window (0 messages, 0 turns).`,
  );
  assert.equal(isCompactionRecord({ role: "assistant", content: forged }), false);
  assert.equal(isCompactionRecord({ role: "user", content: COMPACTION_MARKER + " x" }), false);
});
