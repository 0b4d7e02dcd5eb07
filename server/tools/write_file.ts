/**
 * The `write_file` tool: creates or replaces a file inside the workspace, atomically.
 *
 * @module
 */
import * as z from "zod";
import { defineTool, stopMessage, type ToolContext, type ToolResult } from "./tool.ts";
import { writeTarget } from "./workspace.ts";
import { fileErrorMessage } from "./permission.ts";
import { atomicWrite, OutsideWorkspaceError } from "./atomic_write.ts";
import { writePreview } from "./change_preview.ts";

const encoder = new TextEncoder();

const schema = z.object({
  path: z.string().min(1).describe(
    "File path inside the workspace; parent directories are created",
  ),
  content: z.string().describe("The complete new content of the file"),
});

function failed(output: string): ToolResult {
  return { success: false, output, truncated: false };
}

async function run(args: z.infer<typeof schema>, ctx: ToolContext): Promise<ToolResult> {
  if (ctx.signal.aborted) {
    return failed(stopMessage(ctx.signal, `Writing "${args.path}" was cancelled`));
  }
  const bytes = encoder.encode(args.content);
  try {
    const target = await writeTarget(ctx.cwd, args.path, "write");
    if (!target.ok) return failed(target.message);
    let existed = true;
    await Deno.lstat(target.absolute).catch(() => existed = false);
    // The session's workspace, not the one resolved just now: it may be a symlink by now.
    await atomicWrite(ctx.cwd, target.absolute, bytes, ctx.signal);
    const verb = existed ? "Overwrote" : "Created";
    return {
      success: true,
      output: `${verb} "${args.path}" (${bytes.length} bytes written)`,
      truncated: false,
    };
  } catch (err) {
    if (err instanceof OutsideWorkspaceError) {
      return failed(`Cannot write "${args.path}": ${err.message}; nothing was written`);
    }
    return failed(fileErrorMessage(err, { verb: "write", path: args.path, flag: "--allow-write" }));
  }
}

/**
 * The `write_file` tool of CONTRACT.md: risk `write`; the summary names the size in UTF-8
 * bytes so the user knows what they approve.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { writeFileTool } from "./write_file.ts";
 * assert(
 *   writeFileTool.summary({ path: "a.txt", content: "é" }) === "Write file: a.txt (2 bytes)",
 * );
 * ```
 */
export const writeFileTool = defineTool({
  name: "write_file",
  description: "Create a file, or replace a file's whole content, inside the workspace. " +
    "Parent directories are created. To change part of an existing file, use edit_file.",
  schema,
  risk: () => "write",
  // A write tool never leaves the workspace, so `auto` lets it run.
  autoApproved: () => true,
  summary: (args) => `Write file: ${args.path} (${encoder.encode(args.content).length} bytes)`,
  preview: (args, ctx) => writePreview(ctx.cwd, args),
  run,
});
