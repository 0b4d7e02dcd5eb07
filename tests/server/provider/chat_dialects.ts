/**
 * Recorded-shape fixtures of the OpenAI-compatible servers CONTRACT.md names: how each streams
 * text, tool calls, reasoning and errors, and what each refuses in a follow-up request. Each
 * dialect cites where its shapes come from. Compact on purpose: a few knobs per server, and one
 * set of builders that turn them into the exact SSE bytes.
 */
import type { Config } from "../../../server/config.ts";
import type { MockReply } from "../../support/mock_openai.ts";

/** A refusal a server answers a request it does not accept with. */
export interface Refusal {
  status: number;
  body: string;
}

/** How one server speaks Chat Completions. */
export interface Dialect {
  name: string;
  /** Where the shapes come from. */
  source: string;
  /** Config besides `base_url` (a suffix for it, headers). */
  config?: Partial<Config>;
  /** Appended to the mock's base URL (Azure's `/openai/v1`). */
  basePath?: string;
  env?: Record<string, string>;
  /** How reasoning streams; none: the server does not stream thought text. */
  reasoning?: "reasoning_content" | "reasoning" | "parts";
  /** split: id and name first, arguments in pieces (OpenAI); whole: one chunk per call
   * (Ollama, Mistral); no_index: no `index`, arguments over several chunks (Gemini). */
  tools: "split" | "whole" | "no_index";
  usage: "final_chunk" | "with_finish" | "x_groq";
  /** Gemini: a thought signature on each call, required back. */
  signatures?: boolean;
  /** Tool call id for call `i` of a response. */
  id: (i: number, n: number) => string;
  /** A keep-alive comment the server interleaves (OpenRouter). */
  comment?: string;
  /** The raw SSE text of a mid-stream error carrying `message`. */
  midError: (message: string) => string;
  /** The server drops a mid-stream error's message on the wire (Ollama): the turn can only say
   * the stream ended early. */
  midErrorLost?: true;
  /** The server ends the stream right after a mid-stream error, with no `data: [DONE]`. */
  midErrorEndsStream?: true;
  /** An HTTP error answer and the provider's own message in it. */
  /**
   * A 400 the server answers in its own shape (not a context overflow: scv 0.3 compacts and
   * retries those, see tests/server/local_models_test.ts).
   */
  httpError: { status: number; body: string; message: string };
  /** Why this server would refuse a request body (its validation), if it would. */
  refuses?: (body: Record<string, unknown>) => Refusal | undefined;
}

const data = (v: unknown) => `data: ${JSON.stringify(v)}\n\n`;
const chunk = (delta: Record<string, unknown>, finish: string | null = null, extra = {}) => ({
  id: "chatcmpl-1",
  object: "chat.completion.chunk",
  created: 1,
  model: "m",
  choices: [{ index: 0, delta, finish_reason: finish }],
  ...extra,
});

/** A usage report of `n` = [prompt, completion] tokens, where this dialect puts it. */
function finishFrames(d: Dialect, finish: string, n: [number, number]): string[] {
  const usage = { prompt_tokens: n[0], completion_tokens: n[1], total_tokens: n[0] + n[1] };
  if (d.usage === "with_finish") return [data(chunk({}, finish, { usage }))];
  if (d.usage === "x_groq") {
    return [
      data(chunk({}, finish, { x_groq: { id: "req_1", usage: { ...usage, queue_time: 0.01 } } })),
    ];
  }
  return [data(chunk({}, finish)), data({ ...chunk({}), choices: [], usage })];
}

function reasoningFrames(d: Dialect, reasoning: string): string[] {
  if (!d.reasoning || !reasoning) return [];
  const half = Math.ceil(reasoning.length / 2);
  return [reasoning.slice(0, half), reasoning.slice(half)].map((r) =>
    d.reasoning === "parts"
      ? data(chunk({ content: [{ type: "thinking", thinking: [{ type: "text", text: r }] }] }))
      : data(chunk({ [d.reasoning!]: r }))
  );
}

