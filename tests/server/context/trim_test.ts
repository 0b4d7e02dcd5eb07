import assert from "node:assert/strict";
import fc from "fast-check";
import { historyBytes } from "../../../server/context/bytes.ts";
import { trimHistory } from "../../../server/context/trim.ts";
import { messageBytes } from "../../../server/context/bytes.ts";
import { utf8Length } from "../../../server/utf8.ts";
import type { ChatMessage } from "../../../server/provider/types.ts";
import { call, calls, result, say, toolPairingProblem, user } from "./_helpers.ts";

const encoded = (h: readonly ChatMessage[]) => new TextEncoder().encode(JSON.stringify(h)).length;

function sessionHistory(): ChatMessage[] {
  return [
    user("turn one"),
    calls(call("a1", "read_file", '{"path":"a.ts"}')),
    result("a1", "x".repeat(500)),
    say("Read it."),
    user("turn two \u00e9\u{1F600}"),
    calls(call("b1", "bash", '{"command":"deno test"}'), call("b2", "glob", "{}")),
    result("b1", "z".repeat(900)),
    result("b2", 'q\n\t"\\\u0001'.repeat(50)),
    user("current turn"), // index 8
    calls(call("c1", "bash", '{"command":"ls"}')),
    result("c1", "main.ts"),
  ];
}

Deno.test("historyBytes equals the encoded JSON length", () => {
  const history = sessionHistory();
  assert.equal(historyBytes(history), encoded(history));
  assert.equal(historyBytes([]), 2);
  assert.equal(historyBytes([user("")]), encoded([user("")]));
  const odd: ChatMessage[] = [
    user("lone \ud800 surrogate, \u2028 separator, \u0000 nul"),
    { role: "system", content: "€".repeat(10) },
  ];
  assert.equal(historyBytes(odd), encoded(odd));
  for (const m of history) assert.equal(messageBytes(m), encoded([m]) - 2);
});

Deno.test("utf8Length matches TextEncoder on any string", () => {
  fc.assert(
    fc.property(fc.string({ unit: "binary", maxLength: 200 }), (s) => {
      assert.equal(utf8Length(s), new TextEncoder().encode(s).length);
    }),
    { numRuns: 300 },
  );
  assert.equal(utf8Length("\udc00\ud800"), 6); // two lone surrogates: two U+FFFD
});

Deno.test("historyBytes caches per-message sizes", () => {
  const m = { role: "user" as const, content: "abc" };
  const before = historyBytes([m]);
  m.content = "a much longer content than before"; // in-place edits are not supported
  assert.equal(historyBytes([m]), before);
  assert.notEqual(historyBytes([{ ...m }]), before);
});

Deno.test("trim fits when under max_history_bytes, inclusive", () => {
  const history = sessionHistory();
  const size = encoded(history);
  assert.deepEqual(trimHistory(history, { turnStart: 8, maxBytes: size }), {
    kind: "fits",
    historyBytes: size,
  });
  assert.equal(trimHistory(history, { turnStart: 8, maxBytes: size - 1 }).kind, "trimmed");
});

Deno.test("trim drops oldest groups until under max_history_bytes", () => {
  const history = sessionHistory();
  const afterFirst = encoded(history.slice(4));
  const one = trimHistory(history, { turnStart: 8, maxBytes: afterFirst });
  assert.deepEqual(one, {
    kind: "trimmed",
    history: history.slice(4),
    newTurnStart: 4,
    removedMessages: 4,
    historyBytes: afterFirst,
  });
  const two = trimHistory(history, { turnStart: 8, maxBytes: afterFirst - 1 });
  assert.equal(two.kind, "trimmed");
  if (two.kind !== "trimmed") return;
  assert.equal(two.removedMessages, 8);
  assert.equal(two.newTurnStart, 0);
  assert.equal(two.historyBytes, encoded(two.history));
  assert.equal(two.history[0], history[8]); // the same objects
});

Deno.test("trim never separates a tool call from its results", () => {
  const history = sessionHistory();
  for (let max = 0; max <= encoded(history); max += 37) {
    const r = trimHistory(history, { turnStart: 8, maxBytes: max });
    if (r.kind !== "trimmed") continue;
    assert.equal(toolPairingProblem(r.history), undefined);
    assert.equal(r.history[0]!.role, "user");
  }
});

Deno.test("trim reports history_limit when the current turn alone is over", () => {
  const history = sessionHistory();
  const current = encoded(history.slice(8));
  const r = trimHistory(history, { turnStart: 8, maxBytes: current - 1 });
  assert.equal(r.kind, "history_limit");
  if (r.kind !== "history_limit") return;
  assert.equal(r.minBytes, current);
  assert.equal(r.historyBytes, encoded(history));
  assert.match(r.message, new RegExp(`${current} bytes, over max_history_bytes ${current - 1}`));
});

Deno.test("trim between turns may drop everything", () => {
  const history = sessionHistory();
  const r = trimHistory(history, { turnStart: history.length, maxBytes: 2 });
  assert.deepEqual(r, {
    kind: "trimmed",
    history: [],
    newTurnStart: 0,
    removedMessages: history.length,
    historyBytes: 2,
  });
});

Deno.test("trim rejects a turnStart outside the history and a negative max", () => {
  const history = sessionHistory();
  assert.throws(() => trimHistory(history, { turnStart: 12, maxBytes: 10 }), RangeError);
  assert.throws(() => trimHistory(history, { turnStart: 8, maxBytes: -1 }), RangeError);
});

Deno.test("trimmed history is always valid (property)", () => {
  const turnArb = fc.record({
    prompt: fc.string({ maxLength: 40 }),
    steps: fc.array(fc.array(fc.string({ maxLength: 80 }), { minLength: 1, maxLength: 3 }), {
      maxLength: 3,
    }),
  });
  fc.assert(
    fc.property(
      fc.array(turnArb, { minLength: 1, maxLength: 8 }),
      fc.integer({ min: -100, max: 1200 }).map((n) => n / 1000),
      (turns, maxFraction) => {
        const history: ChatMessage[] = [];
        let turnStart = 0;
        let id = 0;
        for (const turn of turns) {
          turnStart = history.length;
          history.push(user(turn.prompt));
          for (const outputs of turn.steps) {
            const ids = outputs.map(() => `id${id++}`);
            history.push(calls(...ids.map((i) => call(i, "grep"))));
            history.push(...outputs.map((o, i) => result(ids[i]!, o)));
          }
        }
        // A limit around the history's size, so that every outcome is common.
        const current = encoded(history.slice(turnStart));
        const maxBytes = Math.max(0, Math.floor(current + encoded(history) * maxFraction));
        const r = trimHistory(history, { turnStart, maxBytes });
        if (r.kind === "fits") {
          assert.ok(encoded(history) <= maxBytes);
        } else if (r.kind === "history_limit") {
          assert.ok(encoded(history.slice(turnStart)) > maxBytes);
        } else {
          assert.ok(encoded(history) > maxBytes);
          assert.equal(r.historyBytes, encoded(r.history));
          assert.ok(r.historyBytes <= maxBytes);
          assert.equal(toolPairingProblem(r.history), undefined);
          assert.equal(r.history[0]!.role, "user");
          assert.deepEqual(r.history, history.slice(r.removedMessages));
          assert.equal(r.newTurnStart, turnStart - r.removedMessages);
          let previous = r.removedMessages - 1;
          while (previous > 0 && history[previous]!.role !== "user") previous--;
          if (previous > 0) {
            assert.ok(encoded(history.slice(previous)) > maxBytes, "drops no more than needed");
          }
        }
      },
    ),
    { numRuns: 300 },
  );
});
