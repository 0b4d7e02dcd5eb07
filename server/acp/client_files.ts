/**
 * The file tools through the editor: when an ACP client offers `fs.readTextFile` and
 * `fs.writeTextFile`, `read_file`, `write_file` and `edit_file` read and write through it, so
 * the model sees unsaved buffers and the editor records changes in its own undo history. The
 * tools keep their names, schemas, risks, summaries and workspace rules; only the bytes move
 * another way.
 *
 * @module
 */
import type { AgentContext, FileSystemCapabilities } from "@agentclientprotocol/sdk";
import type { AnyTool, Tool, ToolContext, ToolResult } from "../tools/tool.ts";
import { fitsFrame } from "./transport.ts";
import { stopMessage } from "../tools/tool.ts";
import { DEFAULT_LINE_LIMIT, MAX_LINE_CHARS, readFileTool } from "../tools/read_file.ts";
import { writeFileTool } from "../tools/write_file.ts";
import { editFileTool, MAX_EDIT_BYTES } from "../tools/edit_file.ts";
import { directoryEnding, displayPath, locate, writeTarget } from "../tools/workspace.ts";
import { applyEdit, editRefusal } from "../tools/edit_text.ts";
import { unifiedDiff } from "../tools/diff.ts";
import { truncateText } from "../tools/output.ts";
import { errorText } from "../error_text.ts";
import { fileErrorMessage } from "../tools/permission.ts";
import { utf8Length } from "../utf8.ts";

/** The editor's file access, as far as the client offers it. Paths are absolute. */
export interface ClientFiles {
  /** Reads a text file, from 1-based `line`, at most `limit` lines. */
  read?: (
    path: string,
    range: { line?: number; limit?: number },
    signal: AbortSignal,
  ) => Promise<string>;
  /** Writes a whole text file. */
  write?: (path: string, content: string, signal: AbortSignal) => Promise<void>;
}

/**
 * The editor's file access over ACP, as far as the client's `fs` capabilities go: reads through
 * `fs/read_text_file`, writes through `fs/write_text_file` (refused before it is sent when the
 * request would not fit a frame). Each request stops waiting when its signal aborts.
 */
export function editorFiles(
  client: AgentContext,
  sessionId: string,
  fs: FileSystemCapabilities | undefined,
  maxFrameBytes: number,
): ClientFiles {
  const files: ClientFiles = {};
  if (fs?.readTextFile) {
    files.read = async (path, range, signal) =>
      (await client.request("fs/read_text_file", {
        sessionId,
        path,
        ...(range.line !== undefined ? { line: range.line } : {}),
        ...(range.limit !== undefined ? { limit: range.limit } : {}),
      }, { cancellationSignal: signal, stopWaitingOnCancel: true })).content;
  }
  if (fs?.writeTextFile) {
    files.write = async (path, content, signal) => {
      const params = { sessionId, path, content };
      if (
        !fitsFrame({ jsonrpc: "2.0", id: 0, method: "fs/write_text_file", params }, maxFrameBytes)
      ) {
        throw new RangeError(
          `the content (${utf8Length(content)} bytes) does not fit max_server_frame_bytes ` +
            `(${maxFrameBytes}); nothing was written`,
        );
      }
      await client.request("fs/write_text_file", params, {
        cancellationSignal: signal,
        stopWaitingOnCancel: true,
      });
    };
  }
  return files;
}

type Args<T> = T extends Tool<infer A> ? A : never;

function failed(output: string): ToolResult {
  return { success: false, output, truncated: false };
}

/** The client's failure as the model sees it. */
function editorFailure(
  verb: "read" | "write" | "edit",
  path: string,
  e: unknown,
  signal: AbortSignal,
): ToolResult {
  if (signal.aborted) {
    const doing = { read: "Reading", write: "Writing", edit: "Editing" }[verb];
    return failed(stopMessage(signal, `${doing} "${path}" was cancelled`));
  }
  return failed(`Cannot ${verb} "${path}" through the editor: ${errorText(e)}`);
}

/**
 * Numbers the lines of a text that starts at line `first`, the way `read_file` does
 * (`cat -n`), within `maxBytes` with a footer when more follows.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { numberLines } from "./client_files.ts";
 * assert.equal(numberLines(["a", "b"], 1, false, 100).text, "     1\ta\n     2\tb\n");
 * ```
 */
export function numberLines(
  lines: readonly string[],
  first: number,
  more: boolean,
  maxBytes: number,
): { text: string; shown: number; truncated: boolean } {
  const shown: string[] = [];
  let bytes = 0;
  const footer = (last: number, limited: boolean) =>
    limited
      ? `[Output limit reached after line ${last}; continue with offset=${last + 1}]`
      : `[Showing lines ${first}-${last}; continue with offset=${last + 1}]`;
  let limited = false;
  for (const [i, line] of lines.entries()) {
    const cut = line.length > MAX_LINE_CHARS
      ? `${line.slice(0, MAX_LINE_CHARS)} [... line cut at ${MAX_LINE_CHARS} characters]`
      : line;
    const text = `${String(first + i).padStart(6)}\t${cut}\n`;
    // Room is kept for the longest footer this read could need.
    const reserve = utf8Length(footer(first + lines.length, true));
    if (bytes + utf8Length(text) + reserve > maxBytes) {
      limited = true;
      break;
    }
    shown.push(text);
    bytes += utf8Length(text);
  }
  const last = first + shown.length - 1;
  const note = limited || more ? footer(last, limited) : "";
  return { text: shown.join("") + note, shown: shown.length, truncated: note !== "" };
}

