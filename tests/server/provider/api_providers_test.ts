/**
 * `provider: "anthropic"` and `provider: "openai-responses"` through the real server against
 * scripted mocks of each API (api_dialects.ts): text, one tool call, two parallel calls,
 * reasoning (sent back as each API requires), a mid-stream error, an HTTP error, cancellation
 * mid-stream, every cap with its code, retries, and the request's own shape.
 */
import { assert, assertEquals, assertMatch } from "../../support/assert.ts";
import { MockOpenAI, type MockReply, type MockRequest } from "../../support/mock_openai.ts";
import { type Ev, ServerProcess } from "../../support/server_process.ts";
import { ANTHROPIC, type ApiDialect, RESPONSES } from "./api_dialects.ts";

type Item = Record<string, unknown>;
const REASONING = "The user wants the text files listed.";
const MIB = 1024 * 1024;

/** The last user prompt of a request, in either API's shape. */
function lastPrompt(body: MockRequest["body"]): string {
  const items = (body.messages ?? body.input) as Item[];
  for (let i = items.length - 1; i >= 0; i--) {
    const m = items[i]!;
    if (m.role !== "user") continue;
    if (typeof m.content === "string") return m.content;
    // Prompts of failed turns merge into one user message: the last text block is the newest.
    const text = (m.content as Item[]).findLast((b) => b.type === "text");
    if (text) return String(text.text);
  }
  return "";
}

/** Whether the request ends with tool results (the follow-up of a tool turn). */
function isFollowUp(body: MockRequest["body"]): boolean {
  const items = (body.messages ?? body.input) as Item[];
  const last = items.at(-1)!;
  if (last.type === "function_call_output") return true;
  return Array.isArray(last.content) &&
    (last.content as Item[]).every((b) => b.type === "tool_result");
}

async function withApi(
  d: ApiDialect,
  route: (prompt: string, req: MockRequest) => MockReply | undefined,
  fn: (ctx: {
    server: ServerProcess;
    mock: MockOpenAI;
    sessionId: string;
    cwd: string;
    accepted: MockRequest[];
    refused: MockRequest[];
    turn: (
      prompt: string,
    ) => Promise<{ done: Ev; of: (type: string) => Ev[] }>;
  }) => Promise<void>,
  env: Record<string, string> = {},
): Promise<void> {
  const accepted: MockRequest[] = [];
  const refused: MockRequest[] = [];
  const mock = await MockOpenAI.start((req) => {
    const refusal = d.refuses(req.body);
    if (refusal) {
      refused.push(req);
      return { kind: "status", ...refusal };
    }
    accepted.push(req);
    const prompt = lastPrompt(req.body);
    if (isFollowUp(req.body)) return d.text(`${prompt} done`);
    return route(prompt, req) ?? d.text(`Hello from ${d.name}.`);
  });
  const server = await ServerProcess.start({
    config: {
      provider: d.provider,
      base_url: mock.baseUrl,
      approval_policy: "never",
      model: "m-1",
    },
    env,
  });
  try {
    const { sessionId, cwd } = await server.open(undefined, { reasoning: true, notices: true });
    await Deno.writeTextFile(`${cwd}/a.txt`, "a");
    await Deno.writeTextFile(`${cwd}/b.md`, "b");
    const turn = async (prompt: string) => {
      const { t, done } = await server.runTurn(sessionId, prompt);
      const events = server.turnEvents(t.turn_id);
      return { done, of: (type: string) => events.filter((e) => e.type === type) };
    };
    await fn({ server, mock, sessionId, cwd, accepted, refused, turn });
    assertEquals(server.schemaErrors, []);
  } finally {
    await server.kill();
    await mock.close();
  }
}

