/**
 * The `glob` tool: files in the workspace whose relative path matches a glob pattern.
 *
 * @module
 */
import * as path from "../posix_path.ts";
import * as z from "zod";
import { defineTool, stopMessage, type ToolContext, type ToolResult } from "./tool.ts";
import { type GlobMatcher, globMatcher, globScope } from "./glob_pattern.ts";
import { walk } from "./walk.ts";
import { fileErrorMessage } from "./permission.ts";
import { truncateText } from "./output.ts";

/** Paths listed at most; a longer list is cut with a note. */
export const MAX_GLOB_RESULTS = 1000;

const schema = z.object({
  pattern: z.string().min(1).describe(
    'Glob relative to the workspace, e.g. "**/*.ts", "src/*.{js,json}"',
  ),
});

function failed(output: string): ToolResult {
  return { success: false, output, truncated: false };
}

async function run(args: z.infer<typeof schema>, ctx: ToolContext): Promise<ToolResult> {
  const pattern = args.pattern.replace(/^(\.\/)+/, "");
  if (path.isAbsolute(pattern) || pattern.split("/").includes("..")) {
    return failed(
      `Invalid glob pattern "${args.pattern}": patterns are relative to the workspace and ` +
        `cannot start with "/" or contain ".."`,
    );
  }
  let matches: GlobMatcher;
  try {
    matches = globMatcher(pattern);
  } catch (err) {
    return failed(`Invalid glob pattern "${args.pattern}": ${(err as Error).message}`);
  }
  const scope = globScope(pattern);
  const found: string[] = [];
  let cut = false;
  try {
    const root = await Deno.realPath(ctx.cwd);
    const start = path.join(root, scope.base);
    try {
      if (!(await Deno.stat(start)).isDirectory) throw new Deno.errors.NotFound();
    } catch (err) {
      if (err instanceof Deno.errors.NotFound || err instanceof Deno.errors.NotADirectory) {
        return { success: true, output: `No files match "${args.pattern}"`, truncated: false };
      }
      throw err;
    }
    for await (const e of walk(root, start, { signal: ctx.signal, maxDepth: scope.depth })) {
      if (e.isDirectory || !matches(e.rel)) continue;
      if (found.length === MAX_GLOB_RESULTS) {
        cut = true;
        break;
      }
      found.push(e.rel);
    }
  } catch (err) {
    return failed(
      fileErrorMessage(err, { verb: "search", path: scope.base || ".", flag: "--allow-read" }),
    );
  }
  if (ctx.signal.aborted) {
    return failed(stopMessage(ctx.signal, `Finding files for "${args.pattern}" was cancelled`));
  }
  if (found.length === 0) {
    return { success: true, output: `No files match "${args.pattern}"`, truncated: false };
  }
  found.sort();
  let output = found.join("\n");
  if (cut) output += `\n[Results cut at ${MAX_GLOB_RESULTS} files; use a narrower pattern]`;
  const bounded = truncateText(output, ctx.limits.maxOutputBytes);
  return { success: true, output: bounded.text, truncated: cut || bounded.truncated };
}

/**
 * The `glob` tool of CONTRACT.md: risk `read`, always inside the workspace.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { globTool } from "./glob.ts";
 * assert(globTool.summary({ pattern: "**\/*.ts" }) === "Find files: **\/*.ts");
 * ```
 */
export const globTool = defineTool({
  name: "glob",
  description: "List files in the workspace matching a glob pattern (`**` for any depth, `*`, " +
    "`?`, `[abc]`, `{a,b}`), one relative path per line, sorted. Files ignored by .gitignore " +
    "and the .git directory are left out.",
  schema,
  // It changes nothing: it runs in plan mode.
  readOnly: true,
  risk: () => "read",
  summary: (args) => `Find files: ${args.pattern}`,
  run,
});
