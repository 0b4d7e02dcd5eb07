/**
 * The `grep` tool: lines matching a JavaScript regular expression, in a file or a directory
 * tree, as `path:line:text`. The walk and the matching run in a worker (`grep_worker.ts`):
 * a pattern like `^(a+)+$` can backtrack for longer than anyone waits, and only terminating
 * the worker stops it, so cancellation and the time limit still work.
 *
 * @module
 */
import * as z from "zod";
import { defineTool, stopMessage, type ToolContext, type ToolResult } from "./tool.ts";
import { directoryEnding, locate, readRisk } from "./workspace.ts";
import { globMatcher } from "./glob_pattern.ts";
import { fileErrorMessage } from "./permission.ts";
import { truncateText } from "./output.ts";
import { clip } from "../error_text.ts";
import { utf8Length } from "../utf8.ts";
import { callWorker } from "../worker_call.ts";
import type { GrepReply, GrepRequest } from "./grep_search.ts";
// Does nothing here; it puts the worker's module in the graph that `deno compile` embeds.
import "./grep_worker.ts";

/** Matching lines listed at most. */
export const MAX_GREP_MATCHES = 1000;
/** Characters of a matching line shown. */
export const MAX_GREP_LINE_CHARS = 500;
/** Files larger than this are skipped (logs, dumps); they are counted in the result. */
export const MAX_GREP_FILE_BYTES = 8 * 1024 * 1024;

/**
 * Output bytes kept free for the notes that follow the matches; half of a smaller limit, so
 * that a small limit still shows some matching lines.
 */
const NOTES_RESERVE = 256;

function notesReserve(maxOutputBytes: number): number {
  return Math.min(NOTES_RESERVE, Math.floor(maxOutputBytes / 2));
}

const schema = z.object({
  pattern: z.string().min(1).describe("JavaScript regular expression, matched line by line"),
  path: z.string().min(1).optional().describe(
    "File or directory to search (default: the workspace)",
  ),
  glob: z.string().min(1).optional().describe(
    'Only files matching this glob, e.g. "*.ts" (by name) or "src/**\/*.ts" (by path)',
  ),
});

function failed(output: string): ToolResult {
  return { success: false, output, truncated: false };
}

/** An error from the worker, rebuilt as the `Deno.errors` class it was, for its message. */
function rebuild(error: { name: string; message: string }): Error {
  const classes = Deno.errors as unknown as Record<string, new (message: string) => Error>;
  const Class = Object.hasOwn(classes, error.name) ? classes[error.name]! : Error;
  return new Class(error.message);
}

/**
 * Runs `request` in a fresh worker. Resolves with its reply, or with undefined as soon as
 * `signal` aborts, after terminating the worker.
 */
function searchInWorker(
  request: GrepRequest,
  signal: AbortSignal,
): Promise<GrepReply | undefined> {
  return callWorker<GrepRequest, GrepReply>(
    new URL("./grep_worker.ts", import.meta.url),
    request,
    (message) => ({ ok: false, error: { name: "Error", message } }),
    signal,
  ).catch(() => undefined); // it rejects only when the signal aborted
}