for (const d of [ANTHROPIC, RESPONSES]) {
  Deno.test(`${d.name}: text, tool calls, reasoning and errors replay through the server`, async (t) => {
    await withApi(d, (prompt) => {
      switch (prompt) {
        case "one":
          return d.tools([{ name: "glob", arguments: { pattern: "*.txt" } }], REASONING);
        case "two":
          return d.tools([
            { name: "glob", arguments: { pattern: "*.txt" } },
            { name: "glob", arguments: { pattern: "*.md" } },
          ], REASONING);
        case "think":
          return d.text("Hi!", REASONING);
        case "midstream":
          return d.midError("Overloaded");
        case "http":
          return { kind: "status", status: d.httpError.status, body: d.httpError.body };
      }
    }, async ({ turn, accepted, refused, mock }) => {
      const lastBody = () => accepted.at(-1)!.body;

      await t.step("a text answer streams as deltas and completes with usage", async () => {
        const { done, of } = await turn("text");
        assertEquals(of("assistant.completed").map((e) => e.content), [`Hello from ${d.name}.`]);
        assertEquals(of("assistant.delta").map((e) => e.content).join(""), `Hello from ${d.name}.`);
        // The Anthropic fixture reads 2 of its 11 prompt tokens from the cache.
        const cached = d === ANTHROPIC ? { cached_input_tokens: 2 } : {};
        assertEquals([done.type, done.usage], ["turn.completed", {
          input_tokens: 11,
          output_tokens: 7,
          ...cached,
        }]);
        assertEquals(mock.requests[0]!.path, d.path);
      });

      await t.step(
        "one tool call runs and the follow-up carries the call and its result",
        async () => {
          const { done, of } = await turn("one");
          assertEquals(done.type, "turn.completed", JSON.stringify(done));
          const completed = of("tool.completed");
          assertEquals(completed.map((e) => [e.name, e.success]), [["glob", true]]);
          assertMatch(completed[0]!.output, /a\.txt/);
          assertEquals(of("assistant.completed").at(-1)!.content, "one done");
          const body = lastBody();
          if (d === ANTHROPIC) {
            const msgs = body.messages as Array<{ role: string; content: Item[] }>;
            const call = msgs.at(-2)!.content.find((b) => b.type === "tool_use")!;
            assertEquals([call.id, call.name, call.input], [d.id(0), "glob", { pattern: "*.txt" }]);
            assertEquals(msgs.at(-1)!.content[0]!.tool_use_id, d.id(0));
          } else {
            const input = body.input as Item[];
            const call = input.at(-2)!;
            assertEquals([call.type, call.call_id, call.arguments], [
              "function_call",
              d.id(0),
              '{"pattern":"*.txt"}',
            ]);
            assertEquals([input.at(-1)!.type, input.at(-1)!.call_id], [
              "function_call_output",
              d.id(0),
            ]);
          }
          const cached = d === ANTHROPIC ? { cached_input_tokens: 4 } : {};
          assertEquals(done.usage, { input_tokens: 22, output_tokens: 14, ...cached });
        },
      );

      await t.step("two parallel calls both run and both results go back in order", async () => {
        const { done, of } = await turn("two");
        assertEquals(done.type, "turn.completed", JSON.stringify(done));
        assertEquals(of("tool.completed").map((e) => e.success), [true, true]);
        assertMatch(of("tool.completed")[1]!.output, /b\.md/);
        const body = lastBody();
        const ids = d === ANTHROPIC
          ? (body.messages as Array<{ content: Item[] }>).at(-1)!.content.map((b) => b.tool_use_id)
          : (body.input as Item[]).filter((i) => i.type === "function_call_output").slice(-2).map((
            i,
          ) => i.call_id);
        assertEquals(ids, [d.id(0), d.id(1)]);
      });

      await t.step(
        "reasoning streams apart from the answer and is never assistant text",
        async () => {
          const { done, of } = await turn("think");
          assertEquals(done.type, "turn.completed");
          assertEquals(of("assistant.completed").at(-1)!.content, "Hi!");
          assertEquals(of("assistant.reasoning.delta").map((e) => e.content).join(""), REASONING);
        },
      );

      await t.step(
        "the signed reasoning of tool turns went back and every request was accepted",
        () => {
          assertEquals(refused.length, 0);
          const body = lastBody();
          if (d === ANTHROPIC) {
            const thinking = (body.messages as Array<{ content: Item[] }>).flatMap((m) =>
              Array.isArray(m.content) ? m.content.filter((b) => b.type === "thinking") : []
            );
            // Two tool turns; the final answers' thinking is not kept.
            assertEquals(thinking.length, 2);
          } else {
            const reasoning = (body.input as Item[]).filter((i) => i.type === "reasoning");
            assertEquals(reasoning.length, 2);
          }
        },
      );

      await t.step(
        "a mid-stream error event fails the turn with the provider's message",
        async () => {
          const { done, of } = await turn("midstream");
          assertEquals([done.type, done.code], ["turn.failed", "provider_error"]);
          assertEquals(done.message, "Provider reported an error: Overloaded");
          assertEquals(of("assistant.delta").map((e) => e.content).join(""), "Partial");
        },
      );

      await t.step(
        "an HTTP error fails the turn with the status and the provider's message",
        async () => {
          const { done } = await turn("http");
          assertEquals([done.type, done.code], ["turn.failed", "provider_error"]);
          assertEquals(
            done.message,
            `Provider returned HTTP ${d.httpError.status}: ${d.httpError.message}`,
          );
        },
      );
    });
  });

  Deno.test(`${d.name}: every protocol cap fails the turn with the contract's code`, async (t) => {
    await withApi(d, (prompt) => {
      switch (prompt) {
        case "text":
          return d.bigText(MIB + 1);
        case "args":
          return d.bigArguments(256 * 1024 + 1);
        case "calls":
          return d.manyCalls(33);
        case "event":
          return d.bigEvent(MIB + 1);
        case "response":
          return d.padding(4 * MIB + 1);
        case "calls32":
          return d.manyCalls(32);
      }
    }, async ({ turn }) => {
      const cases: Array<[string, string, RegExp]> = [
        ["text", "response_limit", /Assistant text exceeded 1048576 bytes/],
        ["args", "tool_limit", /Tool call arguments exceeded 262144 bytes/],
        ["calls", "tool_limit", /more than 32 tool calls/],
        ["event", "response_limit", /SSE event over 1048576 bytes/],
        ["response", "response_limit", /response exceeded 4194304 bytes/],
      ];
      for (const [prompt, code, message] of cases) {
        await t.step(`${prompt} over its cap is ${code}`, async () => {
          const { done, of } = await turn(prompt);
          assertEquals([done.type, done.code], ["turn.failed", code]);
          assertMatch(done.message, message);
          assertEquals(of("tool.started"), [], "no call of a capped response runs");
        });
      }
      await t.step("exactly 32 calls is within the cap and all of them run", async () => {
        const { done, of } = await turn("calls32");
        assertEquals(done.type, "turn.completed", JSON.stringify(done));
        assertEquals(of("tool.completed").length, 32);
      });
    });
  });

  Deno.test(`${d.name}: cancelling mid-stream ends the turn with turn.cancelled and the session goes on`, async () => {
    await withApi(
      d,
      (prompt) => prompt === "hang" ? d.hang("Thinking about it") : undefined,
      async ({ server, sessionId, turn }) => {
        const started = await server.startTurn(sessionId, "hang");
        await server.next((e) => e.type === "assistant.delta" && e.turn_id === started.turn_id);
        await server.send({
          type: "turn.cancel",
          request_id: "c1",
          session_id: sessionId,
          turn_id: started.turn_id,
        });
        const end = await server.terminal(started.turn_id);
        assertEquals(end.type, "turn.cancelled");
        const { done } = await turn("after");
        assertEquals(done.type, "turn.completed");
      },
    );
  });
}

