/** Unit tests of extracting the provider's own message from error bodies of any JSON shape. */
import { assertEquals } from "../../support/assert.ts";
import { errorMessageOf, errorTextOf } from "../../../server/provider/error_body.ts";

const cases: Array<[string, unknown, string | undefined]> = [
  // OpenAI, Groq, Together, Fireworks, DeepSeek: https://platform.openai.com/docs/guides/error-codes
  [
    "OpenAI error object",
    { error: { message: "Invalid API key", type: "auth" } },
    "Invalid API key",
  ],
  // vLLM (entrypoints/openai/protocol.py ErrorResponse, older versions)
  [
    "vLLM object:error",
    { object: "error", message: "model not found", code: 404 },
    "model not found",
  ],
  // Ollama: {"error":"..."}
  ["Ollama string error", { error: "model 'x' not found" }, "model 'x' not found"],
  // Gemini OpenAI-compatible endpoint: a list of Google errors
  ["Gemini error list", [{
    error: { code: 400, message: "API key not valid", status: "INVALID_ARGUMENT" },
  }], "API key not valid"],
  // Mistral: message is an object holding FastAPI's detail list
  [
    "Mistral message object",
    {
      object: "error",
      message: {
        detail: [{
          type: "extra_forbidden",
          loc: ["body", "stream_options"],
          msg: "Extra inputs are not permitted",
        }],
      },
      type: "invalid_request_error",
    },
    "body.stream_options: Extra inputs are not permitted",
  ],
  // FastAPI-style detail string (LM Studio, some proxies)
  ["detail string", { detail: "Not Found" }, "Not Found"],
  // Anthropic: {"type":"error","error":{"type","message"}}
  [
    "Anthropic error",
    { type: "error", error: { type: "overloaded_error", message: "Overloaded" } },
    "Overloaded",
  ],
  ["no message anywhere", { code: 500 }, undefined],
];

for (const [name, body, expected] of cases) {
  Deno.test(`the provider's message is found in an error body: ${name}`, () => {
    assertEquals(errorMessageOf(body), expected);
  });
}

Deno.test("an error body that is not JSON is its own message", () => {
  assertEquals(errorTextOf("  Bad Gateway \n"), "Bad Gateway");
  assertEquals(errorTextOf('{"half": '), '{"half":');
});

Deno.test("an error body searched deeper than six levels yields no message", () => {
  let v: unknown = { message: "deep" };
  for (let i = 0; i < 10; i++) v = { error: v };
  assertEquals(errorMessageOf(v), undefined);
});