/** A streamed text answer (after optional reasoning), with usage. */
export function textReply(
  d: Dialect,
  text: string,
  reasoning = "",
  n: [number, number] = [11, 7],
): MockReply {
  const half = Math.ceil(text.length / 2);
  const events = [
    data(chunk({ role: "assistant", content: "" })),
    ...(d.comment ? [d.comment] : []),
    ...reasoningFrames(d, reasoning),
    ...[text.slice(0, half), text.slice(half)].map((t) =>
      data(chunk({ content: d.reasoning === "parts" ? [{ type: "text", text: t }] : t }))
    ),
    ...finishFrames(d, "stop", n),
  ];
  return { kind: "stream", events };
}

/** A signature this fixture's Gemini gives call `id`. */
export const signatureOf = (id: string) => `sig-${id}`;

/** A streamed tool-call answer of `calls` (after optional reasoning), with usage. */
export function toolReply(
  d: Dialect,
  calls: Array<{ name: string; arguments: Record<string, unknown> }>,
  reasoning = "",
): MockReply {
  const events: string[] = [
    data(chunk({ role: "assistant", content: null })),
    ...reasoningFrames(d, reasoning),
  ];
  calls.forEach((c, i) => {
    const id = d.id(i, calls.length);
    const args = JSON.stringify(c.arguments);
    const half = Math.floor(args.length / 2);
    const extra = d.signatures
      ? { extra_content: { google: { thought_signature: signatureOf(id) } } }
      : {};
    if (d.tools === "whole") {
      events.push(data(chunk({
        tool_calls: [{
          index: i,
          id,
          type: "function",
          function: { name: c.name, arguments: args },
        }],
      })));
    } else if (d.tools === "split") {
      events.push(data(chunk({
        tool_calls: [{ index: i, id, type: "function", function: { name: c.name, arguments: "" } }],
      })));
      for (const piece of [args.slice(0, half), args.slice(half)]) {
        events.push(data(chunk({ tool_calls: [{ index: i, function: { arguments: piece } }] })));
      }
    } else {
      events.push(data(chunk({
        tool_calls: [{
          id,
          type: "function",
          function: { name: c.name, arguments: args.slice(0, half) },
          ...extra,
        }],
      })));
      events.push(data(chunk({ tool_calls: [{ function: { arguments: args.slice(half) } }] })));
    }
  });
  events.push(...finishFrames(d, "tool_calls", [11, 7]));
  return { kind: "stream", events };
}

/** Some text, then the dialect's mid-stream error, then `[DONE]` unless the server ends there. */
export function midErrorReply(d: Dialect, message: string): MockReply {
  return {
    kind: "stream",
    done: !d.midErrorEndsStream,
    events: [
      data(chunk({ role: "assistant", content: "" })),
      data(chunk({ content: "Partial" })),
      d.midError(message),
    ],
  };
}

const openaiError = (message: string) =>
  data({ error: { message, type: "server_error", param: null, code: null } });
const objectError = (message: string) =>
  data({ object: "error", message, type: "InternalServerError", param: null, code: 500 });
const alnum9 = (i: number) => `Ab3dE5gH${i}`;

/** Keys a strict (Mistral-style, extra fields forbidden) server accepts. */
const STRICT_TOP = new Set([
  "model",
  "messages",
  "tools",
  "stream",
  "temperature",
  "max_tokens",
  "tool_choice",
]);
const STRICT_MESSAGE = new Set(["role", "content", "tool_calls", "tool_call_id", "name", "prefix"]);
const STRICT_CALL = new Set(["id", "type", "function", "index"]);

function extraForbidden(loc: string[]): Refusal {
  return {
    status: 422,
    body: JSON.stringify({
      object: "error",
      message: {
        detail: [{
          type: "extra_forbidden",
          loc,
          msg: "Extra inputs are not permitted",
          input: {},
        }],
      },
      type: "invalid_request_error",
      param: null,
      code: null,
    }),
  };
}

type Msg = Record<string, unknown> & { tool_calls?: Array<Record<string, unknown>> };

