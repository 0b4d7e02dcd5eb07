/**
 * The provider interface the agent loop talks to, and the chat message shapes it carries.
 * Messages follow OpenAI Chat Completions, the first provider, so history needs no translation.
 *
 * @module
 */

/** One tool call requested by the assistant. `arguments` is the raw JSON text. */
export interface ChatToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

/** A canonical chat message. */
export type ChatMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string }
  | { role: "assistant"; content: string | null; tool_calls?: ChatToolCall[] }
  | { role: "tool"; tool_call_id: string; content: string };

/** A tool as offered to the model (OpenAI function format). */
export interface ToolSpec {
  type: "function";
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

/** Token counts one provider call reported; a field is absent when not reported. */
export interface ProviderUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
}

/** One provider call's input. */
export interface ProviderRequest {
  model: string;
  messages: ChatMessage[];
  tools: ToolSpec[];
  signal: AbortSignal;
  /** Awaited for each streamed text piece, so a slow consumer slows the read. */
  onDelta: (text: string) => Promise<void>;
}

/** One provider call's complete answer. */
export interface ProviderResponse {
  content: string;
  toolCalls: ChatToolCall[];
  usage?: ProviderUsage;
  finishReason?: string;
}

/** Why a provider call failed, mapped onto `turn.failed` codes. */
export type ProviderFailureCode = "provider_error" | "response_limit" | "tool_limit";

/** A provider call that failed; `message` is safe to show (never contains the API key). */
export class ProviderError extends Error {
  /** The `turn.failed` code this maps to. */
  readonly code: ProviderFailureCode;
  /** Builds the error. */
  constructor(code: ProviderFailureCode, message: string) {
    super(message);
    this.name = "ProviderError";
    this.code = code;
  }
}

/** Anything that can answer a chat request by streaming. */
export interface Provider {
  /** Streams one completion; rejects with {@link ProviderError}, or an AbortError on cancel. */
  complete(request: ProviderRequest): Promise<ProviderResponse>;
}
