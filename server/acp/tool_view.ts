/**
 * How one of scv's tool calls looks to an ACP client: its `kind` (the icon an editor shows), its
 * title and the file locations it touches (so an editor can follow the agent). Pure: the paths
 * are resolved lexically against the session's workspace, never on disk.
 *
 * @module
 */
import type { ToolCallLocation, ToolKind } from "@agentclientprotocol/sdk";

/** The ACP kind of each built-in tool; anything else (MCP tools included) is `other`. */
const KINDS: Readonly<Record<string, ToolKind>> = {
  bash: "execute",
  read_file: "read",
  write_file: "edit",
  edit_file: "edit",
  glob: "search",
  grep: "search",
  web_fetch: "fetch",
  // It only shows the plan (sent again as a `plan` update).
  update_plan: "think",
};

/**
 * The ACP `kind` of a tool call by the tool's name.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { toolKind } from "./tool_view.ts";
 * assert.equal(toolKind("bash"), "execute");
 * assert.equal(toolKind("mcp__files__read"), "other");
 * ```
 */
export function toolKind(name: string): ToolKind {
  return Object.hasOwn(KINDS, name) ? KINDS[name]! : "other";
}

/** The tools that act on one file named by a `path` argument. */
const FILE_TOOLS = new Set(["read_file", "write_file", "edit_file"]);

/** Whether the tool's result can carry a `diff` content block (it rewrites a file). */
export function writesFile(name: string): boolean {
  return name === "write_file" || name === "edit_file";
}

/**
 * `base` joined with `p` and normalised (`.` and `..` folded), as ACP wants absolute paths. An
 * absolute `p` stands for itself.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { absoluteIn } from "./tool_view.ts";
 * assert.equal(absoluteIn("/ws", "src/../a.ts"), "/ws/a.ts");
 * assert.equal(absoluteIn("/ws", "/etc/hosts"), "/etc/hosts");
 * ```
 */
export function absoluteIn(base: string, p: string): string {
  const parts: string[] = [];
  for (const part of (p.startsWith("/") ? p : `${base}/${p}`).split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") parts.pop();
    else parts.push(part);
  }
  return `/${parts.join("/")}`;
}

/** The `path` argument of a file tool's arguments, when it has a usable one. */
export function pathArgument(name: string, args: unknown): string | undefined {
  if (!FILE_TOOLS.has(name) || typeof args !== "object" || args === null) return undefined;
  const p = (args as { path?: unknown }).path;
  return typeof p === "string" && p !== "" ? p : undefined;
}

/**
 * The locations a tool call touches: for the file tools, the file (absolute) and, for
 * `read_file`, the line it starts at. Other tools touch none that can be named up front.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { toolLocations } from "./tool_view.ts";
 * assert.deepEqual(toolLocations("read_file", { path: "a.ts", offset: 5 }, "/ws"), [
 *   { path: "/ws/a.ts", line: 5 },
 * ]);
 * assert.deepEqual(toolLocations("bash", { command: "ls" }, "/ws"), []);
 * ```
 */
export function toolLocations(name: string, args: unknown, cwd: string): ToolCallLocation[] {
  const p = pathArgument(name, args);
  if (p === undefined) return [];
  const location: ToolCallLocation = { path: absoluteIn(cwd, p) };
  const offset = (args as { offset?: unknown }).offset;
  if (name === "read_file" && typeof offset === "number" && Number.isSafeInteger(offset)) {
    location.line = offset;
  }
  return [location];
}
