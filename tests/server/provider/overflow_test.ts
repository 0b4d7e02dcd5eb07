/**
 * Overflow and loading answers as each server words them (from their sources), and what is not
 * one.
 */
import { assertEquals } from "../../support/assert.ts";
import { contextOverflowOf, isModelLoading } from "../../../server/provider/overflow.ts";

Deno.test("each server's overflow wording is understood, with the window and prompt size it names", () => {
  const cases: Array<[string, number, string, { window?: number; promptTokens?: number }]> = [
    [
      "llama.cpp",
      400,
      JSON.stringify({
        error: {
          code: 400,
          message:
            "request (2477 tokens) exceeds the available context size (2048 tokens), try increasing it",
          type: "exceed_context_size_error",
          n_prompt_tokens: 2477,
          n_ctx: 2048,
        },
      }),
      { window: 2048, promptTokens: 2477 },
    ],
    [
      "OpenAI",
      400,
      JSON.stringify({
        error: {
          message:
            "This model's maximum context length is 128000 tokens. However, your messages resulted in 130123 tokens. Please reduce the length of the messages.",
          type: "invalid_request_error",
          param: "messages",
          code: "context_length_exceeded",
        },
      }),
      { window: 128000, promptTokens: 130123 },
    ],
    [
      "vLLM",
      400,
      JSON.stringify({
        object: "error",
        message:
          "This model's maximum context length is 2048 tokens. However, you requested 2100 tokens (1600 in the messages, 500 in the completion). Please reduce the length of the messages or completion.",
        type: "BadRequestError",
        code: 400,
      }),
      { window: 2048, promptTokens: 2100 },
    ],
    [
      "vLLM (newer)",
      400,
      JSON.stringify({
        object: "error",
        message:
          "This model's maximum context length is 4096 tokens and your request has 5000 input tokens",
      }),
      { window: 4096, promptTokens: 5000 },
    ],
    [
      "Anthropic",
      400,
      JSON.stringify({
        type: "error",
        error: {
          type: "invalid_request_error",
          message: "prompt is too long: 208310 tokens > 200000 maximum",
        },
      }),
      { window: 200000, promptTokens: 208310 },
    ],
    [
      "Ollama",
      400,
      JSON.stringify({ error: "the input length exceeds the context length" }),
      {},
    ],
    [
      "LM Studio",
      400,
      JSON.stringify({
        error:
          "Trying to keep the first 2500 tokens when context the overflows. However, the model is loaded with context length of only 2048 tokens, which is not enough. Try to load the model with a larger context length, or provide a shorter input",
      }),
      { window: 2048, promptTokens: 2500 },
    ],
    ["a proxy's plain text", 413, "context length exceeded", {}],
  ];
  for (const [who, status, body, want] of cases) {
    assertEquals(contextOverflowOf(status, body), want, who);
  }
});

Deno.test("other errors, and overflow words on a 5xx or 429, are not an overflow", () => {
  assertEquals(
    contextOverflowOf(400, JSON.stringify({ error: { message: "bad model" } })),
    undefined,
  );
  assertEquals(contextOverflowOf(401, "maximum context length is 10 tokens"), undefined);
  assertEquals(contextOverflowOf(429, "prompt is too long"), undefined);
  assertEquals(contextOverflowOf(500, "context length exceeded"), undefined);
  // Nonsense numbers are dropped, the overflow still recognised.
  assertEquals(contextOverflowOf(400, "maximum context length is 0 tokens"), {});
});

Deno.test("a loading model is recognised by llama.cpp's 503, not by other 503s or other statuses", () => {
  const llama = JSON.stringify({
    error: { message: "Loading model", type: "unavailable_error", code: 503 },
  });
  assertEquals(isModelLoading(503, llama), true);
  assertEquals(isModelLoading(503, "Stream owner model is loading, retry later"), true);
  assertEquals(
    isModelLoading(503, JSON.stringify({ error: { message: "no slot available" } })),
    false,
  );
  assertEquals(isModelLoading(500, llama), false);
  assertEquals(isModelLoading(503, "Service Unavailable"), false);
});
