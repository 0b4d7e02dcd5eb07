import assert from "node:assert/strict";
import fc from "fast-check";
import { planCompaction } from "../../../server/context/compaction.ts";
import {
  COMPACTION_MARKER,
  CompactionSummary,
  isCompactionRecord,
  RECORD_MAX_BYTES,
} from "../../../server/context/record.ts";
import { utf8Length } from "../../../server/utf8.ts";
import { TokenCounter } from "../../../server/context/tokens.ts";
import type { ChatMessage } from "../../../server/provider/types.ts";
import { call, calls, charCount, result, say, toolPairingProblem, user } from "./_helpers.ts";

/** Three earlier turns (each about 1000 tokens with charCount) and a current turn. */
function sessionHistory(): ChatMessage[] {
  return [
    user("turn one"),
    calls(call("a1", "read_file", '{"path":"a.ts"}'), call("a2", "glob", '{"pattern":"*"}')),
    result("a1", "x".repeat(500)),
    result("a2", "y".repeat(400)),
    say("Read them."),
    user("turn two"),
    calls(call("b1", "bash", '{"command":"deno test"}')),
    result("b1", "z".repeat(900)),
    say("Tests pass."),
    user("turn three"),
    say("w".repeat(1000)),
    user("current turn"), // index 11
    calls(call("c1", "bash", '{"command":"ls"}')),
    result("c1", "main.ts"),
  ];
}

const total = (h: readonly ChatMessage[]) => h.reduce((n, m) => n + charCount(m), 0);

Deno.test("compaction reports fits when the prompt is within maxTokens", () => {
  const history = sessionHistory();
  const tokens = total(history) + 100;
  const plan = planCompaction(history, {
    turnStart: 11,
    countMessage: charCount,
    fixedTokens: 100,
    maxTokens: tokens, // inclusive
  });
  assert.deepEqual(plan, { kind: "fits", tokens });
});

Deno.test("compaction removes the oldest turns until the target and no more", () => {
  const history = sessionHistory();
  const fixed = 100;
  const maxTokens = total(history) + fixed - 1; // one over
  // Target reachable by dropping turn one (~1000 tokens) but not without dropping it.
  const targetTokens = total(history.slice(5)) + fixed + 800;
  const plan = planCompaction(history, {
    turnStart: 11,
    countMessage: charCount,
    fixedTokens: fixed,
    maxTokens,
    targetTokens,
  });
  assert.equal(plan.kind, "compacted");
  if (plan.kind !== "compacted") return;
  assert.equal(plan.removedMessages, 5);
  assert.equal(plan.history.length, 1 + history.length - 5);
  assert.ok(isCompactionRecord(plan.history[0]!));
  assert.deepEqual(plan.history.slice(1), history.slice(5));
  assert.equal(plan.beforeTokens, total(history) + fixed);
  assert.equal(plan.afterTokens, total(plan.history) + fixed);
  assert.ok(plan.afterTokens <= targetTokens);
});

Deno.test("compaction never separates a tool call from its results", () => {
  const history = sessionHistory();
  // Every target forces a different cut; each must land on a user message.
  for (let target = 0; target <= total(history) + 100; target += 50) {
    const plan = planCompaction(history, {
      turnStart: 11,
      countMessage: charCount,
      fixedTokens: 0,
      maxTokens: total(history) - 1,
      targetTokens: Math.min(target, total(history) - 1),
    });
    if (plan.kind !== "compacted") continue;
    assert.equal(toolPairingProblem(plan.history), undefined);
    const firstKept = plan.history[1]!;
    assert.equal(firstKept.role, "user");
    assert.ok([0, 5, 9, 11].includes(plan.removedMessages), String(plan.removedMessages));
  }
});

Deno.test("compaction keeps the current turn", () => {
  const history = sessionHistory();
  const plan = planCompaction(history, {
    turnStart: 11,
    countMessage: charCount,
    fixedTokens: 0,
    maxTokens: total(history.slice(11)) + 600, // record included
    targetTokens: 0, // unreachable: remove all that may go
  });
  assert.equal(plan.kind, "compacted");
  if (plan.kind !== "compacted") return;
  assert.equal(plan.removedMessages, 11);
  assert.equal(plan.newTurnStart, 1);
  assert.equal(plan.history.length, 4);
  for (let i = 0; i < 3; i++) assert.equal(plan.history[1 + i], history[11 + i]); // same objects
});

