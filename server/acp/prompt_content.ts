/**
 * The prompt of a `session/prompt` as the text the agent core takes: text blocks and links in
 * order, then the text of embedded resources attached as context sections. The whole prompt
 * stays within `max_prompt_bytes`: the typed part must fit, attached resources are cut to the
 * room left, each cut said in the text.
 *
 * @module
 */
import type { ContentBlock } from "@agentclientprotocol/sdk";
import { IMAGE_MEDIA_TYPES } from "../../protocol/constants.ts";
import type { ImageAttachment } from "../../protocol/schema.ts";
import { headOf } from "../tools/output.ts";
import { utf8Length } from "../utf8.ts";

/**
 * The prompt text and its image blocks as inline attachments (checked later like `turn.start`'s),
 * or why the prompt cannot be taken (an invalid-params error).
 */
export type PromptText =
  | { ok: true; text: string; images: ImageAttachment[] }
  | { ok: false; message: string };

/** Joins inline parts, with a space where two parts would otherwise run together. */
function joinInline(parts: readonly string[]): string {
  let out = "";
  for (const part of parts) {
    if (part === "") continue;
    if (out !== "" && !/\s$/.test(out) && !/^\s/.test(part)) out += " ";
    out += part;
  }
  return out;
}

/** One embedded resource's text, to attach after the typed prompt. */
interface Attachment {
  uri: string;
  text: string;
}

function section(uri: string, text: string, note: string): string {
  return `<context uri=${JSON.stringify(uri)}>\n${text}${note}\n</context>`;
}

/**
 * Builds the prompt text from ACP content blocks. Image blocks (scv 0.3) become attachments, in
 * order; audio blocks are refused (scv does not advertise them); a blob resource is named but not
 * attached; an empty prompt is refused.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { promptText } from "./prompt_content.ts";
 * const r = promptText([
 *   { type: "text", text: "Explain" },
 *   { type: "resource", resource: { uri: "file:///ws/a.ts", text: "let a = 1;" } },
 * ], 1024);
 * assert(r.ok && r.text.includes("let a = 1;"));
 * ```
 */
export function promptText(blocks: readonly ContentBlock[], maxPromptBytes: number): PromptText {
  const inline: string[] = [];
  const attachments: Attachment[] = [];
  const images: ImageAttachment[] = [];
  for (const block of blocks) {
    switch (block.type) {
      case "text":
        inline.push(block.text);
        break;
      case "resource_link":
        inline.push(`[${block.title ?? block.name}](${block.uri})`);
        break;
      case "resource": {
        const r = block.resource;
        if ("text" in r) {
          inline.push(`[${r.uri}]`);
          attachments.push({ uri: r.uri, text: r.text });
        } else {
          inline.push(`[${r.uri}] (binary${r.mimeType ? ` ${r.mimeType}` : ""}, not attached)`);
        }
        break;
      }
      case "image": {
        const type = IMAGE_MEDIA_TYPES.find((t) => t === block.mimeType);
        if (type === undefined) {
          return {
            ok: false,
            message: `image ${images.length + 1}: mimeType ${JSON.stringify(block.mimeType)} ` +
              `is not one of ${IMAGE_MEDIA_TYPES.join(", ")}`,
          };
        }
        const name = block.uri?.split("/").at(-1);
        images.push({
          type: "image",
          media_type: type,
          data: block.data,
          ...(name ? { name: decodeURIComponent(name) } : {}),
        });
        break;
      }
      case "audio":
        return {
          ok: false,
          message: `${block.type} content is not supported: scv's promptCapabilities.` +
            `${block.type} is false`,
        };
    }
  }
  const typed = joinInline(inline);
  if (typed.trim() === "" && attachments.every((a) => a.text.trim() === "")) {
    return { ok: false, message: "prompt is empty" };
  }
  const typedBytes = utf8Length(typed);
  if (typedBytes > maxPromptBytes) {
    return {
      ok: false,
      message: `prompt of ${typedBytes} bytes exceeds max_prompt_bytes (${maxPromptBytes})`,
    };
  }
  let text = typed;
  let used = typedBytes;
  for (const a of attachments) {
    const full = section(a.uri, a.text, "");
    const fullBytes = utf8Length(full) + 2; // with the blank line that separates sections
    if (used + fullBytes <= maxPromptBytes) {
      text += `\n\n${full}`;
      used += fullBytes;
      continue;
    }
    const total = utf8Length(a.text);
    // The note is sized for the whole text, so it never grows once the cut is chosen.
    const noteFor = (kept: number) => `\n[... cut: ${kept} of ${total} bytes attached]`;
    const frame = utf8Length(section(a.uri, "", noteFor(total))) + 2;
    const room = maxPromptBytes - used - frame;
    if (room <= 0) {
      const skipped = `\n\n[resource ${JSON.stringify(a.uri)} not attached: no room left]`;
      if (used + utf8Length(skipped) <= maxPromptBytes) {
        text += skipped;
        used += utf8Length(skipped);
      }
      continue;
    }
    const head = headOf(a.text, room);
    const cut = section(a.uri, head, noteFor(utf8Length(head)));
    text += `\n\n${cut}`;
    used += utf8Length(cut) + 2;
  }
  return { ok: true, text, images };
}
