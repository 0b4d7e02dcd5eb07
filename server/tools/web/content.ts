/**
 * What a fetched body is: HTML (turned into Markdown), other text (returned as is) or binary
 * (refused), told by its `Content-Type` and, where that says nothing, by its first bytes; and
 * its text, decoded by the charset the response (or the page's `<meta>`) names. Pure.
 *
 * @module
 */
import { looksBinary } from "../binary.ts";

/** How a body is handled. */
export type BodyKind = "html" | "text" | "binary";

/** Media types of text that are not `text/*`. */
const TEXT_TYPES = new Set([
  "application/json",
  "application/xml",
  "application/javascript",
  "application/ecmascript",
  "application/x-javascript",
  "application/x-sh",
  "application/x-yaml",
  "application/yaml",
  "application/toml",
  "application/x-toml",
  "application/graphql",
  "application/sql",
  "application/x-httpd-php",
  "application/x-ndjson",
  "application/jsonl",
]);

/** The media type of a `Content-Type` value, lower-case, without parameters. */
export function mediaType(contentType: string | null): string {
  return (contentType ?? "").split(";")[0]!.trim().toLowerCase();
}

/**
 * The kind of a body by its `Content-Type` and its first bytes: a NUL in a body that claims to
 * be text still makes it binary.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { bodyKind } from "./content.ts";
 * const bytes = new TextEncoder().encode("<!doctype html><p>hi");
 * assert.equal(bodyKind("text/html; charset=utf-8", bytes), "html");
 * assert.equal(bodyKind("image/png", bytes), "binary");
 * assert.equal(bodyKind(null, bytes), "html");
 * assert.equal(bodyKind("text/plain", new Uint8Array([104, 0, 105])), "binary");
 * ```
 */
export function bodyKind(contentType: string | null, head: Uint8Array): BodyKind {
  const type = mediaType(contentType);
  if (looksBinary(head)) return "binary";
  if (type === "text/html" || type === "application/xhtml+xml") return "html";
  if (
    type.startsWith("text/") || TEXT_TYPES.has(type) || type.endsWith("+json") ||
    type.endsWith("+xml")
  ) return "text";
  if (type === "" || type === "application/octet-stream" || type === "unknown/unknown") {
    return sniff(head);
  }
  return "binary";
}

/** A body without a useful type: HTML by its start, text when it decodes as UTF-8. */
function sniff(head: Uint8Array): BodyKind {
  const start = new TextDecoder("utf-8", { fatal: false }).decode(head.subarray(0, 512))
    .trimStart().toLowerCase();
  if (/^(<!doctype html|<html|<head|<body|<!--)/.test(start)) return "html";
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(head.subarray(0, 4096), { stream: true });
    return "text";
  } catch {
    return "binary";
  }
}

/** The charset named by a `Content-Type` or, for HTML, by a `<meta>` near the start. */
export function charsetOf(contentType: string | null, head: Uint8Array, html: boolean): string {
  const fromHeader = /charset\s*=\s*"?([A-Za-z0-9._:-]+)/i.exec(contentType ?? "")?.[1];
  if (fromHeader) return fromHeader;
  if (html) {
    const start = new TextDecoder("latin1").decode(head.subarray(0, 2048));
    const meta = /<meta[^>]+charset\s*=\s*["']?([A-Za-z0-9._:-]+)/i.exec(start)?.[1];
    if (meta) return meta;
  }
  return "utf-8";
}

/**
 * The body's text in its charset (UTF-8 when the charset is unknown to the decoder).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { decodeBody } from "./content.ts";
 * assert.equal(decodeBody(new Uint8Array([0xe9]), "text/plain; charset=iso-8859-1", false), "é");
 * ```
 */
export function decodeBody(bytes: Uint8Array, contentType: string | null, html: boolean): string {
  const charset = charsetOf(contentType, bytes, html);
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(charset, { fatal: false });
  } catch {
    decoder = new TextDecoder("utf-8", { fatal: false });
  }
  return decoder.decode(bytes);
}
