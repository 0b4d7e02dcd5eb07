/**
 * scv's built-in tools as a hook sees them: Claude Code's tool names and input field names, so a
 * hook written for Claude Code runs unchanged. Paths become absolute (Claude Code's are), and
 * what a tool returned becomes a `tool_response` object. Pure.
 *
 * | scv          | hook     | `tool_input`                                              |
 * | ------------ | -------- | --------------------------------------------------------- |
 * | `bash`       | `Bash`   | `command`, `timeout` (ms, when given)                     |
 * | `read_file`  | `Read`   | `file_path`, `offset`, `limit` (when given)               |
 * | `write_file` | `Write`  | `file_path`, `content`                                    |
 * | `edit_file`  | `Edit`   | `file_path`, `old_string`, `new_string`, `replace_all`    |
 * | `glob`       | `Glob`   | `pattern`                                                 |
 * | `grep`       | `Grep`   | `pattern`, `path` (absolute, when given), `glob`          |
 * | `web_fetch`  | `WebFetch` | `url`, `max_bytes` (when given)                         |
 *
 * Any other tool (MCP tools, `mcp__server__tool`) keeps its name and its arguments.
 *
 * @module
 */
import { resolve } from "../posix_path.ts";

/** A tool call as a hook's JSON carries it. */
export interface HookToolCall {
  tool_name: string;
  tool_input: Record<string, unknown>;
}

const NAMES: Readonly<Record<string, string>> = {
  bash: "Bash",
  read_file: "Read",
  write_file: "Write",
  edit_file: "Edit",
  glob: "Glob",
  grep: "Grep",
  web_fetch: "WebFetch",
};

/**
 * The hook's name of an scv tool.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { hookToolName } from "./tool_names.ts";
 * assert.equal(hookToolName("write_file"), "Write");
 * assert.equal(hookToolName("mcp__fs__read"), "mcp__fs__read");
 * ```
 */
export function hookToolName(name: string): string {
  return Object.hasOwn(NAMES, name) ? NAMES[name]! : name;
}

/**
 * A call's name and arguments in Claude Code's terms, paths resolved against `cwd`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { hookToolCall } from "./tool_names.ts";
 * assert.deepEqual(hookToolCall("write_file", { path: "a.txt", content: "x" }, "/w"), {
 *   tool_name: "Write",
 *   tool_input: { file_path: "/w/a.txt", content: "x" },
 * });
 * ```
 */
export function hookToolCall(name: string, args: unknown, cwd: string): HookToolCall {
  const a = typeof args === "object" && args !== null && !Array.isArray(args)
    ? args as Record<string, unknown>
    : {};
  const path = (v: unknown) => typeof v === "string" ? resolve(cwd, v) : v;
  const pick = (entries: Array<[string, unknown]>) =>
    Object.fromEntries(entries.filter(([, v]) => v !== undefined));
  const tool_name = hookToolName(name);
  switch (name) {
    case "bash":
      return { tool_name, tool_input: pick([["command", a.command], ["timeout", a.timeout_ms]]) };
    case "read_file":
      return {
        tool_name,
        tool_input: pick([["file_path", path(a.path)], ["offset", a.offset], ["limit", a.limit]]),
      };
    case "write_file":
      return { tool_name, tool_input: pick([["file_path", path(a.path)], ["content", a.content]]) };
    case "edit_file":
      return {
        tool_name,
        tool_input: pick([
          ["file_path", path(a.path)],
          ["old_string", a.old_string],
          ["new_string", a.new_string],
          ["replace_all", a.replace_all],
        ]),
      };
    case "glob":
      return { tool_name, tool_input: pick([["pattern", a.pattern]]) };
    case "grep":
      return {
        tool_name,
        tool_input: pick([["pattern", a.pattern], ["path", path(a.path)], ["glob", a.glob]]),
      };
    case "web_fetch":
      return { tool_name, tool_input: pick([["url", a.url], ["max_bytes", a.max_bytes]]) };
    default:
      return { tool_name, tool_input: a };
  }
}

/**
 * What a finished call returned, as `tool_response`: `success` and `output` for every tool;
 * `Bash` adds Claude Code's `stdout`, `stderr` (empty: scv interleaves both on one pipe) and
 * `interrupted`; the file tools add `filePath`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { hookToolResponse } from "./tool_names.ts";
 * assert.deepEqual(hookToolResponse("Write", { file_path: "/w/a" }, true, "ok"), {
 *   success: true, output: "ok", filePath: "/w/a",
 * });
 * ```
 */
export function hookToolResponse(
  toolName: string,
  toolInput: Record<string, unknown>,
  success: boolean,
  output: string,
): Record<string, unknown> {
  const out: Record<string, unknown> = { success, output };
  if (toolName === "Bash") {
    Object.assign(out, { stdout: output, stderr: "", interrupted: false, isImage: false });
  } else if (typeof toolInput.file_path === "string") {
    out.filePath = toolInput.file_path;
  }
  return out;
}
