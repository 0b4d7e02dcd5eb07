/** Unit tests of the canonical history as an Anthropic Messages request. */
import { assertEquals } from "../../support/assert.ts";
import { anthropicBody, anthropicId } from "../../../server/provider/anthropic_request.ts";
import type { ChatMessage } from "../../../server/provider/types.ts";

const thinking = { type: "thinking", thinking: "plan", signature: "sig" };
const history: ChatMessage[] = [
  { role: "system", content: "Be brief." },
  { role: "user", content: "List files" },
  {
    role: "assistant",
    content: "Looking.",
    tool_calls: [
      { id: "toolu_1", type: "function", function: { name: "glob", arguments: '{"pattern":"*"}' } },
      { id: "call.2", type: "function", function: { name: "bash", arguments: "not json" } },
    ],
    provider_data: { anthropic_thinking: [thinking] },
  },
  { role: "tool", tool_call_id: "toolu_1", content: "a.txt" },
  { role: "tool", tool_call_id: "call.2", content: "ok" },
  { role: "assistant", content: "Done." },
];

Deno.test("system messages become the system field and never a message", () => {
  const body = anthropicBody("claude", history, []);
  assertEquals(body.system, "Be brief.");
  assertEquals((body.messages as Array<{ role: string }>).map((m) => m.role), [
    "user",
    "assistant",
    "user",
    "assistant",
  ]);
});

Deno.test("a tool-call message sends its thinking first, then text, then tool_use with parsed input", () => {
  const msgs = anthropicBody("claude", history, []).messages as Array<{ content: unknown[] }>;
  assertEquals(msgs[1]!.content, [
    thinking,
    { type: "text", text: "Looking." },
    { type: "tool_use", id: "toolu_1", name: "glob", input: { pattern: "*" } },
    { type: "tool_use", id: "call_2", name: "bash", input: {} },
  ]);
});

Deno.test("consecutive tool results go back as one user message of tool_result blocks", () => {
  const msgs = anthropicBody("claude", history, []).messages as Array<{ content: unknown[] }>;
  assertEquals(msgs[2]!.content, [
    { type: "tool_result", tool_use_id: "toolu_1", content: "a.txt" },
    { type: "tool_result", tool_use_id: "call_2", content: "ok" },
  ]);
});

Deno.test("tools become name, description and input_schema, and max_tokens is always set", () => {
  const body = anthropicBody("claude", [{ role: "user", content: "x" }], [
    {
      type: "function",
      function: { name: "glob", description: "find", parameters: { type: "object" } },
    },
  ]);
  assertEquals(body.tools, [{
    name: "glob",
    description: "find",
    input_schema: { type: "object" },
  }]);
  assertEquals([body.stream, body.max_tokens], [true, 8192]);
});

Deno.test("an empty assistant message is left out and the prompts around it merge", () => {
  const body = anthropicBody("c", [
    { role: "user", content: "a" },
    { role: "assistant", content: "" },
    { role: "user", content: "b" },
  ], []);
  assertEquals(body.messages, [{
    role: "user",
    content: [{ type: "text", text: "a" }, { type: "text", text: "b" }],
  }]);
});

Deno.test("tool ids are made acceptable to the API the same way for call and result", () => {
  assertEquals([anthropicId("call:1/x"), anthropicId(""), anthropicId("toolu_ok-1")], [
    "call_1_x",
    "call",
    "toolu_ok-1",
  ]);
});
