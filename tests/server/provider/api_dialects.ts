/**
 * Scripted streams of the two non-Chat-Completions wire APIs, in their documented shapes:
 * Anthropic Messages (docs.anthropic.com/en/docs/build-with-claude/streaming) and OpenAI
 * Responses (platform.openai.com/docs/api-reference/responses-streaming). Each builder returns
 * a {@link MockReply} of raw SSE text; `refuses` is what the real API would answer a follow-up
 * request that lacks what it requires back.
 */
import type { Config } from "../../../server/config.ts";
import type { MockReply } from "../../support/mock_openai.ts";

/** One call the model makes. */
export interface Call {
  name: string;
  arguments: Record<string, unknown>;
}

/** How one wire API streams. */
export interface ApiDialect {
  name: string;
  provider: Config["provider"];
  /** The endpoint path under the base URL. */
  path: string;
  id: (i: number) => string;
  text: (text: string, reasoning?: string) => MockReply;
  tools: (calls: Call[], reasoning?: string) => MockReply;
  midError: (message: string) => MockReply;
  httpError: { status: number; body: string; message: string };
  /** Text deltas of `bytes` bytes in all, in pieces. */
  bigText: (bytes: number) => MockReply;
  /** One call whose arguments stream to `bytes` bytes. */
  bigArguments: (bytes: number) => MockReply;
  /** `n` calls. */
  manyCalls: (n: number) => MockReply;
  /** A single text event carrying `bytes` bytes. */
  bigEvent: (bytes: number) => MockReply;
  /** Keep-alive events padded to `bytes` in all, without any text. */
  padding: (bytes: number) => MockReply;
  /** Some text, then silence (for cancellation). */
  hang: (text: string) => MockReply;
  /** What the API answers a request lacking what it requires back. */
  refuses: (body: Record<string, unknown>) => { status: number; body: string } | undefined;
}

const sse = (event: string, data: Record<string, unknown>) =>
  `event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`;
const stream = (events: string[], extra: Partial<MockReply & { kind: "stream" }> = {}) =>
  ({ kind: "stream", events, done: false, ...extra }) as MockReply;

/** The signature this fixture signs thinking text with. */
export const thinkingSignature = (thinking: string) => `EqQBCkYIARgCKkC-${thinking.length}`;

// ---------------------------------------------------------------------------------------------
// Anthropic Messages

