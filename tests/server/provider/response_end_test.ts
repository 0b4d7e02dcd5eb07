/** The end of a response every accumulator shares (server/provider/response_end.ts). */
import { assertEquals, assertMatch } from "../../support/assert.ts";
import {
  closingEvents,
  MAX_TOOL_ID_CHARS,
  reported,
  toolCalls,
} from "../../../server/provider/response_end.ts";

Deno.test("tool calls get a fallback id when missing and a suffix when repeated", () => {
  const calls = toolCalls(
    [
      { id: "", name: "a", args: "{}" },
      { id: "x", name: "b", args: "{}" },
      { id: "x", name: "c", args: "{}" },
    ],
    "toolu",
    true,
  );
  assertEquals(calls.map((c) => c.id), ["toolu_0", "x", "x_2"]);
});

Deno.test("tool call ids and names one over MAX_TOOL_ID_CHARS are cut to it, with an ellipsis", () => {
  const long = "n".repeat(MAX_TOOL_ID_CHARS + 1);
  const [call] = toolCalls([{ id: long, name: long, args: "{}" }], "call", true);
  const cut = "n".repeat(MAX_TOOL_ID_CHARS) + "…";
  assertEquals([call!.id, call!.function.name], [cut, cut]);
});

Deno.test("blank arguments become {} only when asked", () => {
  const raw = [{ id: "a", name: "t", args: "  " }];
  assertEquals(toolCalls(raw, "call", true)[0]!.function.arguments, "{}");
  assertEquals(toolCalls(raw, "call", false)[0]!.function.arguments, "  ");
});

Deno.test("the closing events carry what goes back only on a tool-call message", () => {
  const carried = { reasoning_content: "why" };
  const calls = toolCalls([{ id: "a", name: "t", args: "{}" }], "call", true);
  const withCalls = closingEvents(calls, "", "tool_calls", carried);
  assertEquals(withCalls.map((e) => e.type), ["tool_call", "done"]);
  assertEquals(withCalls.at(-1), {
    type: "done",
    finishReason: "tool_calls",
    message: { role: "assistant", content: null, tool_calls: calls, reasoning_content: "why" },
  });
  const final = closingEvents([], "answer", undefined, carried);
  assertEquals(final, [{ type: "done", message: { role: "assistant", content: "answer" } }]);
});

Deno.test("a reported error is a provider_error with the provider's own message", () => {
  const e = reported({ message: "rate limited, slow down" });
  assertEquals(e.code, "provider_error");
  assertMatch(e.message, /^Provider reported an error: rate limited, slow down$/);
});
