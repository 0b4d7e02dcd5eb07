/** Unit tests of the Chat Completions chunk accumulator: text, reasoning, tool calls, caps. */
import { assert, assertEquals } from "../../support/assert.ts";
import { ChatAccumulator } from "../../../server/provider/chat_accumulator.ts";
import { DEFAULT_RESPONSE_LIMITS, type ResponseLimits } from "../../../server/provider/limits.ts";
import { ProviderError, type ProviderEvent } from "../../../server/provider/types.ts";

function run(chunks: unknown[], limits: ResponseLimits = DEFAULT_RESPONSE_LIMITS): ProviderEvent[] {
  const acc = new ChatAccumulator(limits);
  const out: ProviderEvent[] = [];
  for (const c of chunks) out.push(...acc.push(c));
  out.push(...acc.finish());
  return out;
}

function fails(chunks: unknown[], limits: ResponseLimits = DEFAULT_RESPONSE_LIMITS): ProviderError {
  try {
    run(chunks, limits);
  } catch (e) {
    assert(e instanceof ProviderError, `expected a ProviderError, got ${e}`);
    return e;
  }
  throw new Error("expected a failure");
}

const delta = (d: Record<string, unknown>, finish?: string) => ({
  choices: [{ index: 0, delta: d, ...(finish ? { finish_reason: finish } : {}) }],
});
const tc = (t: Record<string, unknown>) => delta({ tool_calls: [t] });
const done = (events: ProviderEvent[]) => {
  const last = events.at(-1)!;
  assert(last.type === "done");
  return last;
};
const calls = (events: ProviderEvent[]) =>
  events.flatMap((e) => e.type === "tool_call" ? [e.call] : []);

Deno.test("text deltas become text events and the done message holds their concatenation", () => {
  const events = run([
    delta({ role: "assistant", content: "" }),
    delta({ content: "Hel" }),
    delta({ content: "lo" }, "stop"),
  ]);
  assertEquals(events.filter((e) => e.type === "text"), [
    { type: "text", text: "Hel" },
    { type: "text", text: "lo" },
  ]);
  assertEquals(done(events), {
    type: "done",
    message: { role: "assistant", content: "Hello" },
    finishReason: "stop",
  });
});

Deno.test("indexed tool-call deltas assemble into calls in index order, before done", () => {
  const events = run([
    tc({ index: 0, id: "a", type: "function", function: { name: "bash", arguments: '{"comm' } }),
    tc({ index: 1, id: "b", type: "function", function: { name: "glob", arguments: "" } }),
    tc({ index: 0, function: { arguments: 'and":"ls"}' } }),
    tc({ index: 1, function: { arguments: '{"pattern":"*"}' } }),
    delta({}, "tool_calls"),
  ]);
  assertEquals(calls(events).map((c) => [c.id, c.function.name, c.function.arguments]), [
    ["a", "bash", '{"command":"ls"}'],
    ["b", "glob", '{"pattern":"*"}'],
  ]);
  assertEquals(events.at(-2)!.type, "tool_call");
  assertEquals(done(events).message.content, null);
});

Deno.test("a function name resent whole on every delta is not concatenated", () => {
  const events = run([
    tc({ index: 0, id: "a", function: { name: "bash", arguments: '{"command":' } }),
    tc({ index: 0, id: "a", function: { name: "bash", arguments: '"ls"}' } }),
    tc({ index: 0, function: { name: "bash" } }),
  ]);
  assertEquals(calls(events).map((c) => c.function.name), ["bash"]);
  assertEquals(calls(events)[0]!.function.arguments, '{"command":"ls"}');
});

Deno.test("a function name streamed in pieces is joined", () => {
  const events = run([
    tc({ index: 0, id: "a", function: { name: "read_" } }),
    tc({ index: 0, function: { name: "file", arguments: "{}" } }),
  ]);
  assertEquals(calls(events)[0]!.function.name, "read_file");
});

Deno.test("arguments over several chunks without index stay one call; a new id starts another", () => {
  const events = run([
    tc({ id: "g1", type: "function", function: { name: "bash", arguments: '{"command"' } }),
    tc({ function: { arguments: ':"ls"}' } }),
    tc({ id: "g2", type: "function", function: { name: "glob", arguments: '{"pattern":"*"}' } }),
  ]);
  assertEquals(calls(events).map((c) => [c.id, c.function.name, c.function.arguments]), [
    ["g1", "bash", '{"command":"ls"}'],
    ["g2", "glob", '{"pattern":"*"}'],
  ]);
});