/** Every dialect of CONTRACT.md's list. */
export const DIALECTS: Dialect[] = [
  {
    name: "OpenAI",
    source: "platform.openai.com/docs/api-reference/chat-streaming (chunk object, include_usage)",
    tools: "split",
    usage: "final_chunk",
    id: (i) => `call_abc${i}`,
    midError: openaiError,
    httpError: {
      status: 401,
      body: JSON.stringify({
        error: {
          message: "Incorrect API key provided: sk-te****.",
          type: "invalid_request_error",
          param: null,
          code: "invalid_api_key",
        },
      }),
      message: "Incorrect API key provided: sk-te****.",
    },
  },
  {
    name: "Azure OpenAI",
    source:
      "learn.microsoft.com/azure/ai-foundry/openai/reference (v1 API: /openai/v1, api-key header)",
    basePath: "/openai/v1",
    config: { provider_headers: { "api-key": "${AZURE_OPENAI_API_KEY}" } },
    env: { AZURE_OPENAI_API_KEY: "azure-secret-key-0123456789" },
    tools: "split",
    usage: "final_chunk",
    id: (i) => `call_az${i}`,
    midError: openaiError,
    httpError: {
      status: 404,
      body: JSON.stringify({
        error: {
          code: "DeploymentNotFound",
          message: "The API deployment for this resource does not exist.",
        },
      }),
      message: "The API deployment for this resource does not exist.",
    },
  },
  {
    name: "Ollama",
    source:
      "github.com/ollama/ollama openai/openai.go (ChunkChoice, ToToolCalls: one whole call per delta with id and index, reasoning field, NewError types) and middleware/openai.go (ChatWriter); server/routes.go streamResponse",
    reasoning: "reasoning",
    tools: "whole",
    usage: "final_chunk",
    id: (i) => `call_hk81qg8${i}`,
    // streamResponse writes a mid-stream failure as `{"error": "..."}` through ChatWriter, whose
    // status is already 200: writeResponse decodes it as an api.ChatResponse (the field is
    // unknown there), so the wire gets one empty delta and the stream ends, without [DONE].
    midError: () =>
      data({ ...chunk({ role: "assistant", content: "" }), system_fingerprint: "fp_ollama" }),
    midErrorLost: true,
    midErrorEndsStream: true,
    httpError: {
      status: 404,
      body: JSON.stringify({
        error: {
          message: 'model "qwen3:99b" not found, try pulling it first',
          // NewError: 404 is "not_found_error" (400 "invalid_request_error", else "api_error").
          type: "not_found_error",
          param: null,
          code: null,
        },
      }),
      message: 'model "qwen3:99b" not found, try pulling it first',
    },
  },
  {
    name: "llama.cpp server (older builds)",
    source:
      'github.com/ggml-org/llama.cpp examples/server before the 2025 server refactor (reasoning_content, usage on the finish chunk, server_sent_event(sink, "error", ...) then data: [DONE])',
    reasoning: "reasoning_content",
    tools: "split",
    usage: "with_finish",
    id: (i) => `HqG1iRc${i}`,
    midError: (m) =>
      `error: ${
        JSON.stringify({ code: 500, message: m, type: "server_error" })
      }\n\ndata: [DONE]\n\n`,
    httpError: {
      status: 400,
      body: JSON.stringify({
        error: {
          code: 400,
          message: "Failed to parse grammar",
          type: "invalid_request_error",
        },
      }),
      message: "Failed to parse grammar",
    },
  },
  {
    name: "llama.cpp server (current)",
    source:
      "github.com/ggml-org/llama.cpp tools/server server-task.cpp to_json_oaicompat_chat_stream (usage on its own last chunk with empty choices, OpenAI's include_usage shape) and server.cpp handle_completions_impl (an error result is format_oai_sse({error}) and ends the stream: no [DONE])",
    reasoning: "reasoning_content",
    tools: "split",
    usage: "final_chunk",
    id: (i) => `Xq7TnB2mW9rLk4sVd8cJ1pYh6uFz0aE${i}`,
    midError: (m) => data({ error: { code: 500, message: m, type: "server_error" } }),
    midErrorEndsStream: true,
    httpError: {
      status: 400,
      body: JSON.stringify({
        error: {
          code: 400,
          message: "Failed to parse grammar",
          type: "invalid_request_error",
        },
      }),
      message: "Failed to parse grammar",
    },
  },
  {
    name: "vLLM (older builds)",
    source:
      "github.com/vllm-project/vllm entrypoints/openai/protocol.py before 2025 (ErrorResponse object:error, DeltaMessage.reasoning_content)",
    reasoning: "reasoning_content",
    tools: "split",
    usage: "final_chunk",
    id: (i) => `chatcmpl-tool-${i}`,
    midError: (m) => objectError(m) + "data: [DONE]\n\n",
    httpError: {
      status: 400,
      body: JSON.stringify({
        object: "error",
        message: "[{'type': 'missing', 'loc': ('body', 'messages'), 'msg': 'Field required'}]",
        type: "BadRequestError",
        param: null,
        code: 400,
      }),
      message: "[{'type': 'missing', 'loc': ('body', 'messages'), 'msg': 'Field required'}]",
    },
  },
  {
    name: "vLLM (current)",
    source:
      "github.com/vllm-project/vllm entrypoints/openai protocol (ErrorResponse{error: ErrorInfo}, DeltaMessage.reasoning; reasoning_content removed) and serving_chat (a streaming error is data: {error} then data: [DONE])",
    reasoning: "reasoning",
    tools: "split",
    usage: "final_chunk",
    id: (i) => `chatcmpl-tool-3f9a1c0b7d2e4f6a8b5c9d0e1f2a3b4${i}`,
    midError: (m) =>
      data({ error: { message: m, type: "InternalServerError", param: null, code: 500 } }) +
      "data: [DONE]\n\n",
    httpError: {
      status: 400,
      body: JSON.stringify({
        error: {
          message: "[{'type': 'missing', 'loc': ('body', 'messages'), 'msg': 'Field required'}]",
          type: "BadRequestError",
          param: null,
          code: 400,
        },
      }),
      message: "[{'type': 'missing', 'loc': ('body', 'messages'), 'msg': 'Field required'}]",
    },
  },
  {
    name: "LM Studio",
    source: "lmstudio.ai/docs/app/api/endpoints/openai (OpenAI-compatible chunks, reasoning field)",
    reasoning: "reasoning",
    tools: "split",
    usage: "final_chunk",
    id: (i) => `${1000 + i}`,
    midError: openaiError,
    httpError: {
      status: 400,
      body: JSON.stringify({ error: 'Model "nope" not found. Please load it first.' }),
      message: 'Model "nope" not found. Please load it first.',
    },
  },
  {
    name: "OpenRouter",
    source:
      "openrouter.ai/docs/api-reference/streaming (comments, mid-stream error with finish_reason error, reasoning field)",
    config: { provider_headers: { "HTTP-Referer": "https://example.org/scv", "X-Title": "scv" } },
    comment: ": OPENROUTER PROCESSING\n\n",
    reasoning: "reasoning",
    tools: "split",
    usage: "final_chunk",
    id: (i) => `toolu_vrtx_0${i}`,
    midError: (m) =>
      data({ ...chunk({ content: "" }, "error"), error: { code: "server_error", message: m } }) +
      "data: [DONE]\n\n",
    httpError: {
      status: 402,
      body: JSON.stringify({ error: { code: 402, message: "Insufficient credits", metadata: {} } }),
      message: "Insufficient credits",
    },
  },
  {
    name: "DeepSeek",
    source:
      "api-docs.deepseek.com/guides/thinking_mode (reasoning_content; tool-call turns must send it back or 400)",
    reasoning: "reasoning_content",
    tools: "split",
    usage: "final_chunk",
    id: (i) => `call_00_ds${i}`,
    midError: openaiError,
    httpError: {
      status: 402,
      body: JSON.stringify({
        error: {
          message: "Insufficient Balance",
          type: "unknown_error",
          param: null,
          code: "invalid_request_error",
        },
      }),
      message: "Insufficient Balance",
    },
    refuses: (body) => {
      const msgs = body.messages as Msg[];
      if (
        msgs.some((m) =>
          m.role === "assistant" && m.tool_calls && typeof m.reasoning_content !== "string"
        )
      ) {
        return {
          status: 400,
          body: JSON.stringify({
            error: {
              message: "The reasoning_content in the thinking mode must be passed back to the API.",
              type: "invalid_request_error",
              param: null,
              code: "invalid_request_error",
            },
          }),
        };
      }
    },
  },
  {
    name: "Groq",
    source: "console.groq.com/docs/api-reference (x_groq.usage on the last chunk, reasoning field)",
    reasoning: "reasoning",
    tools: "split",
    usage: "x_groq",
    id: (i) => `call_groq${i}`,
    midError: (m) => data({ error: { message: m, type: "internal_server_error" } }),
    httpError: {
      status: 404,
      body: JSON.stringify({
        error: {
          message: "The model `llama-9` does not exist or you do not have access to it.",
          type: "invalid_request_error",
          code: "model_not_found",
        },
      }),
      message: "The model `llama-9` does not exist or you do not have access to it.",
    },
  },
  {
    name: "Mistral",
    source:
      "docs.mistral.ai/api (extra fields forbidden: 422 extra_forbidden; magistral thinking content parts; 9-char ids)",
    reasoning: "parts",
    tools: "whole",
    usage: "with_finish",
    id: alnum9,
    midError: objectError,
    httpError: {
      status: 400,
      body: JSON.stringify({
        object: "error",
        message: "Invalid model: mistral-huge",
        type: "invalid_model",
        param: null,
        code: "1500",
      }),
      message: "Invalid model: mistral-huge",
    },
    refuses: (body) => {
      for (const k of Object.keys(body)) if (!STRICT_TOP.has(k)) return extraForbidden(["body", k]);
      for (const [i, m] of (body.messages as Msg[]).entries()) {
        for (const k of Object.keys(m)) {
          if (!STRICT_MESSAGE.has(k)) return extraForbidden(["body", "messages", String(i), k]);
        }
        for (const c of m.tool_calls ?? []) {
          for (const k of Object.keys(c)) {
            if (!STRICT_CALL.has(k)) {
              return extraForbidden(["body", "messages", String(i), "tool_calls", k]);
            }
          }
        }
      }
    },
  },
  {
    name: "Together",
    source: "docs.together.ai/reference/chat-completions (usage on the finish chunk)",
    reasoning: "reasoning",
    tools: "split",
    usage: "with_finish",
    id: (i) => `call_tg${i}`,
    midError: openaiError,
    httpError: {
      status: 401,
      body: JSON.stringify({
        error: {
          message:
            "Invalid API key provided. You can find your API key at https://api.together.xyz/settings/api-keys.",
          type: "invalid_request_error",
          param: null,
          code: "invalid_api_key",
        },
      }),
      message:
        "Invalid API key provided. You can find your API key at https://api.together.xyz/settings/api-keys.",
    },
  },
  {
    name: "Fireworks",
    source:
      "docs.fireworks.ai/api-reference/post-chatcompletions (reasoning_content, nested error objects)",
    reasoning: "reasoning_content",
    tools: "split",
    usage: "final_chunk",
    id: (i) => `call_fw${i}`,
    midError: (m) =>
      data({ error: { object: "error", type: "internal_server_error", message: m } }),
    httpError: {
      status: 400,
      body: JSON.stringify({
        error: {
          object: "error",
          type: "invalid_request_error",
          message: "Model not found, inaccessible, and/or not deployed",
        },
      }),
      message: "Model not found, inaccessible, and/or not deployed",
    },
  },
  {
    name: "Gemini (OpenAI-compatible)",
    source:
      "ai.google.dev/gemini-api/docs/openai and /thought-signatures (extra_content.google.thought_signature required back, errors as a list)",
    // Thought text is not streamed here unless asked for; the signatures are what must return.
    tools: "no_index",
    usage: "final_chunk",
    signatures: true,
    id: (i) => `function-call-${i}`,
    midError: (m) => data([{ error: { code: 503, message: m, status: "UNAVAILABLE" } }]),
    httpError: {
      status: 400,
      body: JSON.stringify([{
        error: {
          code: 400,
          message: "API key not valid. Please pass a valid API key.",
          status: "INVALID_ARGUMENT",
        },
      }]),
      message: "API key not valid. Please pass a valid API key.",
    },
    refuses: (body) => {
      for (const m of body.messages as Msg[]) {
        for (const c of m.tool_calls ?? []) {
          const sig = (c.extra_content as { google?: { thought_signature?: string } } | undefined)
            ?.google?.thought_signature;
          if (sig !== signatureOf(String(c.id))) {
            return {
              status: 400,
              body: JSON.stringify([{
                error: {
                  code: 400,
                  message: "Function call is missing a thought_signature in functionCall parts.",
                  status: "INVALID_ARGUMENT",
                },
              }]),
            };
          }
        }
      }
    },
  },
];