Deno.test("Anthropic requests carry x-api-key, anthropic-version, the system field and max_tokens", async () => {
  await withApi(ANTHROPIC, () => undefined, async ({ turn, accepted }) => {
    await turn("hi");
    const req = accepted[0]!;
    assertEquals(req.headers.get("x-api-key"), "sk-ant-test-0123456789");
    assertEquals(req.headers.get("anthropic-version"), "2023-06-01");
    assertEquals(req.headers.get("authorization"), null);
    const body = req.body;
    assert(
      typeof body.system === "string" && body.system.length > 0,
      "the system prompt is its own field",
    );
    assert((body.messages as Item[]).every((m) => m.role !== "system"));
    assertEquals([body.stream, body.max_tokens, body.model], [true, 8192, "m-1"]);
    assert(Array.isArray(body.tools) && (body.tools as Item[])[0]!.input_schema !== undefined);
  }, { ANTHROPIC_API_KEY: "sk-ant-test-0123456789" });
});

Deno.test("Anthropic 529 overloaded and 429 are retried, then the answer streams", async () => {
  let n = 0;
  const overloaded = JSON.stringify({
    type: "error",
    error: { type: "overloaded_error", message: "Overloaded" },
  });
  await withApi(ANTHROPIC, () => {
    n++;
    if (n === 1) {
      return { kind: "status", status: 529, body: overloaded, headers: { "retry-after": "0" } };
    }
    if (n === 2) {
      return { kind: "status", status: 429, body: overloaded, headers: { "retry-after": "0" } };
    }
  }, async ({ turn, accepted }) => {
    const { done, of } = await turn("hi");
    assertEquals(done.type, "turn.completed");
    assertEquals(of("assistant.completed")[0]!.content, `Hello from ${ANTHROPIC.name}.`);
    assertEquals(accepted.length, 3);
  });
});

