import assert from "node:assert/strict";
import fc from "fast-check";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import {
  estimateTokens,
  MAX_RATIO,
  MESSAGE_OVERHEAD_TOKENS,
  MIN_RATIO,
  REPLY_PRIMING_TOKENS,
  TokenCounter,
  TOOL_CALL_OVERHEAD_TOKENS,
  usesO200k,
} from "../../../server/context/tokens.ts";
import type { ToolSpec } from "../../../server/provider/types.ts";
import { call, calls, user } from "./_helpers.ts";

Deno.test("token counter picks o200k_base for OpenAI models and estimates the others", async () => {
  for (const model of ["gpt-4o", "gpt-4o-mini", "gpt-4.1-mini", "gpt-5", "o3-mini", "o4-mini"]) {
    assert.equal(usesO200k(model), true, model);
  }
  for (const model of ["chatgpt-4o-latest", "openai/gpt-4.1", "gpt-oss:20b", "GPT-4O"]) {
    assert.equal(usesO200k(model), true, model);
  }
  for (const model of ["gpt-4", "gpt-3.5-turbo", "llama3.1:8b", "qwen2.5-coder", "o1x", ""]) {
    assert.equal(usesO200k(model), false, model);
  }
  assert.equal((await TokenCounter.create("gpt-4.1-mini")).tokenizer, "o200k_base");
  assert.equal((await TokenCounter.create("llama3.1:8b")).tokenizer, "estimate");
  assert.equal(new TokenCounter("gpt-4o").tokenizer, "estimate");
  assert.equal(new TokenCounter("x", { countText: (t) => t.length }).tokenizer, "custom");
});

Deno.test("o200k counts match gpt-tokenizer", async () => {
  const counter = await TokenCounter.create("gpt-4o");
  const texts = ["hello world", 'fn main() {\n    println!("hi");\n}\n', "日本語のテキスト", ""];
  for (const text of texts) assert.equal(counter.countText(text), countTokens(text), text);
});

Deno.test("o200k counts special-token text instead of rejecting it", async () => {
  const counter = await TokenCounter.create("gpt-4o");
  assert.ok(counter.countText("before <|endoftext|> after <|im_start|>") > 0);
});

Deno.test("o200k counts a long run without whitespace quickly and closely", async () => {
  const counter = await TokenCounter.create("gpt-4o");
  const run = "a".repeat(100_000); // unbounded BPE takes several seconds on this
  const start = performance.now();
  const n = counter.countText(run);
  assert.ok(performance.now() - start < 1500, `took ${performance.now() - start} ms`);
  const exact = countTokens("a".repeat(4096));
  const approx = counter.countText("a".repeat(4096));
  assert.ok(Math.abs(approx - exact) <= 8, `${approx} vs ${exact}`);
  assert.ok(n > 0);
});

Deno.test("estimate counts a quarter token per ASCII byte, one per digit, half per other byte", () => {
  assert.equal(estimateTokens(""), 0);
  assert.equal(estimateTokens("abcd"), 1);
  assert.equal(estimateTokens("abcde"), 2);
  assert.equal(estimateTokens("é€"), 3); // (2 + 3 bytes) / 2, rounded up
  assert.equal(estimateTokens("1 2 3 4"), 5); // 4 digits, 3 spaces
  assert.equal(estimateTokens("\u{1F600}"), 2); // 4 bytes
  assert.equal(new TokenCounter("local").countText("x".repeat(400)), 100);
});

Deno.test("the estimate of ASCII text (counted by regex) agrees with the per-character count", () => {
  // The rule by hand, one character at a time: what the estimate of any text means.
  const byHand = (text: string) => {
    let quarter = 0;
    let whole = 0;
    for (const ch of text) {
      if (ch >= "0" && ch <= "9") whole++;
      else quarter++;
    }
    return Math.ceil(quarter / 4 + whole);
  };
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
  for (let i = 0; i < 300; i++) {
    const length = next() % 200;
    let text = "";
    for (let j = 0; j < length; j++) text += String.fromCharCode(next() % 128);
    assert.equal(estimateTokens(text), byHand(text), JSON.stringify(text));
  }
  // The edges of the ASCII test: \x7f is ASCII, \x80 is not (two bytes: one token).
  assert.equal(estimateTokens("\x7f\x7f\x7f\x7f"), 1);
  assert.equal(estimateTokens("\x80"), 1);
  assert.equal(estimateTokens("12ab\x80"), 4); // 2 digits + 2 ASCII / 4 + 2 bytes / 2, rounded up
});

Deno.test("token counter caches per-message counts", () => {
  const seen: string[] = [];
  const counter = new TokenCounter("local", {
    countText: (t) => {
      seen.push(t);
      return t.length;
    },
  });
  const a = user("first");
  const b = user("second");
  assert.equal(counter.countPrompt([a], 0, 0), 4 + 5 + REPLY_PRIMING_TOKENS);
  assert.equal(counter.countPrompt([a, b], 0, 0), 4 + 5 + 4 + 6 + REPLY_PRIMING_TOKENS);
  assert.equal(counter.countMessage(a), 9);
  assert.deepEqual(seen, ["first", "second"]);
  // An equal but different object is counted on its own.
  counter.countMessage(user("first"));
  assert.deepEqual(seen, ["first", "second", "first"]);
});