Deno.test("missing and repeated call ids are made unique so each result pairs with its call", () => {
  const events = run([
    tc({ index: 0, function: { name: "a", arguments: "{}" } }),
    tc({ index: 1, id: "same", function: { name: "b", arguments: "{}" } }),
    tc({ index: 2, id: "same", function: { name: "c", arguments: "{}" } }),
  ]);
  assertEquals(calls(events).map((c) => c.id), ["call_0", "same", "same_2"]);
});

Deno.test("arguments sent as an object are taken as their JSON text", () => {
  const events = run([
    tc({ index: 0, id: "a", function: { name: "glob", arguments: { pattern: "*" } } }),
  ]);
  assertEquals(calls(events)[0]!.function.arguments, '{"pattern":"*"}');
});

Deno.test("Gemini's extra_content thought signature is kept on its call", () => {
  const extra = { google: { thought_signature: "sig==" } };
  const events = run([
    tc({ index: 0, id: "a", function: { name: "bash", arguments: "{}" }, extra_content: extra }),
  ]);
  assertEquals(calls(events)[0]!.extra_content, extra);
});

Deno.test("reasoning_content streams as reasoning and is kept on a tool-call message only", () => {
  const withCall = run([
    delta({ reasoning_content: "Think" }),
    delta({ reasoning_content: "ing." }),
    tc({ index: 0, id: "a", function: { name: "bash", arguments: "{}" } }),
  ]);
  assertEquals(
    withCall.filter((e) => e.type === "reasoning").map((e) => e.type === "reasoning" && e.text),
    ["Think", "ing."],
  );
  assertEquals(done(withCall).message.reasoning_content, "Thinking.");
  const answer = run([delta({ reasoning_content: "Hmm" }), delta({ content: "Hi" }, "stop")]);
  assertEquals(done(answer).message, { role: "assistant", content: "Hi" });
});

Deno.test("reasoning under the name reasoning streams but is not sent back", () => {
  const events = run([
    delta({ reasoning: "Plan" }),
    tc({ index: 0, id: "a", function: { name: "bash", arguments: "{}" } }),
  ]);
  assertEquals(events[0], { type: "reasoning", text: "Plan" });
  assertEquals(done(events).message.reasoning_content, undefined);
});

Deno.test("reasoning is never assistant text", () => {
  const events = run([
    delta({ reasoning_content: "secret plan" }),
    delta({ content: "ok" }, "stop"),
  ]);
  assertEquals(done(events).message.content, "ok");
  assertEquals(events.filter((e) => e.type === "text").length, 1);
});

Deno.test("usage at the top level and Groq's x_groq.usage both become usage events", () => {
  const top = run([{
    choices: [],
    usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 },
  }]);
  assertEquals(top[0], { type: "usage", usage: { prompt_tokens: 3, completion_tokens: 4 } });
  const groq = run([{
    choices: [delta({}, "stop").choices[0]],
    x_groq: { id: "r", usage: { prompt_tokens: 5, completion_tokens: 6 } },
  }]);
  assertEquals(groq[0], { type: "usage", usage: { prompt_tokens: 5, completion_tokens: 6 } });
});

Deno.test("a usage object without token counts reports nothing", () => {
  assertEquals(
    run([{ choices: [], usage: { total_tokens: 9 } }]).filter((e) => e.type === "usage"),
    [],
  );
  assertEquals(
    run([{ choices: [], usage: { prompt_tokens: -1 } }]).filter((e) => e.type === "usage"),
    [],
  );
});

Deno.test("an error chunk of either shape is a provider_error with the provider's message", () => {
  const a = fails([delta({ content: "par" }), { error: { message: "upstream died" } }]);
  assertEquals([a.code, a.message], [
    "provider_error",
    "Provider reported an error: upstream died",
  ]);
  const b = fails([{
    object: "error",
    message: "CUDA out of memory",
    type: "InternalServerError",
    code: 500,
  }]);
  assertEquals([b.code, b.message], [
    "provider_error",
    "Provider reported an error: CUDA out of memory",
  ]);
  const c = fails([{ error: "plain words" }]);
  assertEquals(c.message, "Provider reported an error: plain words");
});

const small: ResponseLimits = {
  ...DEFAULT_RESPONSE_LIMITS,
  maxTextBytes: 10,
  maxToolArgumentBytes: 10,
  maxToolCalls: 2,
};

Deno.test("assistant text at the cap passes and one byte over is response_limit", () => {
  assertEquals(done(run([delta({ content: "0123456789" })], small)).message.content, "0123456789");
  const e = fails([delta({ content: "01234" }), delta({ content: "567890" })], small);
  assertEquals([e.code, e.message], ["response_limit", "Assistant text exceeded 10 bytes"]);
});

