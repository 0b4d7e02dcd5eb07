/** Unit tests of the Responses stream accumulator: items, reasoning, ends, errors, caps. */
import { assert, assertEquals } from "../../support/assert.ts";
import { ResponsesAccumulator } from "../../../server/provider/responses_accumulator.ts";
import { DEFAULT_RESPONSE_LIMITS, type ResponseLimits } from "../../../server/provider/limits.ts";
import { accumulatorRunner } from "./accumulator_support.ts";

const { run, fails } = accumulatorRunner((limits) => new ResponsesAccumulator(limits));
const fc = { id: "fc_1", type: "function_call", call_id: "call_1", name: "glob", arguments: "" };
const rs = {
  id: "rs_1",
  type: "reasoning",
  summary: [{ type: "summary_text", text: "plan" }],
  encrypted_content: "gAAA",
};

Deno.test("function call items assemble from argument deltas, with the reasoning item kept", () => {
  const { out, complete } = run([
    { type: "response.output_item.done", output_index: 0, item: rs },
    { type: "response.reasoning_summary_text.delta", delta: "plan" },
    { type: "response.output_item.added", output_index: 1, item: fc },
    {
      type: "response.function_call_arguments.delta",
      item_id: "fc_1",
      output_index: 1,
      delta: '{"pattern"',
    },
    {
      type: "response.function_call_arguments.delta",
      item_id: "fc_1",
      output_index: 1,
      delta: ':"*"}',
    },
    { type: "response.completed", response: { usage: { input_tokens: 3, output_tokens: 4 } } },
  ]);
  assert(complete);
  assertEquals(out[0], { type: "reasoning", text: "plan" });
  assertEquals(out[1], { type: "usage", usage: { prompt_tokens: 3, completion_tokens: 4 } });
  const done = out.at(-1)!;
  assert(done.type === "done");
  assertEquals(done.message, {
    role: "assistant",
    content: null,
    tool_calls: [{
      id: "call_1",
      type: "function",
      function: { name: "glob", arguments: '{"pattern":"*"}' },
    }],
    provider_data: { responses_reasoning: [rs] },
  });
});

Deno.test("arguments done and the item done replace the streamed arguments", () => {
  const { out } = run([
    { type: "response.output_item.added", output_index: 0, item: fc },
    { type: "response.function_call_arguments.delta", item_id: "fc_1", delta: "{broken" },
    {
      type: "response.output_item.done",
      output_index: 0,
      item: { ...fc, arguments: '{"pattern":"x"}' },
    },
  ]);
  const done = out.at(-1)!;
  assert(done.type === "done");
  assertEquals(done.message.tool_calls![0]!.function.arguments, '{"pattern":"x"}');
});

Deno.test("response.incomplete completes with its reason as the finish reason", () => {
  const { out, complete } = run([
    { type: "response.output_text.delta", delta: "Half" },
    {
      type: "response.incomplete",
      response: { incomplete_details: { reason: "max_output_tokens" } },
    },
  ]);
  assert(complete);
  assertEquals(out.at(-1), {
    type: "done",
    message: { role: "assistant", content: "Half" },
    finishReason: "incomplete: max_output_tokens",
  });
});

Deno.test("response.failed and error events are provider_errors with their message", () => {
  assertEquals(
    fails([{ type: "response.failed", response: { error: { code: "x", message: "boom" } } }])
      .message,
    "Provider reported an error: boom",
  );
  assertEquals(
    fails([{ type: "error", code: "rate_limit_exceeded", message: "slow down" }]).message,
    "Provider reported an error: slow down",
  );
});

const small: ResponseLimits = {
  ...DEFAULT_RESPONSE_LIMITS,
  maxTextBytes: 4,
  maxToolArgumentBytes: 4,
  maxToolCalls: 1,
};

Deno.test("the caps apply to text, arguments, call count and reasoning items with their codes", () => {
  assertEquals(
    fails([{ type: "response.output_text.delta", delta: "12345" }], small).code,
    "response_limit",
  );
  assertEquals(
    fails([{ type: "response.output_item.added", item: fc }, {
      type: "response.function_call_arguments.delta",
      item_id: "fc_1",
      delta: "12345",
    }], small).code,
    "tool_limit",
  );
  assertEquals(
    fails([{ type: "response.output_item.added", item: fc }, {
      type: "response.output_item.added",
      item: { ...fc, id: "fc_2", call_id: "c2" },
    }], small).code,
    "tool_limit",
  );
  assertEquals(
    fails([{ type: "response.output_item.done", item: rs }], small).code,
    "response_limit",
  );
});