async function run(args: z.infer<typeof schema>, ctx: ToolContext): Promise<ToolResult> {
  try {
    new RegExp(args.pattern);
  } catch (err) {
    return failed(`Invalid regular expression "${args.pattern}": ${(err as Error).message}`);
  }
  if (args.glob !== undefined) {
    try {
      globMatcher(args.glob.replace(/^(\.\/)+/, ""));
    } catch (err) {
      return failed(`Invalid glob pattern "${args.glob}": ${(err as Error).message}`);
    }
  }
  const cancelled = () =>
    failed(stopMessage(ctx.signal, `Searching for "${args.pattern}" was cancelled`));
  if (ctx.signal.aborted) return cancelled();

  const where = args.path ?? ".";
  const fileError = (err: unknown) =>
    failed(fileErrorMessage(err, { verb: "search", path: where, flag: "--allow-read" }));
  let request: GrepRequest;
  try {
    const { root, absolute, inside } = await locate(ctx.cwd, where);
    const info = await Deno.stat(absolute);
    if (!info.isFile && !info.isDirectory) {
      return failed(`Cannot search "${where}": it is not a regular file or directory`);
    }
    const ending = directoryEnding(where);
    if (info.isFile && ending !== undefined) {
      return failed(
        `Cannot search "${where}": it is not a directory, but the path ends in "${ending}"`,
      );
    }
    request = {
      pattern: args.pattern,
      root,
      target: absolute,
      isFile: info.isFile,
      // Outside the workspace, the searched directory's own .gitignore files apply.
      walkBase: inside ? root : absolute,
      confine: inside,
      maxMatches: MAX_GREP_MATCHES,
      maxBytes: ctx.limits.maxOutputBytes - notesReserve(ctx.limits.maxOutputBytes),
      maxLineChars: MAX_GREP_LINE_CHARS,
      maxFileBytes: MAX_GREP_FILE_BYTES,
    };
    if (args.glob !== undefined) request.glob = args.glob;
  } catch (err) {
    return fileError(err);
  }

  const reply = await searchInWorker(request, ctx.signal);
  if (reply === undefined) return cancelled();
  if (!reply.ok) {
    if (reply.outside) {
      return failed(
        `Cannot search "${where}": it changed while being opened and may now lead outside ` +
          `the workspace "${request.root}"; nothing was read`,
      );
    }
    return fileError(rebuild(reply.error));
  }

  const { lines, stop, matched, first, skippedLarge, skippedOutside } = reply;
  const notes: string[] = [];
  if (lines.length === 0 && matched > 0) {
    // Matching lines were found but not one fits: say so, never "no matches".
    const count = stop === "matches"
      ? `More than ${MAX_GREP_MATCHES} lines match`
      : matched === 1
      ? "1 line matches"
      : `${matched} lines match`;
    const limit = ctx.limits.maxOutputBytes;
    const full =
      `${count} "${clip(args.pattern, 60)}" (the first at ${clip(String(first), 80)}), ` +
      `but none fits in the ${limit}-byte output limit; narrow the search`;
    // At a tiny limit even the note must fit, or the output cap would cut it in the middle.
    notes.push(utf8Length(full) <= limit ? full : `${count}; none fits in ${limit} bytes`);
  } else if (stop === "matches") {
    notes.push(`[Stopped after ${MAX_GREP_MATCHES} matching lines; narrow the search]`);
  } else if (stop === "bytes") {
    notes.push(`[Output limit reached; narrow the search]`);
  }
  if (skippedLarge > 0) {
    notes.push(`[Skipped ${skippedLarge} file(s) larger than ${MAX_GREP_FILE_BYTES} bytes]`);
  }
  if (skippedOutside > 0) {
    notes.push(`[Skipped ${skippedOutside} file(s) that led outside the workspace when opened]`);
  }
  if (matched === 0) {
    const none = `No matches found for "${args.pattern}"`;
    return { success: true, output: [none, ...notes].join("\n"), truncated: false };
  }
  const bounded = truncateText([...lines, ...notes].join("\n"), ctx.limits.maxOutputBytes);
  return {
    success: true,
    output: bounded.text,
    truncated: stop !== undefined || bounded.truncated,
  };
}

/**
 * The `grep` tool of CONTRACT.md: risk `read`, or `write` when `path` leaves the workspace.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { grepTool } from "./grep.ts";
 * assert(grepTool.summary({ pattern: "TODO" }) === "Search: TODO");
 * ```
 */
export const grepTool = defineTool({
  name: "grep",
  description: "Search file contents with a JavaScript regular expression, line by line. " +
    "Prints `path:line:text` for each matching line. Searches the workspace unless `path` " +
    "names a file or directory; `glob` filters files. Skips .gitignored, .git and binary files.",
  schema,
  // It changes nothing: it runs in plan mode.
  readOnly: true,
  risk: (args, ctx) => args.path === undefined ? "read" : readRisk(ctx.cwd, args.path),
  summary: (args) => `Search: ${args.pattern}`,
  run,
});
