/**
 * The session file format, in process: replaying records, torn and foreign lines, titles, and
 * answering calls a crash left open.
 */
import assert from "node:assert/strict";
import {
  answerInterruptedCalls,
  encodeRecord,
  FORMAT_VERSION,
  type HeaderRecord,
  INTERRUPTED_RESULT,
  replay,
  SessionFormatError,
  type SessionRecord,
  titleOf,
} from "../../../server/sessions/records.ts";
import type { ChatMessage } from "../../../server/provider/types.ts";

const header: HeaderRecord = {
  t: "header",
  v: FORMAT_VERSION,
  session_id: "s1",
  cwd: "/w",
  model: "m",
  approval_policy: "on-risk",
  created_at: "2026-01-01T00:00:00.000Z",
};

function file(...records: SessionRecord[]): string {
  return [header, ...records].map(encodeRecord).join("");
}

const user = (content: string): ChatMessage => ({ role: "user", content });
const assistant = (content: string): ChatMessage => ({ role: "assistant", content });
const mark = (seq: number, end?: "completed"): SessionRecord => ({
  t: "mark",
  seq,
  usage: { input_tokens: seq * 10, output_tokens: seq },
  compacted: 0,
  ...(end ? { end } : {}),
  at: `2026-01-01T00:00:0${seq}.000Z`,
});

Deno.test("replay rebuilds history, seq, usage, turns and title from the records", () => {
  const s = replay(file(
    { t: "msg", m: user("Fix  the\ntest"), seq: 1 },
    { t: "msg", m: assistant("done"), seq: 3 },
    mark(4, "completed"),
    { t: "msg", m: user("again"), seq: 4 },
    { t: "msg", m: assistant("ok"), seq: 6 },
    mark(7, "completed"),
  ));
  assert.deepEqual(s.history.map((m) => m.content), ["Fix  the\ntest", "done", "again", "ok"]);
  assert.equal(s.seq, 7);
  assert.deepEqual(s.usage, { input_tokens: 70, output_tokens: 7 });
  assert.equal(s.turns, 2);
  assert.equal(s.title, "Fix the test");
  assert.equal(s.updatedAt, "2026-01-01T00:00:07.000Z");
  assert.equal(s.badLines, 0);
  assert.equal(s.tornTail, false);
});

Deno.test("a torn last line is dropped and reported, everything before it kept", () => {
  const whole = file({ t: "msg", m: user("one"), seq: 1 }, mark(2, "completed"));
  const torn = whole + encodeRecord({ t: "msg", m: user("two") }).slice(0, 12);
  const s = replay(torn);
  assert.equal(s.tornTail, true);
  assert.equal(s.badLines, 1);
  assert.deepEqual(s.history.map((m) => m.content), ["one"]);
  assert.equal(s.turns, 1);
});

Deno.test("a damaged line in the middle is skipped and the records after it still apply", () => {
  const text = file({ t: "msg", m: user("one") }) + '{"t":"msg","m":{"role":"wizard"}}\n' +
    "not json\n" + encodeRecord({ t: "msg", m: assistant("two") });
  const s = replay(text);
  assert.equal(s.badLines, 2);
  assert.equal(s.tornTail, false);
  assert.deepEqual(s.history.map((m) => m.content), ["one", "two"]);
});

Deno.test("a file without a readable header is a SessionFormatError", () => {
  assert.throws(() => replay(""), SessionFormatError);
  assert.throws(() => replay('{"t":"msg"}\n'), SessionFormatError);
  const future = encodeRecord({ ...header, v: FORMAT_VERSION + 1 });
  assert.throws(() => replay(future), /format version 1/);
});

Deno.test("a rewrite drops the oldest messages and puts the compaction record first", () => {
  const record = user("[scv: earlier conversation compacted]\nsummary");
  const s = replay(file(
    { t: "msg", m: user("one") },
    { t: "msg", m: assistant("1") },
    { t: "msg", m: user("two") },
    { t: "rewrite", drop: 2, prepend: [record] },
    { t: "mark", seq: 3, usage: { input_tokens: 0, output_tokens: 0 }, compacted: 2, at: "t" },
  ));
  assert.deepEqual(s.history.map((m) => m.content), [record.content, "two"]);
  assert.equal(s.compacted, 2);
  assert.equal(s.title, "one", "the title stays the first prompt");
});

Deno.test("clear empties history, usage and the compaction count but seq goes on", () => {
  const s = replay(file(
    { t: "msg", m: user("one"), seq: 1 },
    mark(3, "completed"),
    { t: "clear" },
    { t: "mark", seq: 4, usage: { input_tokens: 0, output_tokens: 0 }, compacted: 0, at: "t" },
  ));
  assert.deepEqual(s.history, []);
  assert.deepEqual(s.usage, { input_tokens: 0, output_tokens: 0 });
  assert.equal(s.seq, 4);
});

Deno.test("tool metadata follows its message and is forgotten when the message is dropped", () => {
  const tool: ChatMessage = { role: "tool", tool_call_id: "c1", content: "ok" };
  const s = replay(file(
    { t: "msg", m: user("one") },
    { t: "msg", m: tool, tool: { name: "bash", success: true, summary: "Run shell command: ls" } },
  ));
  assert.deepEqual(s.toolMeta.get("c1"), {
    name: "bash",
    success: true,
    summary: "Run shell command: ls",
  });
  const dropped = replay(file(
    { t: "msg", m: user("one") },
    { t: "msg", m: tool, tool: { name: "bash", success: true } },
    { t: "rewrite", drop: 2, prepend: [] },
  ));
  assert.equal(dropped.toolMeta.size, 0);
});

Deno.test("a config record sets model and policy and marks them as configured", () => {
  const s = replay(file({ t: "config", model: "other", approval_policy: "never" }));
  assert.equal(s.model, "other");
  assert.equal(s.approvalPolicy, "never");
  assert.equal(s.configured, true);
  assert.equal(replay(file()).configured, false);
});

Deno.test("titles collapse whitespace and keep 80 code points", () => {
  assert.equal(titleOf("a\t\tb\n\nc"), "a b c");
  const long = "😀".repeat(100);
  assert.equal(Array.from(titleOf(long)).length, 80);
  assert.equal(titleOf("x".repeat(80)), "x".repeat(80));
});

Deno.test("calls a crash left without a result are answered as interrupted", () => {
  const history: ChatMessage[] = [
    user("go"),
    {
      role: "assistant",
      content: null,
      tool_calls: [
        { id: "a", type: "function", function: { name: "bash", arguments: "{}" } },
        { id: "b", type: "function", function: { name: "bash", arguments: "{}" } },
      ],
    },
    { role: "tool", tool_call_id: "a", content: "done" },
  ];
  const added = answerInterruptedCalls(history);
  assert.deepEqual(added, [{ role: "tool", tool_call_id: "b", content: INTERRUPTED_RESULT }]);
  assert.equal(answerInterruptedCalls(history).length, 0, "a second pass adds nothing");
  assert.equal(answerInterruptedCalls([user("hi"), assistant("hello")]).length, 0);
});
