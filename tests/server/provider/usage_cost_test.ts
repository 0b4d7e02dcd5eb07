/**
 * Cached and reasoning tokens from each provider's scripted server, through the real server, and
 * `cost_usd` by the `pricing` setting: per turn, per session, and across a resume.
 */
import { assertEquals } from "../../support/assert.ts";
import { MockOpenAI, type MockReply, text } from "../../support/mock_openai.ts";
import { ServerProcess } from "../../support/server_process.ts";
import type { Config } from "../../../server/config.ts";
import { startServer, startSession, withRecording, withServer } from "../sessions/support.ts";

const sse = (event: string, data: Record<string, unknown>) =>
  `event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`;

/** A Chat Completions answer whose usage chunk has OpenAI's details objects. */
const CHAT: MockReply = {
  kind: "stream",
  events: [
    { choices: [{ index: 0, delta: { role: "assistant", content: "Hi" } }] },
    { choices: [{ index: 0, delta: {}, finish_reason: "stop" }] },
    {
      choices: [],
      usage: {
        prompt_tokens: 1000,
        completion_tokens: 300,
        total_tokens: 1300,
        prompt_tokens_details: { cached_tokens: 400 },
        completion_tokens_details: { reasoning_tokens: 200 },
      },
    },
  ],
};

/** An Anthropic Messages answer: cache reads and writes on message_start, output at the end. */
const ANTHROPIC: MockReply = {
  kind: "stream",
  done: false,
  events: [
    sse("message_start", {
      message: {
        id: "msg_1",
        type: "message",
        role: "assistant",
        content: [],
        model: "claude",
        usage: {
          input_tokens: 100,
          cache_read_input_tokens: 800,
          cache_creation_input_tokens: 100,
          output_tokens: 1,
        },
      },
    }),
    sse("content_block_start", { index: 0, content_block: { type: "text", text: "" } }),
    sse("content_block_delta", { index: 0, delta: { type: "text_delta", text: "Hi" } }),
    sse("content_block_stop", { index: 0 }),
    sse("message_delta", { delta: { stop_reason: "end_turn" }, usage: { output_tokens: 300 } }),
    sse("message_stop", {}),
  ],
};

/** An OpenAI Responses answer whose usage has input and output details. */
const RESPONSES: MockReply = {
  kind: "stream",
  done: false,
  events: [
    sse("response.created", { response: { id: "r", status: "in_progress", output: [] } }),
    sse("response.output_item.added", {
      output_index: 0,
      item: { id: "m", type: "message", role: "assistant", content: [] },
    }),
    sse("response.output_text.delta", {
      item_id: "m",
      output_index: 0,
      content_index: 0,
      delta: "Hi",
    }),
    sse("response.output_item.done", {
      output_index: 0,
      item: {
        id: "m",
        type: "message",
        role: "assistant",
        content: [{ type: "output_text", text: "Hi" }],
      },
    }),
    sse("response.completed", {
      response: {
        id: "r",
        status: "completed",
        output: [],
        usage: {
          input_tokens: 1000,
          input_tokens_details: { cached_tokens: 600 },
          output_tokens: 300,
          output_tokens_details: { reasoning_tokens: 250 },
          total_tokens: 1300,
        },
      },
    }),
  ],
};

/** Prices chosen so each figure below is exact to the cent: USD per 1M tokens. */
const PRICE = { input: 2000, output: 10000, cached_input: 500, cache_write: 2500 };