Deno.test("compaction fails with context_limit when the current turn alone does not fit", () => {
  const history = sessionHistory();
  const current = total(history.slice(11));
  const plan = planCompaction(history, {
    turnStart: 11,
    countMessage: charCount,
    fixedTokens: 100,
    maxTokens: current + 99,
  });
  assert.equal(plan.kind, "context_limit");
  if (plan.kind !== "context_limit") return;
  assert.equal(plan.minTokens, current + 100);
  assert.equal(plan.beforeTokens, total(history) + 100);
  assert.match(plan.message, /current turn/);
  assert.match(plan.message, new RegExp(`${current + 100} tokens`));
  // Nothing before the current turn: the same.
  const alone = planCompaction(history.slice(11), {
    turnStart: 0,
    countMessage: charCount,
    fixedTokens: 100,
    maxTokens: current + 99,
  });
  assert.equal(alone.kind, "context_limit");
});

Deno.test("compaction leaves the record out rather than fail when only the record does not fit", () => {
  const history = sessionHistory();
  const maxTokens = total(history.slice(11)) + 10; // room for the turn, not for a record
  const plan = planCompaction(history, {
    turnStart: 11,
    countMessage: charCount,
    fixedTokens: 10,
    maxTokens,
  });
  assert.equal(plan.kind, "compacted");
  if (plan.kind !== "compacted") return;
  assert.deepEqual(plan.history, history.slice(11));
  assert.equal(plan.newTurnStart, 0);
  assert.equal(plan.afterTokens, maxTokens);
});

Deno.test("compaction record lists the dropped prompts and tool names", () => {
  const history = sessionHistory();
  const longPrompt = "Please " + "really ".repeat(60) + "fix it";
  history[5] = user(longPrompt);
  const plan = planCompaction(history, {
    turnStart: 11,
    countMessage: charCount,
    fixedTokens: 0,
    maxTokens: 1,
    targetTokens: 0,
  });
  // maxTokens 1 cannot hold the current turn: plan with a roomy max instead.
  assert.equal(plan.kind, "context_limit");
  const done = planCompaction(history, {
    turnStart: 11,
    countMessage: charCount,
    fixedTokens: 0,
    maxTokens: total(history.slice(11)) + 1000,
    targetTokens: 0,
  });
  assert.equal(done.kind, "compacted");
  if (done.kind !== "compacted") return;
  const record = done.history[0]!;
  assert.equal(record.role, "user");
  const text = record.content ?? "";
  assert.ok(text.startsWith(COMPACTION_MARKER + "\n"), text);
  assert.match(text, /\(11 messages, 3 turns\)/);
  assert.match(text, /^- "turn one"$/m);
  assert.match(text, /^- "turn three"$/m);
  assert.ok(text.indexOf('"turn one"') < text.indexOf('"turn three"'), "oldest first");
  const listed = /^- "(Please really[^"]*)"$/m.exec(text);
  assert.ok(listed, text);
  assert.ok(listed[1]!.length <= 200 && listed[1]!.endsWith("…"), listed[1]);
  assert.match(text, /^Tool calls in the removed messages: \{"bash":1,"glob":1,"read_file":1\}$/m);
  assert.doesNotMatch(text, /current turn/);
});

Deno.test("compaction record merges an earlier record", () => {
  const history = sessionHistory();
  const first = planCompaction(history, {
    turnStart: 11,
    countMessage: charCount,
    fixedTokens: 0,
    maxTokens: total(history) - 1,
    targetTokens: total(history.slice(5)) + 700, // room for the record
  });
  assert.equal(first.kind, "compacted");
  if (first.kind !== "compacted") return;
  assert.equal(first.removedMessages, 5);
  // The turn completes, a new one starts, and compaction runs again.
  const grown = [...first.history, say("Done."), user("next turn")];
  const turnStart = grown.length - 1;
  const second = planCompaction(grown, {
    turnStart,
    countMessage: charCount,
    fixedTokens: 0,
    maxTokens: total(grown) - 1,
    targetTokens: 0,
  });
  assert.equal(second.kind, "compacted");
  if (second.kind !== "compacted") return;
  assert.equal(second.removedMessages, turnStart);
  const text = second.history[0]!.content ?? "";
  assert.equal(text.split(COMPACTION_MARKER).length, 2, "one marker");
  assert.match(text, /\(15 messages, 4 turns\)/); // 5 + 10 conversation messages
  for (const p of ["turn one", "turn two", "turn three", "current turn"]) {
    assert.match(text, new RegExp(`^- "${p}"$`, "m"));
  }
  assert.match(text, /\{"bash":2,"glob":1,"read_file":1\}/);
});