function readThrough(read: NonNullable<ClientFiles["read"]>): AnyTool {
  const run = async (
    args: Args<typeof readFileTool>,
    ctx: ToolContext,
  ): Promise<ToolResult> => {
    const p = args.path;
    const ending = directoryEnding(p);
    if (ending !== undefined) return failed(`Cannot read "${p}": the path ends in "${ending}"`);
    let absolute: string;
    try {
      absolute = (await locate(ctx.cwd, p)).absolute;
    } catch (e) {
      return failed(fileErrorMessage(e, { verb: "read", path: p, flag: "--allow-read" }));
    }
    const offset = args.offset ?? 1;
    const limit = args.limit ?? DEFAULT_LINE_LIMIT;
    let content: string;
    try {
      // One line more than shown tells whether the file goes on.
      content = await read(absolute, { line: offset, limit: limit + 1 }, ctx.signal);
    } catch (e) {
      return editorFailure("read", p, e, ctx.signal);
    }
    if (content.includes("\u0000")) {
      return failed(`Cannot read "${p}": it looks like a binary file (it contains NUL bytes)`);
    }
    const lines = content.split("\n");
    if (lines.at(-1) === "") lines.pop();
    if (lines.length === 0) {
      return offset === 1
        ? { success: true, output: `(file "${p}" is empty)`, truncated: false }
        : failed(`Cannot read "${p}" from line ${offset}: the file has fewer lines`);
    }
    const more = lines.length > limit;
    const r = numberLines(
      lines.slice(0, limit),
      offset,
      more && args.limit === undefined,
      ctx.limits.maxOutputBytes,
    );
    if (r.shown === 0) {
      return {
        success: false,
        output: `Cannot show line ${offset} of "${p}": it does not fit in the ` +
          `${ctx.limits.maxOutputBytes}-byte output limit`,
        truncated: true,
      };
    }
    return { success: true, output: r.text, truncated: r.truncated };
  };
  return { ...readFileTool, run };
}

function writeThrough(write: NonNullable<ClientFiles["write"]>): AnyTool {
  const run = async (
    args: Args<typeof writeFileTool>,
    ctx: ToolContext,
  ): Promise<ToolResult> => {
    if (ctx.signal.aborted) {
      return failed(stopMessage(ctx.signal, `Writing "${args.path}" was cancelled`));
    }
    try {
      const target = await writeTarget(ctx.cwd, args.path, "write");
      if (!target.ok) return failed(target.message);
      let existed = true;
      await Deno.lstat(target.absolute).catch(() => existed = false);
      await write(target.absolute, args.content, ctx.signal);
      return {
        success: true,
        output: `${existed ? "Overwrote" : "Created"} "${args.path}" ` +
          `(${utf8Length(args.content)} bytes written, through the editor)`,
        truncated: false,
      };
    } catch (e) {
      return editorFailure("write", args.path, e, ctx.signal);
    }
  };
  return { ...writeFileTool, run };
}

function editThrough(files: ClientFiles): AnyTool {
  const write = files.write!;
  const run = async (args: Args<typeof editFileTool>, ctx: ToolContext): Promise<ToolResult> => {
    const p = args.path;
    const refusal = editRefusal({ ...args });
    if (refusal !== undefined) return failed(refusal);
    if (ctx.signal.aborted) return failed(stopMessage(ctx.signal, `Editing "${p}" was cancelled`));
    try {
      const target = await writeTarget(ctx.cwd, p, "edit");
      if (!target.ok) return failed(target.message);
      let before: string;
      if (files.read) {
        before = await files.read(target.absolute, {}, ctx.signal);
      } else {
        const size = (await Deno.stat(target.absolute)).size;
        if (size > MAX_EDIT_BYTES) {
          return failed(
            `Cannot edit "${p}": it is ${size} bytes, over the ${MAX_EDIT_BYTES}-byte limit`,
          );
        }
        before = await Deno.readTextFile(target.absolute);
      }
      const edit = applyEdit(before, { ...args });
      if (!edit.ok) return failed(edit.message);
      await write(target.absolute, edit.after, ctx.signal);
      const n = edit.replaced;
      const head = `Edited "${p}" through the editor: replaced ${n} occurrence` +
        `${n === 1 ? "" : "s"}\n\n`;
      const diff = unifiedDiff(displayPath(target.root, target.absolute), before, edit.after);
      const { text, truncated } = truncateText(head + diff, ctx.limits.maxOutputBytes);
      return { success: true, output: text, truncated };
    } catch (e) {
      return editorFailure("edit", p, e, ctx.signal);
    }
  };
  return { ...editFileTool, run };
}

/**
 * The tools with the file tools replaced by ones going through the editor, as far as `files`
 * allows: reads when it can read, writes and edits when it can write. Other tools stay.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { withClientFiles } from "./client_files.ts";
 * import { builtinTools } from "../tools/builtin.ts";
 * const tools = builtinTools();
 * assert.deepEqual(withClientFiles(tools, {}), tools);
 * ```
 */
export function withClientFiles(tools: readonly AnyTool[], files: ClientFiles): AnyTool[] {
  return tools.map((tool) => {
    if (tool.name === readFileTool.name && files.read) return readThrough(files.read);
    if (tool.name === writeFileTool.name && files.write) return writeThrough(files.write);
    if (tool.name === editFileTool.name && files.write) return editThrough(files);
    return tool;
  });
}
