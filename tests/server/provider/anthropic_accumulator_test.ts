/** Unit tests of the Anthropic stream accumulator: blocks, thinking, usage, errors, caps. */
import { assert, assertEquals, assertMatch } from "../../support/assert.ts";
import { AnthropicAccumulator } from "../../../server/provider/anthropic_accumulator.ts";
import { DEFAULT_RESPONSE_LIMITS, type ResponseLimits } from "../../../server/provider/limits.ts";
import { accumulatorRunner } from "./accumulator_support.ts";

const { run, fails } = accumulatorRunner((limits) => new AnthropicAccumulator(limits));
const start = (index: number, content_block: unknown) => ({
  type: "content_block_start",
  index,
  content_block,
});
const delta = (index: number, d: unknown) => ({ type: "content_block_delta", index, delta: d });

Deno.test("thinking, text and tool_use blocks become reasoning, text and one call", () => {
  const { out, complete } = run([
    {
      type: "message_start",
      message: { usage: { input_tokens: 5, cache_creation_input_tokens: 2, output_tokens: 1 } },
    },
    start(0, { type: "thinking", thinking: "" }),
    delta(0, { type: "thinking_delta", thinking: "hmm" }),
    delta(0, { type: "signature_delta", signature: "SIG" }),
    start(1, { type: "text", text: "" }),
    delta(1, { type: "text_delta", text: "Hi" }),
    start(2, { type: "tool_use", id: "toolu_1", name: "glob", input: {} }),
    delta(2, { type: "input_json_delta", partial_json: '{"pattern"' }),
    delta(2, { type: "input_json_delta", partial_json: ':"*"}' }),
    { type: "ping" },
    { type: "message_delta", delta: { stop_reason: "tool_use" }, usage: { output_tokens: 9 } },
    { type: "message_stop" },
  ]);
  assert(complete);
  assertEquals(out.filter((e) => e.type === "reasoning" || e.type === "text"), [
    { type: "reasoning", text: "hmm" },
    { type: "text", text: "Hi" },
  ]);
  assertEquals(out.filter((e) => e.type === "usage").at(-1), {
    type: "usage",
    usage: { prompt_tokens: 7, completion_tokens: 9, cache_write_tokens: 2 },
  });
  const done = out.at(-1)!;
  assert(done.type === "done");
  assertEquals(done.message, {
    role: "assistant",
    content: "Hi",
    tool_calls: [{
      id: "toolu_1",
      type: "function",
      function: { name: "glob", arguments: '{"pattern":"*"}' },
    }],
    provider_data: {
      anthropic_thinking: [{ type: "thinking", thinking: "hmm", signature: "SIG" }],
    },
  });
  assertEquals(done.finishReason, "tool_use");
});

Deno.test("a final answer keeps no thinking, and a tool_use without input deltas has {}", () => {
  const answer = run([
    start(0, { type: "thinking", thinking: "x" }),
    start(1, { type: "text", text: "" }),
    delta(1, { type: "text_delta", text: "ok" }),
  ]);
  assertEquals(answer.out.at(-1), { type: "done", message: { role: "assistant", content: "ok" } });
  const call = run([start(0, { type: "tool_use", id: "t", name: "glob", input: {} })]);
  const done = call.out.at(-1)!;
  assert(done.type === "done");
  assertEquals(done.message.tool_calls![0]!.function.arguments, "{}");
});

Deno.test("redacted_thinking is kept verbatim for a tool-use turn", () => {
  const { out } = run([
    start(0, { type: "redacted_thinking", data: "ENCRYPTED" }),
    start(1, { type: "tool_use", id: "t", name: "glob", input: {} }),
  ]);
  const done = out.at(-1)!;
  assert(done.type === "done");
  assertEquals(done.message.provider_data, {
    anthropic_thinking: [{ type: "redacted_thinking", data: "ENCRYPTED" }],
  });
});

Deno.test("an error event mid-stream is a provider_error with its message", () => {
  const e = fails([{ type: "error", error: { type: "overloaded_error", message: "Overloaded" } }]);
  assertEquals([e.code, e.message], ["provider_error", "Provider reported an error: Overloaded"]);
});

const small: ResponseLimits = {
  ...DEFAULT_RESPONSE_LIMITS,
  maxTextBytes: 4,
  maxToolArgumentBytes: 4,
  maxToolCalls: 1,
};

Deno.test("the caps apply to text, thinking, arguments and call count with their codes", () => {
  assertMatch(
    fails([start(0, { type: "text" }), delta(0, { type: "text_delta", text: "12345" })], small)
      .message,
    /Assistant text exceeded 4/,
  );
  assertEquals(
    fails(
      [start(0, { type: "thinking" }), delta(0, { type: "thinking_delta", thinking: "12345" })],
      small,
    ).code,
    "response_limit",
  );
  const args = fails([
    start(0, { type: "tool_use", id: "a", name: "n" }),
    delta(0, { type: "input_json_delta", partial_json: "12345" }),
  ], small);
  assertEquals([args.code, args.message], ["tool_limit", "Tool call arguments exceeded 4 bytes"]);
  const calls = fails([
    start(0, { type: "tool_use", id: "a", name: "n" }),
    start(1, { type: "tool_use", id: "b", name: "n" }),
  ], small);
  assertEquals(calls.code, "tool_limit");
});

Deno.test("without message_stop the response is not complete", () => {
  assertEquals(run([start(0, { type: "text" })]).complete, false);
});