Deno.test("compaction record stays within 2 KiB", () => {
  const history: ChatMessage[] = [];
  for (let i = 0; i < 300; i++) {
    history.push(user(`prompt ${i} ` + "é€😀\u0001".repeat(80)));
    history.push(calls(call(`c${i}`, `tool_${i % 97}_${"n".repeat(40)}`)));
    history.push(result(`c${i}`, "ok"));
  }
  history.push(user("now"));
  const plan = planCompaction(history, {
    turnStart: history.length - 1,
    countMessage: charCount,
    fixedTokens: 0,
    maxTokens: 10_000,
    targetTokens: 0,
  });
  assert.equal(plan.kind, "compacted");
  if (plan.kind !== "compacted") return;
  const text = plan.history[0]!.content ?? "";
  assert.ok(utf8Length(text) <= RECORD_MAX_BYTES, String(utf8Length(text)));
  assert.match(text, /\(900 messages, 300 turns\)/);
  assert.match(text, /older not listed/);
  assert.match(text, /"\(other\)":\d+/);
  assert.match(text, /^- "prompt 299 /m); // the newest are kept
});

Deno.test("compaction does not mutate its input and is deterministic", () => {
  const history = sessionHistory();
  const copy = structuredClone(history);
  const options = {
    turnStart: 11,
    countMessage: charCount,
    fixedTokens: 0,
    maxTokens: total(history) - 1,
    targetTokens: 0,
  };
  const a = planCompaction(history, options);
  const b = planCompaction(history, options);
  assert.deepEqual(history, copy);
  assert.deepEqual(a, b);
});

Deno.test("compaction works with a real token counter", async () => {
  const counter = await TokenCounter.create("gpt-4.1-mini");
  const history = sessionHistory();
  const before = counter.countPrompt(history, 0, 0);
  const plan = planCompaction(history, {
    turnStart: 11,
    countMessage: counter.countMessage,
    fixedTokens: 200,
    maxTokens: before,
  });
  assert.equal(plan.kind, "compacted");
  if (plan.kind !== "compacted") return;
  assert.equal(plan.afterTokens, counter.countPrompt(plan.history, 0, 0) - 3 + 200);
});

Deno.test("compaction rejects a turnStart outside the history and a target over the max", () => {
  const history = sessionHistory();
  const base = { countMessage: charCount, fixedTokens: 0, maxTokens: 10 };
  assert.throws(() => planCompaction(history, { ...base, turnStart: 15 }), RangeError);
  assert.throws(() => planCompaction(history, { ...base, turnStart: -1 }), RangeError);
  assert.throws(() => planCompaction(history, { ...base, turnStart: 1.5 }), RangeError);
  assert.throws(
    () => planCompaction(history, { ...base, turnStart: 11, targetTokens: 11 }),
    RangeError,
  );
});

// --- property test ---------------------------------------------------------------------------

const textArb = fc.string({ maxLength: 60 });

/** One step of a turn: an assistant message with calls and their results, maybe reordered. */
const stepArb = fc.record({
  names: fc.array(fc.constantFrom("bash", "read_file", "glob", "grep"), {
    minLength: 1,
    maxLength: 3,
  }),
  // Tool outputs are where the tokens go: some short, some long.
  outputs: fc.array(
    fc.oneof(textArb, fc.nat({ max: 2000 }).map((n) => "o".repeat(n))),
    { minLength: 3, maxLength: 3 },
  ),
  reversed: fc.boolean(),
});

const turnArb = fc.record({
  prompt: textArb,
  steps: fc.array(stepArb, { maxLength: 3 }),
  answer: fc.option(textArb, { nil: undefined }),
});

/** A history of whole turns with unique call ids; the last turn is the current one. */
const historyArb = fc.array(turnArb, { minLength: 1, maxLength: 8 }).map((turns) => {
  const history: ChatMessage[] = [];
  let turnStart = 0;
  let id = 0;
  for (const turn of turns) {
    turnStart = history.length;
    history.push(user(turn.prompt));
    for (const step of turn.steps) {
      const ids = step.names.map(() => `call_${id++}`);
      history.push(calls(...step.names.map((name, i) => call(ids[i]!, name, `{"n":${i}}`))));
      const results = ids.map((cid, i) => result(cid, step.outputs[i] ?? ""));
      history.push(...(step.reversed ? results.reverse() : results));
    }
    if (turn.answer !== undefined) history.push(say(turn.answer));
  }
  return { history, turnStart };
});

Deno.test("compacted history is always valid (property)", () => {
  fc.assert(
    fc.property(
      historyArb,
      fc.nat({ max: 300 }),
      // fc.double is far from uniform (most doubles are tiny): use thousandths.
      fc.integer({ min: -100, max: 1200 }).map((n) => n / 1000),
      fc.integer({ min: 0, max: 1000 }).map((n) => n / 1000),
      ({ history, turnStart }, fixedTokens, maxFraction, targetFraction) => {
        const copy = structuredClone(history);
        // Limits around the history's size, so that every outcome is common.
        const current = fixedTokens + total(history.slice(turnStart));
        const earlier = total(history.slice(0, turnStart));
        const maxTokens = Math.max(0, Math.floor(current + (earlier + 300) * maxFraction));
        const low = current - 300;
        const targetTokens = Math.min(
          maxTokens,
          Math.max(0, Math.floor(low + (maxTokens - low) * targetFraction)),
        );
        const plan = planCompaction(history, {
          turnStart,
          countMessage: charCount,
          fixedTokens,
          maxTokens,
          targetTokens,
        });
        assert.deepEqual(history, copy, "input unchanged");
        const before = fixedTokens + total(history);
        const currentTurn = fixedTokens + total(history.slice(turnStart));
        if (plan.kind === "fits") {
          assert.ok(before <= maxTokens);
          return;
        }
        assert.ok(before > maxTokens);
        if (plan.kind === "context_limit") {
          assert.ok(currentTurn > maxTokens, "fails only when the current turn does not fit");
          return;
        }
        const h = plan.history;
        assert.equal(toolPairingProblem(h), undefined, toolPairingProblem(h));
        assert.equal(h[0]!.role, "user");
        assert.equal(h.length - plan.newTurnStart, history.length - turnStart);
        for (let i = 0; i < history.length - turnStart; i++) {
          assert.equal(h[plan.newTurnStart + i], history[turnStart + i], "current turn intact");
        }
        const hasRecord = isCompactionRecord(h[0]!) && h[0] !== history[plan.removedMessages];
        assert.equal(plan.removedMessages + h.length - (hasRecord ? 1 : 0), history.length);
        assert.ok(plan.removedMessages > 0 && plan.removedMessages <= turnStart);
        assert.equal(plan.afterTokens, fixedTokens + total(h));
        assert.ok(plan.afterTokens <= maxTokens);
        const keptStart = hasRecord ? 1 : 0;
        if (h.length > keptStart) {
          assert.equal(h[keptStart]!.role, "user", "kept part starts a turn");
        }
        // Minimal: the previous cut (the last turn removed) would have missed the target.
        let previous = plan.removedMessages - 1;
        while (previous > 0 && history[previous]!.role !== "user") previous--;
        if (previous > 0) {
          const summary = new CompactionSummary();
          for (const m of history.slice(0, previous)) summary.add(m);
          const wouldBe = fixedTokens + total(history.slice(previous)) +
            charCount(summary.toMessage());
          assert.ok(wouldBe > targetTokens, "removes no more turns than needed");
        }
        if (plan.afterTokens > targetTokens) {
          assert.equal(plan.removedMessages, turnStart, "short of the target only when all went");
        }
        if (hasRecord) assert.ok(utf8Length(h[0]!.content ?? "") <= RECORD_MAX_BYTES);
      },
    ),
    { numRuns: 500 },
  );
});
