/**
 * What every stream accumulator (Chat Completions, Responses, Anthropic Messages) does the same
 * way at the end of a response: the tool calls with ids made unique and names and ids cut, the
 * assistant message, `done`; and a provider's reported error as a `provider_error`. Pure.
 *
 * @module
 */
import { clip } from "../error_text.ts";
import { errorMessageOf } from "./error_body.ts";
import {
  type AssistantMessage,
  type ChatToolCall,
  ProviderError,
  type ProviderEvent,
} from "./types.ts";

/** Provider-supplied text quoted in an error message is cut to this many characters. */
export const MAX_DETAIL_CHARS = 2000;
/** Tool call names and ids longer than this are cut (they are echoed in every tool event). */
export const MAX_TOOL_ID_CHARS = 256;

/** A tool call as an accumulator assembled it from the stream. */
export interface AssembledCall {
  /** The provider's id; may be empty or repeated. */
  id: string;
  /** The tool's name. */
  name: string;
  /** The arguments' JSON text as streamed. */
  args: string;
}

/**
 * The calls as the protocol takes them. Ids pair each result with its call, so a missing one
 * becomes `<fallback>_<i>` and a repeated one gets `_<i>` added; blank arguments become `{}`
 * when `blankAsEmptyObject`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { toolCalls } from "./response_end.ts";
 * const calls = toolCalls([{ id: "a", name: "x", args: "" }, { id: "a", name: "y", args: "{}" }], "call", true);
 * assert.deepEqual(calls.map((c) => [c.id, c.function.arguments]), [["a", "{}"], ["a_1", "{}"]]);
 * ```
 */
export function toolCalls(
  assembled: readonly AssembledCall[],
  fallback: string,
  blankAsEmptyObject: boolean,
): ChatToolCall[] {
  const seen = new Set<string>();
  return assembled.map((c, i) => {
    let id = clip(c.id, MAX_TOOL_ID_CHARS) || `${fallback}_${i}`;
    if (seen.has(id)) id = `${id}_${i}`;
    seen.add(id);
    return {
      id,
      type: "function",
      function: {
        name: clip(c.name, MAX_TOOL_ID_CHARS),
        arguments: blankAsEmptyObject && c.args.trim() === "" ? "{}" : c.args,
      },
    };
  });
}

/**
 * The events that close a response: every call, in order, then `done` with the assistant
 * message. `carried` is what a tool-call message must carry back on the next request (a final
 * answer's reasoning is not needed again).
 */
export function closingEvents(
  calls: ChatToolCall[],
  text: string,
  finishReason: string | undefined,
  carried: Partial<AssistantMessage> | undefined,
): ProviderEvent[] {
  const out: ProviderEvent[] = [];
  for (const call of calls) out.push({ type: "tool_call", call });
  const message: AssistantMessage = calls.length > 0
    ? { role: "assistant", content: text || null, tool_calls: calls }
    : { role: "assistant", content: text };
  if (calls.length > 0 && carried) Object.assign(message, carried);
  const done: ProviderEvent = { type: "done", message };
  if (finishReason !== undefined) done.finishReason = finishReason;
  out.push(done);
  return out;
}

/** A `provider_error` carrying the provider's own message from an error value of any shape. */
export function reported(error: unknown): ProviderError {
  const msg = errorMessageOf(error) ?? JSON.stringify(error) ?? String(error);
  return new ProviderError("provider_error", {
    before: "Provider reported an error: ",
    text: msg,
    max: MAX_DETAIL_CHARS,
  });
}