const msgStart = sse("message_start", {
  message: {
    id: "msg_01",
    type: "message",
    role: "assistant",
    content: [],
    model: "claude-sonnet-4-5",
    stop_reason: null,
    usage: { input_tokens: 9, cache_read_input_tokens: 2, output_tokens: 1 },
  },
});
const msgEnd = (stop: string) => [
  sse("message_delta", {
    delta: { stop_reason: stop, stop_sequence: null },
    usage: { output_tokens: 7 },
  }),
  sse("message_stop", {}),
];
const textBlock = (index: number, pieces: string[]) => [
  sse("content_block_start", { index, content_block: { type: "text", text: "" } }),
  ...pieces.map((text) =>
    sse("content_block_delta", { index, delta: { type: "text_delta", text } })
  ),
  sse("content_block_stop", { index }),
];
const thinkingBlock = (index: number, thinking: string) => [
  sse("content_block_start", { index, content_block: { type: "thinking", thinking: "" } }),
  sse("content_block_delta", {
    index,
    delta: { type: "thinking_delta", thinking: thinking.slice(0, 10) },
  }),
  sse("content_block_delta", {
    index,
    delta: { type: "thinking_delta", thinking: thinking.slice(10) },
  }),
  sse("content_block_delta", {
    index,
    delta: { type: "signature_delta", signature: thinkingSignature(thinking) },
  }),
  sse("content_block_stop", { index }),
];
const toolBlock = (index: number, id: string, c: Call) => {
  const args = JSON.stringify(c.arguments);
  const half = Math.floor(args.length / 2);
  return [
    sse("content_block_start", {
      index,
      content_block: { type: "tool_use", id, name: c.name, input: {} },
    }),
    sse("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: "" } }),
    sse("content_block_delta", {
      index,
      delta: { type: "input_json_delta", partial_json: args.slice(0, half) },
    }),
    sse("content_block_delta", {
      index,
      delta: { type: "input_json_delta", partial_json: args.slice(half) },
    }),
    sse("content_block_stop", { index }),
  ];
};
const halves = (
  t: string,
) => [t.slice(0, Math.ceil(t.length / 2)), t.slice(Math.ceil(t.length / 2))];
const ping = sse("ping", {});

type Block = Record<string, unknown>;
/** tool_use ids this fixture's model produced while thinking: only those need it back. */
const thought = new Set<string>();
type AMsg = { role: string; content: string | Block[] };

export const ANTHROPIC: ApiDialect = {
  name: "Anthropic Messages",
  provider: "anthropic",
  path: "/v1/messages",
  id: (i) => `toolu_01A${i}`,
  text: (text, reasoning) =>
    stream([
      msgStart,
      ping,
      ...(reasoning ? thinkingBlock(0, reasoning) : []),
      ...textBlock(reasoning ? 1 : 0, halves(text)),
      ...msgEnd("end_turn"),
    ]),
  tools: (calls, reasoning) => {
    const offset = reasoning ? 2 : 1;
    if (reasoning) calls.forEach((_, i) => thought.add(ANTHROPIC.id(i)));
    return stream([
      msgStart,
      ...(reasoning ? thinkingBlock(0, reasoning) : []),
      ...textBlock(offset - 1, ["Let me look."]),
      ...calls.flatMap((c, i) => toolBlock(i + offset, ANTHROPIC.id(i), c)),
      ...msgEnd("tool_use"),
    ]);
  },
  midError: (message) =>
    stream([
      msgStart,
      sse("content_block_start", { index: 0, content_block: { type: "text", text: "" } }),
      sse("content_block_delta", { index: 0, delta: { type: "text_delta", text: "Partial" } }),
      sse("error", { error: { type: "overloaded_error", message } }),
    ]),
  httpError: {
    status: 400,
    body: JSON.stringify({
      type: "error",
      error: {
        type: "invalid_request_error",
        message: "max_tokens: 8192 > 4096, which is the maximum allowed",
      },
    }),
    message: "max_tokens: 8192 > 4096, which is the maximum allowed",
  },
  bigText: (bytes) => {
    const piece = "x".repeat(16 * 1024);
    return stream([
      msgStart,
      ...textBlock(0, Array(Math.ceil(bytes / piece.length)).fill(piece)),
      ...msgEnd("end_turn"),
    ]);
  },
  bigArguments: (bytes) => {
    const piece = "a".repeat(16 * 1024);
    const n = Math.ceil(bytes / piece.length);
    return stream([
      msgStart,
      sse("content_block_start", {
        index: 0,
        content_block: { type: "tool_use", id: "toolu_big", name: "glob", input: {} },
      }),
      sse("content_block_delta", {
        index: 0,
        delta: { type: "input_json_delta", partial_json: '{"pattern":"' },
      }),
      ...Array.from(
        { length: n },
        () =>
          sse("content_block_delta", {
            index: 0,
            delta: { type: "input_json_delta", partial_json: piece },
          }),
      ),
      sse("content_block_delta", {
        index: 0,
        delta: { type: "input_json_delta", partial_json: '"}' },
      }),
      sse("content_block_stop", { index: 0 }),
      ...msgEnd("tool_use"),
    ]);
  },
  manyCalls: (n) =>
    stream([
      msgStart,
      ...Array.from({ length: n }, (_, i) =>
        toolBlock(i, `toolu_m${i}`, { name: "glob", arguments: { pattern: "*" } })).flat(),
      ...msgEnd("tool_use"),
    ]),
  bigEvent: (bytes) =>
    stream([
      msgStart,
      sse("content_block_start", { index: 0, content_block: { type: "text", text: "" } }),
      sse("content_block_delta", {
        index: 0,
        delta: { type: "text_delta", text: "y".repeat(bytes) },
      }),
    ]),
  padding: (bytes) => {
    const pad = sse("ping", { pad: "p".repeat(256 * 1024) });
    return stream([
      msgStart,
      ...Array(Math.ceil(bytes / pad.length) + 1).fill(pad),
      ...msgEnd("end_turn"),
    ]);
  },
  hang: (text) =>
    stream([
      msgStart,
      sse("content_block_start", { index: 0, content_block: { type: "text", text: "" } }),
      sse("content_block_delta", { index: 0, delta: { type: "text_delta", text } }),
    ], { hang: true }),
  refuses: (body) => {
    // The API requires a tool-use turn's signed thinking back, unchanged, before its tool_use.
    for (const m of body.messages as AMsg[]) {
      if (m.role !== "assistant" || typeof m.content === "string") continue;
      const hasTool = m.content.some((b) => b.type === "tool_use" && thought.has(String(b.id)));
      const thinking = m.content.filter((b) => b.type === "thinking");
      const bad = hasTool && (thinking.length === 0 || m.content[0]!.type !== "thinking" ||
        thinking.some((b) => b.signature !== thinkingSignature(String(b.thinking))));
      if (bad) {
        return {
          status: 400,
          body: JSON.stringify({
            type: "error",
            error: {
              type: "invalid_request_error",
              message:
                "messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `text`. When `thinking` is enabled, a final `assistant` message must start with a thinking block.",
            },
          }),
        };
      }
    }
  },
};

// ---------------------------------------------------------------------------------------------
// OpenAI Responses

const resp = (status: string, extra: Record<string, unknown> = {}) => ({
  id: "resp_1",
  object: "response",
  status,
  model: "gpt-5",
  output: [],
  ...extra,
});
const usage = { input_tokens: 11, output_tokens: 7, total_tokens: 18 };
const created = sse("response.created", { response: resp("in_progress") });
const completed = sse("response.completed", { response: resp("completed", { usage }) });
/** The encrypted reasoning this fixture's model returns for `summary`. */
export const encryptedOf = (summary: string) => `gAAAAB-${summary.length}`;
const reasoningItem = (index: number, summary: string) => {
  const item = {
    id: `rs_${index}`,
    type: "reasoning",
    summary: [{ type: "summary_text", text: summary }],
    encrypted_content: encryptedOf(summary),
  };
  return [
    sse("response.output_item.added", {
      output_index: index,
      item: { ...item, summary: [], encrypted_content: null },
    }),
    ...halves(summary).map((delta) =>
      sse("response.reasoning_summary_text.delta", {
        item_id: `rs_${index}`,
        output_index: index,
        summary_index: 0,
        delta,
      })
    ),
    sse("response.output_item.done", { output_index: index, item }),
  ];
};
const messageItem = (index: number, pieces: string[]) => [
  sse("response.output_item.added", {
    output_index: index,
    item: {
      id: `msg_${index}`,
      type: "message",
      role: "assistant",
      status: "in_progress",
      content: [],
    },
  }),
  ...pieces.map((delta) =>
    sse("response.output_text.delta", {
      item_id: `msg_${index}`,
      output_index: index,
      content_index: 0,
      delta,
    })
  ),
  sse("response.output_item.done", {
    output_index: index,
    item: {
      id: `msg_${index}`,
      type: "message",
      role: "assistant",
      status: "completed",
      content: [{ type: "output_text", text: pieces.join("") }],
    },
  }),
];
const callItem = (index: number, callId: string, c: Call) => {
  const args = JSON.stringify(c.arguments);
  const half = Math.floor(args.length / 2);
  const item = {
    id: `fc_${index}`,
    type: "function_call",
    status: "in_progress",
    call_id: callId,
    name: c.name,
    arguments: "",
  };
  return [
    sse("response.output_item.added", { output_index: index, item }),
    sse("response.function_call_arguments.delta", {
      item_id: `fc_${index}`,
      output_index: index,
      delta: args.slice(0, half),
    }),
    sse("response.function_call_arguments.delta", {
      item_id: `fc_${index}`,
      output_index: index,
      delta: args.slice(half),
    }),
    sse("response.function_call_arguments.done", {
      item_id: `fc_${index}`,
      output_index: index,
      arguments: args,
    }),
    sse("response.output_item.done", {
      output_index: index,
      item: { ...item, status: "completed", arguments: args },
    }),
  ];
};
type RItem = Record<string, unknown>;
/** Calls this fixture's model made while reasoning: only those need their reasoning back. */
const reasoned = new Set<string>();

export const RESPONSES: ApiDialect = {
  name: "OpenAI Responses",
  provider: "openai-responses",
  path: "/v1/responses",
  id: (i) => `call_R${i}`,
  text: (text, reasoning) =>
    stream([
      created,
      ...(reasoning ? reasoningItem(0, reasoning) : []),
      ...messageItem(reasoning ? 1 : 0, halves(text)),
      completed,
    ]),
  tools: (calls, reasoning) => {
    const offset = reasoning ? 1 : 0;
    if (reasoning) calls.forEach((_, i) => reasoned.add(RESPONSES.id(i)));
    return stream([
      created,
      ...(reasoning ? reasoningItem(0, reasoning) : []),
      ...calls.flatMap((c, i) => callItem(i + offset, RESPONSES.id(i), c)),
      completed,
    ]);
  },
  midError: (message) =>
    stream([
      created,
      ...messageItem(0, ["Partial"]).slice(0, 2),
      sse("error", { code: "server_error", message, param: null, sequence_number: 9 }),
    ]),
  httpError: {
    status: 400,
    body: JSON.stringify({
      error: {
        message: "The model `gpt-9` does not exist or you do not have access to it.",
        type: "invalid_request_error",
        param: null,
        code: "model_not_found",
      },
    }),
    message: "The model `gpt-9` does not exist or you do not have access to it.",
  },
  bigText: (bytes) => {
    const piece = "x".repeat(16 * 1024);
    return stream([
      created,
      ...messageItem(0, Array(Math.ceil(bytes / piece.length)).fill(piece)),
      completed,
    ]);
  },
  bigArguments: (bytes) => {
    const piece = "a".repeat(16 * 1024);
    const n = Math.ceil(bytes / piece.length);
    const item = {
      id: "fc_big",
      type: "function_call",
      call_id: "call_big",
      name: "glob",
      arguments: "",
    };
    return stream([
      created,
      sse("response.output_item.added", { output_index: 0, item }),
      ...Array.from(
        { length: n },
        () =>
          sse("response.function_call_arguments.delta", {
            item_id: "fc_big",
            output_index: 0,
            delta: piece,
          }),
      ),
      completed,
    ]);
  },
  manyCalls: (n) =>
    stream([
      created,
      ...Array.from({ length: n }, (_, i) =>
        callItem(i, `call_m${i}`, { name: "glob", arguments: { pattern: "*" } })).flat(),
      completed,
    ]),
  bigEvent: (bytes) =>
    stream([
      created,
      sse("response.output_text.delta", {
        item_id: "m",
        output_index: 0,
        content_index: 0,
        delta: "y".repeat(bytes),
      }),
    ]),
  padding: (bytes) => {
    const pad = sse("response.in_progress", {
      response: resp("in_progress"),
      pad: "p".repeat(256 * 1024),
    });
    return stream([created, ...Array(Math.ceil(bytes / pad.length) + 1).fill(pad), completed]);
  },
  hang: (text) =>
    stream([
      created,
      sse("response.output_text.delta", {
        item_id: "m",
        output_index: 0,
        content_index: 0,
        delta: text,
      }),
    ], { hang: true }),
  refuses: (body) => {
    if (body.store !== false) {
      return {
        status: 400,
        body: JSON.stringify({
          error: { message: "fixture: expected store false", type: "invalid_request_error" },
        }),
      };
    }
    // Statelessly, a function_call item must follow the reasoning item it came with, unchanged.
    const input = body.input as RItem[];
    for (const [i, item] of input.entries()) {
      if (item.type !== "function_call" || !reasoned.has(String(item.call_id))) continue;
      let j = i - 1;
      while (j >= 0 && input[j]!.type === "function_call") j--;
      const r = input[j];
      if (
        !r || r.type !== "reasoning" ||
        r.encrypted_content !== encryptedOf(String((r.summary as RItem[])[0]?.text))
      ) {
        return {
          status: 400,
          body: JSON.stringify({
            error: {
              message: `Item '${
                item.id ?? "fc"
              }' of type 'function_call' was provided without its required 'reasoning' item.`,
              type: "invalid_request_error",
              param: "input",
              code: null,
            },
          }),
        };
      }
    }
  },
};
