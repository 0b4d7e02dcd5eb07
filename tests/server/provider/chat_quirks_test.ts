/**
 * Chat Completions quirks outside CONTRACT.md's list, through the real server: names resent
 * whole on every delta (NVIDIA NIM, some proxies) and an inline `<think>` block.
 */
import { assertEquals } from "../../support/assert.ts";
import { MockOpenAI, type MockReply, text } from "../../support/mock_openai.ts";
import { withServer } from "../../support/server_process.ts";

Deno.test("a function name resent whole on every delta runs the tool once, by its name", async () => {
  const call = (args: string) => ({
    choices: [{
      index: 0,
      delta: {
        tool_calls: [{
          index: 0,
          id: "chatcmpl-tool-1",
          type: "function",
          function: { name: "glob", arguments: args },
        }],
      },
    }],
  });
  const nim: MockReply = {
    kind: "stream",
    events: [call('{"pat'), call('tern":'), call('"*"}'), {
      choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }],
    }],
  };
  const mock = await MockOpenAI.start([nim, text("done")]);
  await withServer(mock, { config: { approval_policy: "never" } }, async (p) => {
    const { sessionId } = await p.open();
    const { t, done } = await p.runTurn(sessionId, "list");
    assertEquals(done.type, "turn.completed");
    const completed = p.turnEvents(t.turn_id).filter((e) => e.type === "tool.completed");
    assertEquals(completed.map((e) => [e.name, e.success]), [["glob", true]]);
    const sent = mock.requests[1]!.body.messages.at(-2) as {
      tool_calls: Array<{ function: unknown }>;
    };
    assertEquals(sent.tool_calls[0]!.function, { name: "glob", arguments: '{"pattern":"*"}' });
  });
});

Deno.test("a leading <think> block reaches a reasoning client as reasoning and no client as text", async () => {
  const r1: MockReply = {
    kind: "stream",
    events: [
      { choices: [{ index: 0, delta: { content: "<think>\nThe user" } }] },
      { choices: [{ index: 0, delta: { content: " greets.\n</th" } }] },
      { choices: [{ index: 0, delta: { content: "ink>\n\nHello!" } }] },
      { choices: [{ index: 0, delta: {}, finish_reason: "stop" }] },
    ],
  };
  const mock = await MockOpenAI.start([r1]);
  await withServer(mock, {}, async (p) => {
    const { sessionId } = await p.open(undefined, { reasoning: true });
    const { t } = await p.runTurn(sessionId, "hi");
    const events = p.turnEvents(t.turn_id);
    const of = (type: string) =>
      events.filter((e) => e.type === type).map((e) => e.content).join("");
    assertEquals(of("assistant.reasoning.delta"), "\nThe user greets.\n");
    assertEquals(of("assistant.delta"), "Hello!");
    assertEquals(of("assistant.completed"), "Hello!");
  });
});