Deno.test("countMessage adds per-message overhead and tool call names and arguments", () => {
  const counter = new TokenCounter("local", { countText: (t) => t.length });
  assert.equal(counter.countMessage(user("hello")), MESSAGE_OVERHEAD_TOKENS + 5);
  const m = calls(call("c1", "bash", '{"command":"ls"}'), call("c2", "glob", "{}"));
  assert.equal(
    counter.countMessage(m),
    MESSAGE_OVERHEAD_TOKENS + 2 * TOOL_CALL_OVERHEAD_TOKENS + 4 + 16 + 4 + 2,
  );
  assert.equal(counter.countMessage({ role: "tool", tool_call_id: "c1", content: "ok" }), 4 + 2);
});

Deno.test("countPrompt sums messages, system and tools tokens", () => {
  const counter = new TokenCounter("local", { countText: (t) => t.length });
  const tools: ToolSpec[] = [{
    type: "function",
    function: { name: "glob", description: "Find files", parameters: { type: "object" } },
  }];
  assert.equal(counter.countTools(tools), JSON.stringify(tools).length);
  assert.equal(counter.countTools([]), 0);
  assert.equal(
    counter.countPrompt([user("ab"), user("cde")], 100, 50),
    4 + 2 + 4 + 3 + 100 + 50 + REPLY_PRIMING_TOKENS,
  );
});

Deno.test("calibration scales estimates toward reported prompt tokens", () => {
  const counter = new TokenCounter("local", { countText: (t) => t.length });
  const history = [user("x".repeat(996))]; // 1000 tokens with the overhead
  assert.equal(counter.countMessage(history[0]!), 1000);
  let previous = 1000;
  for (let i = 0; i < 8; i++) {
    const estimate = counter.countPrompt(history, 0, 0);
    counter.calibrate(estimate, 1600 + REPLY_PRIMING_TOKENS);
    const next = counter.countMessage(history[0]!);
    assert.ok(next > previous || next >= 1600, `${next} after ${previous}`);
    assert.ok(next <= 1600 * 1.01 + 1);
    previous = next;
  }
  assert.ok(Math.abs(counter.countMessage(history[0]!) - 1600) <= 20);
  assert.ok(Math.abs(counter.ratio - 1.6) < 0.03, String(counter.ratio));
  // And back down, but never below the raw estimate: the estimate errs safe.
  for (let i = 0; i < 12; i++) counter.calibrate(counter.countPrompt(history, 0, 0), 800);
  assert.equal(counter.ratio, 1);
  assert.equal(counter.countMessage(history[0]!), 1000);
});

Deno.test("calibration takes a server count above the estimate at once", () => {
  const counter = new TokenCounter("local", { countText: (t) => t.length });
  const history = [user("x".repeat(996))];
  counter.calibrate(counter.countPrompt(history, 0, 0), 1500);
  // The next estimate of the same prompt is at least what the server counted.
  assert.ok(counter.countPrompt(history, 0, 0) >= 1500, String(counter.countPrompt(history, 0, 0)));
});

Deno.test("calibration is bounded and ignores nonsense reports", () => {
  const counter = new TokenCounter("local");
  for (let i = 0; i < 20; i++) counter.calibrate(100, 100_000);
  assert.equal(counter.ratio, MAX_RATIO);
  for (let i = 0; i < 20; i++) counter.calibrate(100, 1);
  assert.equal(counter.ratio, MIN_RATIO);
  const ratio = counter.ratio;
  for (const [e, r] of [[0, 10], [10, 0], [-1, 10], [NaN, 10], [10, Infinity]] as const) {
    assert.equal(counter.calibrate(e, r), ratio);
  }
});

Deno.test("the upper-bound counter never counts fewer tokens than o200k at any calibration (fast-check)", async () => {
  const exact = await TokenCounter.create("gpt-4.1-mini");
  const bound = TokenCounter.upperBound("gpt-4.1-mini");
  assert.equal(bound.tokenizer, "upper_bound");
  // Drive the real counter's ratio to its ceiling: the bound must still hold there.
  for (let i = 0; i < 20; i++) exact.calibrate(100, 100_000);
  assert.equal(exact.ratio, MAX_RATIO);
  const text = fc.oneof(
    fc.string({ unit: "grapheme", maxLength: 300 }),
    fc.string({ unit: "binary", maxLength: 300 }),
    fc.constantFrom("<|endoftext|>", "x".repeat(2000), "\u{1F600}".repeat(100), " \n\t "),
  );
  fc.assert(
    fc.property(text, text, (content, args) => {
      const m = { role: "assistant" as const, content, tool_calls: [call("c1", "bash", args)] };
      assert.ok(bound.countText(content) >= exact.countText(content));
      assert.ok(bound.countMessage(m) >= exact.countMessage(m));
    }),
    { numRuns: 300 },
  );
});

Deno.test("the upper-bound counter ignores calibration", () => {
  const bound = TokenCounter.upperBound("gpt-4o");
  assert.equal(bound.ratio, MAX_RATIO);
  assert.equal(bound.calibrate(1000, 10), MAX_RATIO);
  assert.equal(bound.countText("abcd"), 4 * MAX_RATIO);
});