const CASES: Array<{
  provider: Config["provider"];
  reply: MockReply;
  usage: Record<string, number>;
  cost: number;
}> = [
  {
    provider: "openai-chat",
    reply: CHAT,
    usage: {
      input_tokens: 1000,
      output_tokens: 300,
      cached_input_tokens: 400,
      reasoning_tokens: 200,
    },
    // 600 plain × 2000 + 400 cached × 500 + 300 out × 10000, per million.
    cost: 1.2 + 0.2 + 3,
  },
  {
    provider: "anthropic",
    reply: ANTHROPIC,
    usage: {
      input_tokens: 1000,
      output_tokens: 300,
      cached_input_tokens: 800,
      cache_creation_input_tokens: 100,
    },
    // 100 plain × 2000 + 800 cached × 500 + 100 written × 2500 + 300 out × 10000.
    cost: 0.2 + 0.4 + 0.25 + 3,
  },
  {
    provider: "openai-responses",
    reply: RESPONSES,
    usage: {
      input_tokens: 1000,
      output_tokens: 300,
      cached_input_tokens: 600,
      reasoning_tokens: 250,
    },
    // 400 plain × 2000 + 600 cached × 500 + 300 out × 10000.
    cost: 0.8 + 0.3 + 3,
  },
];

for (const c of CASES) {
  Deno.test(`${c.provider}: cached and reasoning tokens reach turn.completed with its cost`, async () => {
    const mock = await MockOpenAI.start(() => c.reply);
    const server = await ServerProcess.start({
      config: {
        provider: c.provider,
        base_url: mock.baseUrl,
        model: "m-1",
        pricing: { "m-1": PRICE },
      },
    });
    try {
      const { sessionId } = await server.open();
      const { done } = await server.runTurn(sessionId, "hello");
      assertEquals(done.type, "turn.completed", JSON.stringify(done));
      assertEquals(done.usage, c.usage);
      assertEquals(done.cost_usd.toFixed(2), c.cost.toFixed(2));
      assertEquals(done.session_cost_usd.toFixed(2), c.cost.toFixed(2));
      const second = await server.runTurn(sessionId, "again");
      assertEquals(second.done.cost_usd.toFixed(2), c.cost.toFixed(2));
      assertEquals(second.done.session_cost_usd.toFixed(2), (2 * c.cost).toFixed(2));
      assertEquals(server.schemaErrors, []);
    } finally {
      await server.kill();
      await mock.close();
    }
  });
}

Deno.test("a model without a price reports usage but no cost", async () => {
  const mock = await MockOpenAI.start(() => CHAT);
  const server = await ServerProcess.start({
    config: { base_url: mock.baseUrl, model: "unpriced", pricing: { "m-1": PRICE } },
  });
  try {
    const { sessionId } = await server.open();
    const { done } = await server.runTurn(sessionId, "hello");
    assertEquals(done.usage.cached_input_tokens, 400);
    assertEquals([done.cost_usd, done.session_cost_usd], [undefined, undefined]);
  } finally {
    await server.kill();
    await mock.close();
  }
});

Deno.test("a resumed session's cost goes on from its recorded total, to the cent", async () => {
  const usage = { usage: { prompt_tokens: 1_000_000, completion_tokens: 100_000 } };
  // $0.40 + $0.16 = $0.56 per turn at these prices.
  const pricing = { "gpt-4.1-mini": { input: 0.4, output: 1.6 } };
  await withRecording(() => text("ok", usage), async ({ mock, state, cwd }) => {
    const a = await startServer(state, mock.baseUrl, { config: { pricing } });
    let id: string;
    try {
      id = (await startSession(a, cwd)).session_id;
      const first = await a.runTurn(id, "one");
      assertEquals([first.done.cost_usd, first.done.session_cost_usd], [0.56, 0.56]);
      const second = await a.runTurn(id, "two");
      assertEquals([second.done.cost_usd, second.done.session_cost_usd], [0.56, 1.12]);
      assertEquals(await a.stop(), 0);
    } catch (e) {
      await a.kill();
      throw e;
    }
    await withServer(state, mock.baseUrl, async (b) => {
      const resumed = await startSession(b, cwd, id);
      assertEquals([resumed.resumed, resumed.session_cost_usd], [true, 1.12]);
      const third = await b.runTurn(id, "three");
      assertEquals([third.done.cost_usd, third.done.session_cost_usd], [0.56, 1.68]);
      assertEquals(b.schemaErrors, []);
    }, { config: { pricing } });
  });
});
