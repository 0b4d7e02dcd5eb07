/**
 * Reasoning and notices reach only the clients that asked for them in `initialize`, without a
 * gap in `seq` for the others; servers that refuse tools get one retry without them and the
 * user a notice (llama.cpp without --jinja, Ollama models without tool support, vLLM without
 * auto tool choice: their own words, from their sources).
 */
import { assert, assertEquals, assertMatch } from "../../support/assert.ts";
import { MockOpenAI, type MockReply, text } from "../../support/mock_openai.ts";
import { withServer } from "../../support/server_process.ts";

const reasoningReply = (): MockReply => ({
  kind: "stream",
  events: [
    { choices: [{ index: 0, delta: { role: "assistant", reasoning_content: "Let me think. " } }] },
    { choices: [{ index: 0, delta: { reasoning_content: "Done thinking." } }] },
    { choices: [{ index: 0, delta: { content: "Answer." } }] },
    { choices: [{ index: 0, delta: {}, finish_reason: "stop" }] },
  ],
});

Deno.test("a client that asked for reasoning gets assistant.reasoning.delta, apart from the text", async () => {
  const mock = await MockOpenAI.start([reasoningReply()]);
  await withServer(mock, {}, async (p) => {
    const { sessionId } = await p.open(undefined, { reasoning: true });
    const { t } = await p.runTurn(sessionId, "hi");
    const events = p.turnEvents(t.turn_id);
    const reasoning = events.filter((e) => e.type === "assistant.reasoning.delta");
    assertEquals(reasoning.map((e) => e.content).join(""), "Let me think. Done thinking.");
    assertEquals(events.find((e) => e.type === "assistant.completed")!.content, "Answer.");
    assertEquals(events.map((e) => e.seq), events.map((_, i) => i + 1));
    assertEquals(p.schemaErrors, []);
  });
});

Deno.test("a client that did not ask gets no reasoning event and no gap in seq", async () => {
  const mock = await MockOpenAI.start([reasoningReply()]);
  await withServer(mock, {}, async (p) => {
    const { sessionId } = await p.open();
    const { t } = await p.runTurn(sessionId, "hi");
    const events = p.turnEvents(t.turn_id);
    assertEquals(events.map((e) => e.type), [
      "turn.started",
      "assistant.delta",
      "assistant.completed",
      "turn.completed",
    ]);
    assertEquals(events.map((e) => e.seq), [1, 2, 3, 4]);
  });
});

Deno.test("initialize with a capability that is not a boolean is invalid_request", async () => {
  const mock = await MockOpenAI.start([]);
  await withServer(mock, {}, async (p) => {
    await p.send({
      type: "initialize",
      request_id: "i",
      protocol_version: 1,
      capabilities: { reasoning: "yes" },
    });
    const err = await p.nextOf("error");
    assertEquals(err.code, "invalid_request");
    assertMatch(err.message, /"capabilities\.reasoning": must be a boolean/);
  });
});

const REFUSALS: Array<[string, number, string]> = [
  // llama.cpp's server without --jinja throws runtime_error("tools param requires --jinja
  // flag") while parsing the OpenAI-style params: HTTP 500, type server_error.
  [
    "llama.cpp",
    500,
    JSON.stringify({
      error: { code: 500, message: "tools param requires --jinja flag", type: "server_error" },
    }),
  ],
  // Ollama server/routes.go for a model whose template has no tools.
  [
    "Ollama",
    400,
    JSON.stringify({
      error: {
        message: "registry.ollama.ai/library/gemma:2b does not support tools",
        // openai.NewError: a 400 is "invalid_request_error".
        type: "invalid_request_error",
        param: null,
        code: null,
      },
    }),
  ],
  // vLLM entrypoints/openai/serving_chat.py without --enable-auto-tool-choice.
  [
    "vLLM",
    400,
    JSON.stringify({
      object: "error",
      message:
        '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set',
      type: "BadRequestError",
      param: null,
      code: 400,
    }),
  ],
  // Older llama.cpp builds took tools only without streaming (the same params parsing).
  [
    "older llama.cpp",
    500,
    JSON.stringify({
      error: { code: 500, message: "Cannot use tools with stream", type: "server_error" },
    }),
  ],
  // OpenRouter when no provider serving the model takes tools.
  [
    "OpenRouter",
    404,
    JSON.stringify({ error: { message: "No endpoints found that support tool use.", code: 404 } }),
  ],
];

for (const [name, status, body] of REFUSALS) {
  Deno.test(`${name} refusing tools: one retry without them, a notice, and later turns skip them`, async () => {
    const mock = await MockOpenAI.start((req) =>
      req.body.tools ? { kind: "status", status, body } : text("Plain answer.")
    );
    await withServer(mock, {}, async (p) => {
      const { sessionId } = await p.open(undefined, { notices: true });
      const first = await p.runTurn(sessionId, "hi");
      assertEquals(first.done.type, "turn.completed");
      const events = p.turnEvents(first.t.turn_id);
      const notice = events.find((e) => e.type === "turn.notice");
      assert(notice, "a notice was sent");
      assertMatch(notice.message, /cannot use tools here; answering without them/);
      assertEquals(events.find((e) => e.type === "assistant.completed")!.content, "Plain answer.");
      // The refusal is answered once, not retried as a server error.
      assertEquals(mock.requests.map((r) => r.body.tools !== undefined), [true, false]);
      await p.runTurn(sessionId, "again");
      assertEquals(mock.requests.map((r) => r.body.tools !== undefined), [true, false, false]);
    });
  });
}

Deno.test("a client that did not ask for notices gets none, and the answer still comes", async () => {
  const mock = await MockOpenAI.start((req) =>
    req.body.tools
      ? { kind: "status", status: REFUSALS[1]![1], body: REFUSALS[1]![2] }
      : text("Plain.")
  );
  await withServer(mock, {}, async (p) => {
    const { sessionId } = await p.open();
    const { t, done } = await p.runTurn(sessionId, "hi");
    assertEquals(done.type, "turn.completed");
    assertEquals(p.turnEvents(t.turn_id).filter((e) => e.type === "turn.notice"), []);
  });
});

Deno.test("an answer cut at the output limit (finish_reason length) completes with a notice", async () => {
  const cut: MockReply = {
    kind: "stream",
    events: [
      { choices: [{ index: 0, delta: { content: "Half an ans" } }] },
      { choices: [{ index: 0, delta: {}, finish_reason: "length" }] },
    ],
  };
  const mock = await MockOpenAI.start([cut]);
  await withServer(mock, {}, async (p) => {
    const { sessionId } = await p.open(undefined, { notices: true });
    const { t, done } = await p.runTurn(sessionId, "hi");
    assertEquals(done.type, "turn.completed");
    const notice = p.turnEvents(t.turn_id).find((e) => e.type === "turn.notice");
    assertMatch(
      notice!.message,
      /cut the answer short at its output limit \(finish_reason: length\)/,
    );
  });
});
