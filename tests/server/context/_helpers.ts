/**
 * Builders and an independent validity check for the context tests.
 *
 * @module
 */
import type { ChatMessage, ChatToolCall } from "../../../server/provider/types.ts";

/** A user message. */
export function user(content: string): ChatMessage {
  return { role: "user", content };
}

/** An assistant text message. */
export function say(content: string): ChatMessage {
  return { role: "assistant", content };
}

/** A tool call. */
export function call(id: string, name: string, args = "{}"): ChatToolCall {
  return { id, type: "function", function: { name, arguments: args } };
}

/** An assistant message requesting `calls`. */
export function calls(...toolCalls: ChatToolCall[]): ChatMessage {
  return { role: "assistant", content: null, tool_calls: toolCalls };
}

/** A tool result. */
export function result(id: string, content: string): ChatMessage {
  return { role: "tool", tool_call_id: id, content };
}

/** One token per character of content, arguments and names, plus 4 per message. */
export function charCount(m: ChatMessage): number {
  let n = 4 + (m.content?.length ?? 0);
  if (m.role === "assistant") {
    for (const c of m.tool_calls ?? []) n += c.function.name.length + c.function.arguments.length;
  }
  return n;
}

/**
 * Why `history` is not a valid chat history, or undefined: every tool message must follow (after
 * only tool messages) an assistant message that has its `tool_call_id`, and every tool call
 * must be answered by one of the tool messages right after its assistant message.
 */
export function toolPairingProblem(history: readonly ChatMessage[]): string | undefined {
  let pending: Set<string> | undefined;
  let answered = new Set<string>();
  for (let i = 0; i < history.length; i++) {
    const m = history[i]!;
    if (m.role === "tool") {
      if (pending === undefined) return `tool message ${i} does not follow an assistant call`;
      if (!pending.has(m.tool_call_id)) return `tool message ${i} answers an unknown call`;
      answered.add(m.tool_call_id);
      continue;
    }
    if (pending !== undefined) {
      for (const id of pending) if (!answered.has(id)) return `call ${id} has no result`;
    }
    pending = undefined;
    if (m.role === "assistant" && m.tool_calls && m.tool_calls.length > 0) {
      pending = new Set(m.tool_calls.map((c) => c.id));
      answered = new Set();
    }
  }
  if (pending !== undefined) {
    for (const id of pending) if (!answered.has(id)) return `call ${id} has no result`;
  }
  return undefined;
}
