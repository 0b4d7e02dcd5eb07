/**
 * The canonical history as an OpenAI Responses API request body, with no I/O. Shapes from
 * https://platform.openai.com/docs/api-reference/responses/create: stateless (`store: false`,
 * the whole input every time), system messages as `instructions`, assistant text as a
 * `message` item with `output_text`, calls as `function_call` items, results as
 * `function_call_output` items, and reasoning items (with `encrypted_content`) sent back
 * verbatim before the calls they led to.
 *
 * @module
 */
import { dataUrl, toolImagesCaption } from "./image_content.ts";
import type { ChatMessage, ImagePart, ToolSpec } from "./types.ts";

/** Images as `input_image` content with `data:` URLs. */
function inputImages(images: readonly ImagePart[]): Array<Record<string, unknown>> {
  return images.map((i) => ({ type: "input_image", image_url: dataUrl(i) }));
}

/** Request fields a server may refuse; each is dropped for a model once refused. */
export const OPTIONAL_FIELDS = ["include", "reasoning"] as const;
/** One of {@link OPTIONAL_FIELDS}. */
export type OptionalField = typeof OPTIONAL_FIELDS[number];

/**
 * The request body of one streaming Responses call. `optional` names the fields the server
 * has not refused: `include` asks for encrypted reasoning (needed to send it back statelessly),
 * `reasoning` for reasoning summaries to stream (non-reasoning models refuse it).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { responsesBody } from "./responses_request.ts";
 * const body = responsesBody("gpt-5", [{ role: "user", content: "Hi" }], [], new Set(["include"]));
 * assert.equal(body.store, false);
 * assert.deepEqual(body.input, [{ type: "message", role: "user", content: "Hi" }]);
 * ```
 */
export function responsesBody(
  model: string,
  history: readonly ChatMessage[],
  tools: readonly ToolSpec[],
  optional: ReadonlySet<OptionalField> = new Set(OPTIONAL_FIELDS),
): Record<string, unknown> {
  const instructions: string[] = [];
  const input: Array<Record<string, unknown>> = [];
  // Images of the tool results since the last other item, sent once that run ends.
  let pending: Array<Record<string, unknown>> = [];
  const flush = () => {
    if (pending.length > 0) input.push({ type: "message", role: "user", content: pending });
    pending = [];
  };
  for (const m of history) {
    if (m.role !== "tool") flush();
    if (m.role === "system") instructions.push(m.content);
    else if (m.role === "user") {
      input.push({
        type: "message",
        role: "user",
        content: m.images?.length
          ? [{ type: "input_text", text: m.content }, ...inputImages(m.images)]
          : m.content,
      });
    } else if (m.role === "tool") {
      input.push({ type: "function_call_output", call_id: m.tool_call_id, output: m.content });
      if (m.images?.length) {
        pending.push({ type: "input_text", text: toolImagesCaption(m.tool_call_id, m.images) });
        pending.push(...inputImages(m.images));
      }
    } else {
      for (const r of m.provider_data?.responses_reasoning ?? []) input.push(r);
      if (m.content) {
        input.push({
          type: "message",
          role: "assistant",
          content: [{ type: "output_text", text: m.content }],
        });
      }
      for (const c of m.tool_calls ?? []) {
        input.push({
          type: "function_call",
          call_id: c.id,
          name: c.function.name,
          arguments: c.function.arguments,
        });
      }
    }
  }
  flush();
  const body: Record<string, unknown> = { model, input, stream: true, store: false };
  if (instructions.length > 0) body.instructions = instructions.join("\n\n");
  if (tools.length > 0) {
    body.tools = tools.map((t) => ({
      type: "function",
      name: t.function.name,
      description: t.function.description,
      parameters: t.function.parameters,
    }));
  }
  if (optional.has("include")) body.include = ["reasoning.encrypted_content"];
  if (optional.has("reasoning")) body.reasoning = { summary: "auto" };
  return body;
}
