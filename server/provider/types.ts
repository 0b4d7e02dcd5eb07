/**
 * The provider interface the agent loop talks to, and the chat message shapes it carries.
 * Messages follow OpenAI Chat Completions, the first provider, so history needs no translation.
 *
 * @module
 */
import { clip } from "../error_text.ts";
import type { ImagePart } from "../images/image_part.ts";
// A tool as offered to the model is the tools' description of themselves (tools/ sits below).
import type { ToolSpec } from "../tools/registry.ts";

export type { ImagePart, ToolSpec };

/** One tool call requested by the assistant. `arguments` is the raw JSON text. */
export interface ChatToolCall {
  /** The provider's id for the call; its result answers this id. */
  id: string;
  /** Always a function call. */
  type: "function";
  /** The tool's name and its arguments as the raw JSON text the model sent. */
  function: { name: string; arguments: string };
  /**
   * Provider data that must come back with this call, in the Chat Completions shape it arrived
   * in (Gemini's `{"google": {"thought_signature": ...}}`).
   */
  extra_content?: Record<string, unknown>;
}

/**
 * Reasoning a provider requires back on later requests, kept on the assistant message it came
 * with. Each provider sends back only its own part; the rest of the reasoning is not kept.
 */
export interface ProviderData {
  /** Anthropic's thinking blocks, signatures included, verbatim. */
  anthropic_thinking?: Array<Record<string, unknown>>;
  /** OpenAI Responses reasoning items (with `encrypted_content`), verbatim. */
  responses_reasoning?: Array<Record<string, unknown>>;
}

/** The assistant's message as it goes into the canonical history. */
export interface AssistantMessage {
  /** Always the assistant. */
  role: "assistant";
  /** The text; null when the message only calls tools. */
  content: string | null;
  /** The calls the message asks for, in order; omitted when none. */
  tool_calls?: ChatToolCall[];
  /** DeepSeek-style thinking text, sent back on tool-call messages as Chat Completions has it. */
  reasoning_content?: string;
  /** What other providers need back; see {@link ProviderData}. */
  provider_data?: ProviderData;
}

/** A user's message: the prompt and (scv 0.3) the images given with it. */
export interface UserMessage {
  /** Always the user. */
  role: "user";
  /** The prompt's text. */
  content: string;
  /** Images attached to the prompt, in order; omitted when none. */
  images?: ImagePart[];
}

/** A tool call's result. */
export interface ToolMessage {
  /** Always a tool result. */
  role: "tool";
  /** The call it answers. */
  tool_call_id: string;
  /** The output the model sees. */
  content: string;
  /** scv 0.3: images the tool gives the model (read_file of an image); omitted when none. */
  images?: ImagePart[];
}

/** A canonical chat message. */
export type ChatMessage =
  | { role: "system"; content: string }
  | UserMessage
  | AssistantMessage
  | ToolMessage;

/** Token counts one provider call reported; a field is absent when not reported. */
export interface ProviderUsage {
  /** Tokens of the request's prompt. */
  prompt_tokens?: number;
  /** Tokens of the answer. */
  completion_tokens?: number;
  /** Of `prompt_tokens`, those read from the provider's prompt cache. */
  cached_prompt_tokens?: number;
  /** Of `prompt_tokens`, those written to the prompt cache (Anthropic's cache creation). */
  cache_write_tokens?: number;
  /** Of `completion_tokens`, those spent on reasoning. */
  reasoning_tokens?: number;
}

/** One provider call's input. */
export interface ProviderRequest {
  /** The model to ask. */
  model: string;
  /** The prompt: the system message, then the canonical history. */
  messages: ChatMessage[];
  /** The tools the model may call. */
  tools: ToolSpec[];
  /** The context window in force, in tokens: a `length` finish that fills it says so. */
  contextWindow?: number;
  /** Cancels the call: the stream then throws the signal's reason. */
  signal: AbortSignal;
  /**
   * The longest text (UTF-16 code units) that joining the adjacent text pieces of one network
   * read may make (`join_text.ts`); absent or 0: each piece is its own event.
   */
  joinTextChars?: number;
}

/**
 * What a provider call yields, in order: text and reasoning as they stream, usage when
 * reported, notices, then every assembled tool call, then exactly one `done`, last.
 */
export type ProviderEvent =
  /** Assistant text, append-only. */
  | { type: "text"; text: string }
  /** Thinking text: never assistant text. */
  | { type: "reasoning"; text: string }
  /** A fully assembled call, in order, before `done`. */
  | { type: "tool_call"; call: ChatToolCall }
  | { type: "usage"; usage: ProviderUsage }
  /** Something the user should know (e.g. the model cannot use tools). */
  | { type: "notice"; message: string }
  /** The message to append to history. */
  | { type: "done"; message: AssistantMessage; finishReason?: string };

/** Why a provider call failed, mapped onto `turn.failed` codes. */
export type ProviderFailureCode =
  | "provider_error"
  | "response_limit"
  | "tool_limit"
  | "context_limit";

/** A provider call that failed; `message` is safe to show (never contains the API key). */
export class ProviderError extends Error {
  /** The `turn.failed` code this maps to. */
  readonly code: ProviderFailureCode;
  /**
   * The provider's own text the message quotes, kept whole: the provider's `callError` redacts
   * it and only then cuts it to `max` (cutting first could leave the start of a key).
   */
  readonly quote?: ProviderQuote;
  /** Builds the error; a {@link ProviderQuote} is shown cut until the provider redacts it. */
  constructor(code: ProviderFailureCode, message: string | ProviderQuote) {
    super(typeof message === "string" ? message : message.before + clip(message.text, message.max));
    this.name = "ProviderError";
    this.code = code;
    if (typeof message !== "string") this.quote = message;
  }
}

/**
 * The provider answered that the prompt does not fit its context window. The turn compacts to
 * the window it names (or its own estimate) and retries once; uncaught, it fails the turn with
 * `context_limit`.
 */
export class ContextOverflowError extends ProviderError {
  /** The server's window in tokens, when the answer named it. */
  readonly window: number | undefined;
  /** The prompt's size as the server counted it, when the answer named it. */
  readonly promptTokens: number | undefined;
  /** Builds the error; `message` must already be safe to show. */
  constructor(message: string, window?: number, promptTokens?: number) {
    super("context_limit", message);
    this.name = "ContextOverflowError";
    this.window = window;
    this.promptTokens = promptTokens;
  }
}

/** Provider text quoted in an error: `before`, then `text` cut to `max` characters. */
export interface ProviderQuote {
  /** scv's own words (no provider text). */
  before: string;
  /** The provider's text, whole (bounded by the event and body caps). */
  text: string;
  /** Characters of `text` shown, after redaction. */
  max: number;
}

/** Anything that can answer a chat request by streaming. */
export interface Provider {
  /**
   * scv 0.3: whether the API takes images (its models may still refuse them). Omitted: it does
   * not, and `read_file` of an image says so instead of giving the image.
   */
  readonly acceptsImages?: boolean;
  /**
   * One provider call, pulled by the caller (backpressure and cancellation follow from
   * pulling). Throws {@link ProviderError} on failure and the signal's reason when cancelled;
   * never yields after throwing. Breaking out of the loop releases the HTTP response.
   */
  stream(request: ProviderRequest): AsyncIterable<ProviderEvent>;
  /**
   * False when the server refused tools for `model` (remembered, see `memory.ts`): the turn then
   * offers none and its system prompt drops the tool instructions. Absent: tools are taken.
   */
  acceptsTools?(model: string): boolean;
}
