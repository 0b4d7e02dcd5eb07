/** Unit tests of the canonical history as a stateless OpenAI Responses request. */
import { assertEquals } from "../../support/assert.ts";
import { responsesBody } from "../../../server/provider/responses_request.ts";
import type { ChatMessage } from "../../../server/provider/types.ts";

const reasoning = { id: "rs_1", type: "reasoning", summary: [], encrypted_content: "gAAA" };
const history: ChatMessage[] = [
  { role: "system", content: "Be brief." },
  { role: "user", content: "List" },
  {
    role: "assistant",
    content: "Looking.",
    tool_calls: [{
      id: "call_1",
      type: "function",
      function: { name: "glob", arguments: '{"pattern":"*"}' },
    }],
    provider_data: { responses_reasoning: [reasoning] },
  },
  { role: "tool", tool_call_id: "call_1", content: "a.txt" },
];

Deno.test("the request is stateless: store false, instructions, and the whole history as items", () => {
  const body = responsesBody("gpt-5", history, []);
  assertEquals([body.store, body.stream, body.instructions], [false, true, "Be brief."]);
  assertEquals(body.input, [
    { type: "message", role: "user", content: "List" },
    reasoning,
    { type: "message", role: "assistant", content: [{ type: "output_text", text: "Looking." }] },
    { type: "function_call", call_id: "call_1", name: "glob", arguments: '{"pattern":"*"}' },
    { type: "function_call_output", call_id: "call_1", output: "a.txt" },
  ]);
  assertEquals(body.include, ["reasoning.encrypted_content"]);
  assertEquals(body.reasoning, { summary: "auto" });
});

Deno.test("tools are flat function tools and refused optional fields are left out", () => {
  const body = responsesBody("m", [{ role: "user", content: "x" }], [
    {
      type: "function",
      function: { name: "glob", description: "find", parameters: { type: "object" } },
    },
  ], new Set());
  assertEquals(body.tools, [{
    type: "function",
    name: "glob",
    description: "find",
    parameters: { type: "object" },
  }]);
  assertEquals(["include" in body, "reasoning" in body], [false, false]);
});
