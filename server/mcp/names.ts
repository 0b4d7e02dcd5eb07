/**
 * The names MCP tools are offered to the model under: `mcp__<server>__<tool>`, only characters
 * every provider accepts in a function name, at most 64 of them, unique among all tools.
 *
 * @module
 */

/** The longest function name providers accept (OpenAI's limit). */
export const MAX_TOOL_NAME = 64;

/** A short stable hash of `text`, to keep cut names apart (FNV-1a, 8 hex digits). */
function hash8(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, "0");
}

/**
 * The model-facing name of `tool` on `server`, distinct from every name in `taken` (which it
 * does not modify): odd characters become `_`, a long name is cut and keeps a hash of the
 * original, and a clash gets `_2`, `_3`, ...
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { toolName } from "./names.ts";
 * assert.equal(toolName("fs", "read file", new Set()), "mcp__fs__read_file");
 * assert.equal(toolName("fs", "read.file", new Set(["mcp__fs__read_file"])), "mcp__fs__read_file_2");
 * assert.equal(toolName("fs", "x".repeat(100), new Set()).length, 64);
 * ```
 */
export function toolName(server: string, tool: string, taken: ReadonlySet<string>): string {
  let base = `mcp__${server}__${tool.replace(/[^A-Za-z0-9_-]/g, "_")}`;
  if (base.length > MAX_TOOL_NAME) {
    base = `${base.slice(0, MAX_TOOL_NAME - 9)}_${hash8(tool)}`;
  }
  if (!taken.has(base)) return base;
  for (let n = 2;; n++) {
    const suffix = `_${n}`;
    const name = base.slice(0, MAX_TOOL_NAME - suffix.length) + suffix;
    if (!taken.has(name)) return name;
  }
}
