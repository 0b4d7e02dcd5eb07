/**
 * The canonical history as an Anthropic Messages API request body, with no I/O. The shapes are
 * those of https://docs.anthropic.com/en/api/messages: `system` is its own field, assistant
 * tool calls are `tool_use` blocks with a parsed `input`, tool results are `tool_result` blocks
 * in a user message, and thinking blocks go back verbatim, signatures included (the API
 * requires them back on a tool-use turn).
 *
 * @module
 */
import type { ChatMessage, ImagePart, ToolSpec } from "./types.ts";

/** Output tokens asked for: the Messages API requires `max_tokens`. */
export const ANTHROPIC_MAX_TOKENS = 8192;

type Block = Record<string, unknown>;
interface AnthropicMessage {
  role: "user" | "assistant";
  content: Block[];
}

/** A tool_use id as the API accepts it (`^[a-zA-Z0-9_-]+$`), the same for call and result. */
export function anthropicId(id: string): string {
  const clean = id.replace(/[^a-zA-Z0-9_-]/g, "_");
  return clean === "" ? "call" : clean;
}

/** Images as `image` blocks with a base64 source. */
function imageBlocks(images: readonly ImagePart[] | undefined): Block[] {
  return (images ?? []).map((i) => ({
    type: "image",
    source: { type: "base64", media_type: i.media_type, data: i.data },
  }));
}

/** A call's arguments as the object `input` must be; text that is not an object gives `{}`. */
function inputOf(args: string): Record<string, unknown> {
  try {
    const v = JSON.parse(args);
    if (typeof v === "object" && v !== null && !Array.isArray(v)) return v;
  } catch {
    // The model's invalid JSON was already answered as a failed call; send an empty input.
  }
  return {};
}

/**
 * The request body of one streaming Messages call.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { anthropicBody } from "./anthropic_request.ts";
 * const body = anthropicBody("claude", [
 *   { role: "system", content: "Be brief." },
 *   { role: "user", content: "Hi" },
 * ], []);
 * assert.equal(body.system, "Be brief.");
 * assert.deepEqual(body.messages, [{ role: "user", content: [{ type: "text", text: "Hi" }] }]);
 * ```
 */
export function anthropicBody(
  model: string,
  history: readonly ChatMessage[],
  tools: readonly ToolSpec[],
): Record<string, unknown> {
  const system: string[] = [];
  const messages: AnthropicMessage[] = [];
  // Consecutive messages of one role become one message: the API wants them alternating.
  const push = (role: "user" | "assistant", blocks: Block[]) => {
    if (blocks.length === 0) return;
    const last = messages.at(-1);
    if (last && last.role === role) last.content.push(...blocks);
    else messages.push({ role, content: blocks });
  };
  for (const m of history) {
    if (m.role === "system") system.push(m.content);
    else if (m.role === "user") {
      // Images first: Anthropic's vision guide finds image-then-text works best.
      const text = m.content ? [{ type: "text", text: m.content }] : [];
      push("user", [...imageBlocks(m.images), ...text]);
    } else if (m.role === "tool") {
      push("user", [{
        type: "tool_result",
        tool_use_id: anthropicId(m.tool_call_id),
        // A tool_result takes image blocks beside its text.
        content: m.images?.length
          ? [{ type: "text", text: m.content }, ...imageBlocks(m.images)]
          : m.content,
      }]);
    } else {
      const blocks: Block[] = [...(m.provider_data?.anthropic_thinking ?? [])];
      if (m.content) blocks.push({ type: "text", text: m.content });
      for (const c of m.tool_calls ?? []) {
        blocks.push({
          type: "tool_use",
          id: anthropicId(c.id),
          name: c.function.name,
          input: inputOf(c.function.arguments),
        });
      }
      push("assistant", blocks);
    }
  }
  const body: Record<string, unknown> = {
    model,
    max_tokens: ANTHROPIC_MAX_TOKENS,
    messages,
    stream: true,
  };
  if (system.length > 0) body.system = system.join("\n\n");
  if (tools.length > 0) {
    body.tools = tools.map((t) => ({
      name: t.function.name,
      description: t.function.description,
      input_schema: t.function.parameters,
    }));
  }
  return body;
}