Deno.test("Responses requests are stateless: store false, the whole input, instructions, encrypted reasoning asked for", async () => {
  await withApi(RESPONSES, () => undefined, async ({ turn, accepted }) => {
    await turn("first");
    await turn("second");
    const req = accepted[1]!;
    assertEquals(req.headers.get("authorization"), "Bearer sk-test-0123456789");
    const body = req.body;
    assertEquals([body.store, body.stream], [false, true]);
    assertEquals(body.include, ["reasoning.encrypted_content"]);
    assertEquals(body.reasoning, { summary: "auto" });
    assert(typeof body.instructions === "string" && body.instructions.length > 0);
    const input = body.input as Item[];
    assertEquals(input.map((i) => [i.type, i.role]), [
      ["message", "user"],
      ["message", "assistant"],
      ["message", "user"],
    ]);
    assertEquals((body.tools as Item[])[0]!.type, "function");
  }, { OPENAI_API_KEY: "sk-test-0123456789" });
});

Deno.test("a model that refuses reasoning summaries, then include, gets each dropped once and remembered", async () => {
  await withApi(RESPONSES, (_p, req) => {
    if (req.body.reasoning !== undefined) {
      return {
        kind: "status",
        status: 400,
        body: JSON.stringify({
          error: {
            message: "Unsupported parameter: 'reasoning.summary' is not supported with this model.",
            param: "reasoning.summary",
          },
        }),
      };
    }
    if (req.body.include !== undefined) {
      return {
        kind: "status",
        status: 400,
        body: JSON.stringify({ error: { message: "Unknown parameter: 'include'." } }),
      };
    }
  }, async ({ turn, accepted }) => {
    const { done } = await turn("hi");
    assertEquals(done.type, "turn.completed");
    await turn("again");
    assertEquals(
      accepted.map((r) => [r.body.reasoning !== undefined, r.body.include !== undefined]),
      [[true, true], [false, true], [false, false], [false, false]],
    );
  });
});

Deno.test("a Responses answer cut short by response.incomplete completes with a notice", async () => {
  const incomplete = {
    kind: "stream",
    done: false,
    events: [
      `event: response.output_text.delta\ndata: ${
        JSON.stringify({ type: "response.output_text.delta", delta: "Half an ans" })
      }\n\n`,
      `event: response.incomplete\ndata: ${
        JSON.stringify({
          type: "response.incomplete",
          response: {
            status: "incomplete",
            incomplete_details: { reason: "max_output_tokens" },
            usage: { input_tokens: 5, output_tokens: 3 },
          },
        })
      }\n\n`,
    ],
  } as MockReply;
  await withApi(RESPONSES, () => incomplete, async ({ turn }) => {
    const { done, of } = await turn("hi");
    assertEquals(done.type, "turn.completed");
    assertEquals(of("assistant.completed")[0]!.content, "Half an ans");
    assertMatch(
      of("turn.notice")[0]!.message,
      /cut the answer short \(incomplete: max_output_tokens\)/,
    );
  });
});

Deno.test("a Responses response.failed event is a provider_error with its message", async () => {
  const failed = {
    kind: "stream",
    done: false,
    events: [
      `event: response.failed\ndata: ${
        JSON.stringify({
          type: "response.failed",
          response: {
            status: "failed",
            error: { code: "server_error", message: "The model failed to generate a response." },
          },
        })
      }\n\n`,
    ],
  } as MockReply;
  await withApi(RESPONSES, () => failed, async ({ turn }) => {
    const { done } = await turn("hi");
    assertEquals([done.type, done.code], ["turn.failed", "provider_error"]);
    assertEquals(
      done.message,
      "Provider reported an error: The model failed to generate a response.",
    );
  });
});

Deno.test("an Anthropic answer stopped at max_tokens completes with a notice", async () => {
  const cut = ANTHROPIC.text("Half");
  if (cut.kind !== "stream") throw new TypeError("a stream reply");
  const events = cut.events.map((e) =>
    typeof e === "string" ? e.replace('"end_turn"', '"max_tokens"') : e
  );
  await withApi(ANTHROPIC, () => ({ ...cut, events }), async ({ turn }) => {
    const { done, of } = await turn("hi");
    assertEquals(done.type, "turn.completed");
    assertMatch(of("turn.notice")[0]!.message, /stop_reason: max_tokens/);
  });
});

for (const d of [ANTHROPIC, RESPONSES]) {
  Deno.test(`${d.name}: a provider silent for provider_timeout_ms fails the turn with provider_error`, async () => {
    const mock = await MockOpenAI.start([{ kind: "silent" }]);
    const server = await ServerProcess.start({
      config: { provider: d.provider, base_url: mock.baseUrl, provider_timeout_ms: 300 },
    });
    try {
      const { sessionId } = await server.open();
      const { done } = await server.runTurn(sessionId, "hi");
      assertEquals([done.type, done.code], ["turn.failed", "provider_error"]);
      assertMatch(done.message, /sent nothing for 300 ms \(provider_timeout_ms\)/);
    } finally {
      await server.kill();
      await mock.close();
    }
  });
}
