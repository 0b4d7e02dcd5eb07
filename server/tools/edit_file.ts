/**
 * The `edit_file` tool: replaces an exact piece of text in a file inside the workspace and
 * shows the change as a unified diff.
 *
 * @module
 */
import { looksBinary } from "./binary.ts";
import { z } from "zod";
import { defineTool, stopMessage, type ToolContext, type ToolResult } from "./tool.ts";
import { displayPath, writeTarget } from "./workspace.ts";
import { fileErrorMessage } from "./permission.ts";
import { atomicWrite, OutsideWorkspaceError } from "./atomic_write.ts";
import { unifiedDiff } from "./diff.ts";
import { truncateText } from "./output.ts";

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

/** Non-overlapping occurrences of `needle` in `haystack`, by start index. */
function occurrences(haystack: string, needle: string): number[] {
  const found: number[] = [];
  for (
    let at = haystack.indexOf(needle);
    at !== -1;
    at = haystack.indexOf(needle, at + needle.length)
  ) {
    found.push(at);
  }
  return found;
}

async function run(args: z.infer<typeof schema>, ctx: ToolContext): Promise<ToolResult> {
  const p = args.path;
  if (args.old_string === "") {
    return failed(
      `Cannot edit "${p}": old_string is empty; to write a whole file use write_file`,
    );
  }
  if (args.old_string === args.new_string) {
    return failed(
      `Cannot edit "${p}": old_string and new_string are identical, nothing would change`,
    );
  }
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

    const found = occurrences(before, args.old_string);
    if (found.length === 0) {
      return failed(
        `old_string not found in "${p}"; read the file again and copy the text exactly, ` +
          `including whitespace and indentation`,
      );
    }
    if (found.length > 1 && args.replace_all !== true) {
      return failed(
        `old_string occurs ${found.length} times in "${p}"; include more surrounding text to ` +
          `make it unique, or set replace_all to replace every occurrence`,
      );
    }
    const parts: string[] = [];
    let from = 0;
    for (const at of found) {
      parts.push(before.slice(from, at), args.new_string);
      from = at + args.old_string.length;
    }
    parts.push(before.slice(from));
    const after = parts.join("");

    if (ctx.signal.aborted) return failed(stopMessage(ctx.signal, `Editing "${p}" was cancelled`));
    await atomicWrite(target.root, target.absolute, new TextEncoder().encode(after));

    const n = found.length;
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
  run,
});