Deno.test("reasoning text over the text cap is response_limit", () => {
  assertEquals(fails([delta({ reasoning_content: "x".repeat(11) })], small).code, "response_limit");
});

Deno.test("tool arguments at the cap pass and one byte over is tool_limit", () => {
  const at = run(
    [tc({ index: 0, id: "a", function: { name: "n", arguments: "0123456789" } })],
    small,
  );
  assertEquals(calls(at)[0]!.function.arguments.length, 10);
  const e = fails([
    tc({ index: 0, id: "a", function: { name: "n", arguments: "012345" } }),
    tc({ index: 0, function: { arguments: "67890" } }),
  ], small);
  assertEquals([e.code, e.message], ["tool_limit", "Tool call arguments exceeded 10 bytes"]);
});

Deno.test("one tool call more than the cap is tool_limit", () => {
  const two = [0, 1].map((i) =>
    tc({ index: i, id: `c${i}`, function: { name: "n", arguments: "{}" } })
  );
  assertEquals(calls(run(two, small)).length, 2);
  const e = fails([...two, tc({ index: 2, id: "c2", function: { name: "n" } })], small);
  assertEquals([e.code, e.message], [
    "tool_limit",
    "Provider requested more than 2 tool calls in one response",
  ]);
});

Deno.test("an extra_content over the argument cap is tool_limit", () => {
  const e = fails([
    tc({ index: 0, id: "a", function: { name: "n" }, extra_content: { g: "x".repeat(20) } }),
  ], small);
  assertEquals(e.code, "tool_limit");
});

Deno.test("chunks that are not objects and choices without a delta are ignored", () => {
  const events = run([
    null,
    3,
    "x",
    [],
    { choices: [{}] },
    { choices: "no" },
    delta({ content: "a" }, "stop"),
  ]);
  assertEquals(done(events).message.content, "a");
});

Deno.test("any sequence of JSON chunks either assembles or fails with a ProviderError (fast-check)", async () => {
  const fc = (await import("fast-check")).default;
  const small: ResponseLimits = {
    ...DEFAULT_RESPONSE_LIMITS,
    maxTextBytes: 64,
    maxToolArgumentBytes: 64,
    maxToolCalls: 3,
  };
  const value = fc.oneof(
    fc.string({ maxLength: 20 }),
    fc.integer(),
    fc.constant(null),
    fc.boolean(),
  );
  const toolCall = fc.record({
    index: fc.oneof(fc.nat(4), value),
    id: fc.oneof(fc.constantFrom("a", "b", ""), value),
    function: fc.oneof(fc.record({ name: value, arguments: value }, { requiredKeys: [] }), value),
    extra_content: fc.oneof(fc.dictionary(fc.string({ maxLength: 3 }), value), value),
  }, { requiredKeys: [] });
  const deltaArb = fc.record({
    content: fc.oneof(
      value,
      fc.array(
        fc.record({ type: fc.constantFrom("text", "thinking"), text: value, thinking: value }),
      ),
    ),
    reasoning_content: value,
    reasoning: value,
    tool_calls: fc.oneof(fc.array(toolCall, { maxLength: 3 }), value),
  }, { requiredKeys: [] });
  const chunkArb = fc.oneof(
    fc.record({
      choices: fc.array(
        fc.record({ delta: deltaArb, finish_reason: value }, { requiredKeys: [] }),
        { maxLength: 2 },
      ),
    }),
    fc.record({
      usage: fc.dictionary(fc.constantFrom("prompt_tokens", "completion_tokens"), value),
    }),
    fc.anything(),
  );
  fc.assert(
    fc.property(fc.array(chunkArb, { maxLength: 12 }), (chunks) => {
      try {
        const events = run(chunks, small);
        const last = events.at(-1)!;
        assert(last.type === "done");
        for (const c of last.message.tool_calls ?? []) {
          assert(typeof c.function.arguments === "string");
        }
        const ids = (last.message.tool_calls ?? []).map((c) => c.id);
        assertEquals(new Set(ids).size, ids.length, "ids are unique");
      } catch (e) {
        if (!(e instanceof ProviderError)) throw e;
      }
    }),
    { numRuns: 1000 },
  );
});

Deno.test("an inline <think> block streams as reasoning and never reaches the answer", () => {
  const events = run([
    delta({ content: "<think>plan it" }),
    delta({ content: "</think>\n\nDone." }, "stop"),
  ]);
  assertEquals(
    events.filter((e) => e.type === "reasoning").map((e) => e.type === "reasoning" && e.text).join(
      "",
    ),
    "plan it",
  );
  assertEquals(done(events).message, { role: "assistant", content: "Done." });
});
