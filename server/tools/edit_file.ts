/**
 * The `edit_file` tool: replaces an exact piece of text in a file inside the workspace and
 * shows the change as a unified diff.
 *
 * @module
 */
import { looksBinary } from "./binary.ts";
import * as z from "zod";
import { defineTool, stopMessage, type ToolContext, type ToolResult } from "./tool.ts";
import { displayPath, writeTarget } from "./workspace.ts";
import { fileErrorMessage } from "./permission.ts";
import { atomicWrite, OutsideWorkspaceError } from "./atomic_write.ts";
import { unifiedDiff } from "./diff.ts";
import { truncateText } from "./output.ts";
import { applyEdit, editRefusal } from "./edit_text.ts";
import { editPreview } from "./change_preview.ts";

/** Largest file edited; the whole file is held in memory, twice. */
export const MAX_EDIT_BYTES = 16 * 1024 * 1024;

const schema = z.object({
  path: z.string().min(1).describe("File path inside the workspace"),
  old_string: z.string().describe("The exact text to replace, including whitespace"),
  new_string: z.string().describe("The text to put in its place"),
  replace_all: z.boolean().optional().describe(
    "Replace every occurrence; without it old_string must occur exactly once",
  ),
});

function failed(output: string): ToolResult {
  return { success: false, output, truncated: false };
}

async function run(args: z.infer<typeof schema>, ctx: ToolContext): Promise<ToolResult> {
  const p = args.path;
  const refusal = editRefusal({ ...args });
  if (refusal !== undefined) return failed(refusal);
  if (ctx.signal.aborted) return failed(stopMessage(ctx.signal, `Editing "${p}" was cancelled`));
  try {
    const target = await writeTarget(ctx.cwd, p, "edit");
    if (!target.ok) return failed(target.message);
    const info = await Deno.stat(target.absolute);
    if (info.isDirectory) return failed(`Cannot edit "${p}": it is a directory`);
    if (!info.isFile) return failed(`Cannot edit "${p}": it is not a regular file`);
    if (info.size > MAX_EDIT_BYTES) {
      return failed(
        `Cannot edit "${p}": it is ${info.size} bytes, over the ${MAX_EDIT_BYTES}-byte limit`,
      );
    }
    const bytes = await Deno.readFile(target.absolute);
    if (looksBinary(bytes)) {
      return failed(`Cannot edit "${p}": it looks like a binary file (it contains NUL bytes)`);
    }
    let before: string;
    try {
      before = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
    } catch {
      return failed(`Cannot edit "${p}": it is not valid UTF-8 text`);
    }

    const edit = applyEdit(before, { ...args });
    if (!edit.ok) return failed(edit.message);
    const after = edit.after;

    if (ctx.signal.aborted) return failed(stopMessage(ctx.signal, `Editing "${p}" was cancelled`));
    await atomicWrite(ctx.cwd, target.absolute, new TextEncoder().encode(after), ctx.signal);

    const n = edit.replaced;
    const head = `Edited "${p}": replaced ${n} occurrence${n === 1 ? "" : "s"}\n\n`;
    const diff = unifiedDiff(displayPath(target.root, target.absolute), before, after);
    const { text, truncated } = truncateText(head + diff, ctx.limits.maxOutputBytes);
    return { success: true, output: text, truncated };
  } catch (err) {
    if (err instanceof OutsideWorkspaceError) {
      return failed(`Cannot edit "${p}": ${err.message}; nothing was written`);
    }
    return failed(fileErrorMessage(err, { verb: "edit", path: p, flag: "--allow-write" }));
  }
}

/**
 * The `edit_file` tool of CONTRACT.md: risk `write`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { editFileTool } from "./edit_file.ts";
 * const args = { path: "a.ts", old_string: "x", new_string: "y" };
 * assert(editFileTool.summary(args) === "Edit file: a.ts");
 * ```
 */
export const editFileTool = defineTool({
  name: "edit_file",
  description: "Replace exact text in a file inside the workspace. old_string must match the " +
    "file exactly (whitespace included) and occur once, unless replace_all is set. The result " +
    "shows a unified diff of the change.",
  schema,
  risk: () => "write",
  // A write tool never leaves the workspace, so `auto` lets it run.
  autoApproved: () => true,
  summary: (args) => `Edit file: ${args.path}`,
  preview: (args, ctx) => editPreview(ctx.cwd, args),
  run,
});
