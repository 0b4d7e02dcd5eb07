/**
 * What the model sees of an MCP `tools/call` result: text content joined, every other content
 * item described in one line, bounded in size.
 *
 * @module
 */
import { truncateText } from "../tools/output.ts";

/** The most content items looked at in one result; the rest are counted. */
export const MAX_CONTENT_ITEMS = 1000;

function str(v: unknown): string | undefined {
  return typeof v === "string" ? v : undefined;
}

function oneLine(text: string, max = 200): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? flat.slice(0, max) + "…" : flat;
}

/** The approximate decoded size of base64 data, for a description. */
function base64Bytes(data: string): number {
  return Math.floor((data.replace(/=+$/, "").length * 3) / 4);
}

/** One line for a content item that is not text. */
function describeItem(item: Record<string, unknown>): string {
  const type = str(item.type) ?? "unknown";
  const mime = str(item.mimeType);
  switch (type) {
    case "image":
    case "audio": {
      const data = str(item.data);
      const size = data === undefined ? "" : `, ${base64Bytes(data)} bytes`;
      return `[${type}${mime ? ` ${oneLine(mime, 80)}` : ""}${size}]`;
    }
    case "resource": {
      const r = typeof item.resource === "object" && item.resource !== null
        ? item.resource as Record<string, unknown>
        : {};
      const uri = str(r.uri) ?? "unknown uri";
      const text = str(r.text);
      if (text !== undefined) return `[resource ${oneLine(uri)}]\n${text}`;
      const m = str(r.mimeType);
      return `[resource ${oneLine(uri)}${m ? ` ${oneLine(m, 80)}` : ""}, binary]`;
    }
    case "resource_link": {
      const name = str(item.name);
      return `[resource link ${oneLine(str(item.uri) ?? "unknown uri")}${
        name ? ` (${oneLine(name, 80)})` : ""
      }]`;
    }
    default:
      return `[${oneLine(type, 40)} content]`;
  }
}

/**
 * The model-visible text of a result's `content` (and `structuredContent` when there is no
 * content), cut to `maxBytes` with `truncated` set.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { resultText } from "./content.ts";
 * const r = resultText({ content: [
 *   { type: "text", text: "a" },
 *   { type: "image", mimeType: "image/png", data: "AAAA" },
 * ] }, 1000);
 * assert.equal(r.text, "a\n[image image/png, 3 bytes]");
 * ```
 */
export function resultText(
  result: Record<string, unknown>,
  maxBytes: number,
): { text: string; truncated: boolean } {
  const content = Array.isArray(result.content) ? result.content : [];
  const parts: string[] = [];
  let size = 0;
  for (const [i, item] of content.entries()) {
    if (i >= MAX_CONTENT_ITEMS || size > maxBytes) {
      parts.push(`[${content.length - i} more content items]`);
      break;
    }
    const part = typeof item === "object" && item !== null
      ? (item as Record<string, unknown>).type === "text"
        ? str((item as Record<string, unknown>).text) ?? ""
        : describeItem(item as Record<string, unknown>)
      : `[malformed content item]`;
    parts.push(part);
    size += part.length;
  }
  if (content.length === 0 && result.structuredContent !== undefined) {
    parts.push(JSON.stringify(result.structuredContent) ?? "");
  }
  return truncateText(parts.join("\n"), maxBytes);
}
