import assert from "node:assert/strict";
import { cutPoints } from "../../../server/context/groups.ts";
import type { ChatMessage } from "../../../server/provider/types.ts";
import { call, calls, result, say, user } from "./_helpers.ts";

Deno.test("cut points are the user messages up to the current turn", () => {
  const history: ChatMessage[] = [
    user("a"),
    say("b"),
    user("c"),
    calls(call("1", "bash")),
    result("1", "out"),
    user("d"),
    say("e"),
  ];
  assert.deepEqual(cutPoints(history, 5), [2, 5]);
  assert.deepEqual(cutPoints(history, 2), [2]);
  assert.deepEqual(cutPoints(history, 0), []);
  assert.deepEqual(cutPoints(history, history.length), [2, 5, 7]);
});

Deno.test("cut points skip a user message between a tool call and its result", () => {
  // Malformed, but a cut at index 2 would keep the result without its call.
  const history: ChatMessage[] = [
    user("a"),
    calls(call("1", "bash"), call("2", "glob")),
    user("interjection"),
    result("1", "out"),
    result("2", "out"),
    user("b"),
  ];
  assert.deepEqual(cutPoints(history, 5), [5]);
});

Deno.test("cut points handle call ids reused across responses", () => {
  const history: ChatMessage[] = [
    user("a"),
    calls(call("call_0", "bash")),
    result("call_0", "one"),
    user("b"),
    calls(call("call_0", "bash")),
    result("call_0", "two"),
    user("c"),
  ];
  assert.deepEqual(cutPoints(history, 6), [3, 6]);
});

Deno.test("cut points reject a turnStart outside the history", () => {
  assert.throws(() => cutPoints([user("a")], 2), RangeError);
  assert.throws(() => cutPoints([user("a")], NaN), RangeError);
});
