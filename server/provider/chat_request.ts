/**
 * The canonical history as Chat Completions `messages`, with no I/O: only the fields this API
 * knows go out, images become `image_url` content parts with `data:` URLs, and images a tool
 * gave (which a `tool` message cannot carry) follow the run of tool results as a user message.
 *
 * @module
 */
import { dataUrl, toolImagesCaption } from "./image_content.ts";
import type { ChatMessage, ImagePart } from "./types.ts";

type Wire = Record<string, unknown>;

function imageParts(images: readonly ImagePart[]): Wire[] {
  return images.map((i) => ({ type: "image_url", image_url: { url: dataUrl(i) } }));
}

/**
 * The `messages` of one Chat Completions request.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { chatMessages } from "./chat_request.ts";
 * const image = {
 *   type: "image" as const, media_type: "image/png" as const, data: "iVBO", name: "a.png",
 *   bytes: 3, width: 1, height: 1,
 * };
 * assert.deepEqual(chatMessages([{ role: "user", content: "Look", images: [image] }]), [{
 *   role: "user",
 *   content: [
 *     { type: "text", text: "Look" },
 *     { type: "image_url", image_url: { url: "data:image/png;base64,iVBO" } },
 *   ],
 * }]);
 * ```
 */
export function chatMessages(history: readonly ChatMessage[]): Wire[] {
  const out: Wire[] = [];
  // Images of the tool results since the last non-tool message, sent once that run ends.
  let pending: Wire[] = [];
  const flush = () => {
    if (pending.length > 0) out.push({ role: "user", content: pending });
    pending = [];
  };
  for (const m of history) {
    if (m.role !== "tool") flush();
    if (m.role === "assistant") {
      const { provider_data: _, ...rest } = m;
      out.push(rest);
    } else if (m.role === "user") {
      out.push(
        m.images?.length
          ? { role: "user", content: [{ type: "text", text: m.content }, ...imageParts(m.images)] }
          : { role: "user", content: m.content },
      );
    } else if (m.role === "tool") {
      out.push({ role: "tool", tool_call_id: m.tool_call_id, content: m.content });
      if (m.images?.length) {
        pending.push({ type: "text", text: toolImagesCaption(m.tool_call_id, m.images) });
        pending.push(...imageParts(m.images));
      }
    } else out.push(m);
  }
  flush();
  return out;
}
