/**
 * The `grep` tool: lines matching a JavaScript regular expression, in a file or a directory
 * tree, as `path:line:text`.
 *
 * @module
 */
import * as path from "node:path";
import { z } from "zod";
import { defineTool, type ToolContext, type ToolResult } from "./tool.ts";
import { displayPath, locate, readRisk } from "./workspace.ts";
import { type GlobMatcher, globMatcher } from "./glob_pattern.ts";
import { walk } from "./walk.ts";
import { fileErrorMessage } from "./permission.ts";
import { truncateText } from "./output.ts";

/** Matching lines listed at most. */
export const MAX_GREP_MATCHES = 1000;
/** Characters of a matching line shown. */
export const MAX_GREP_LINE_CHARS = 500;
/** Files larger than this are skipped (logs, dumps); they are counted in the result. */
export const MAX_GREP_FILE_BYTES = 8 * 1024 * 1024;

const decoder = new TextDecoder("utf-8", { fatal: false });
const encoder = new TextEncoder();
/** Output bytes kept free for the notes that follow the matches. */
const NOTES_RESERVE = 256;

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

function cutLine(line: string): string {
  const l = line.endsWith("\r") ? line.slice(0, -1) : line;
  return l.length > MAX_GREP_LINE_CHARS ? `${l.slice(0, MAX_GREP_LINE_CHARS)} [...]` : l;
}

async function run(args: z.infer<typeof schema>, ctx: ToolContext): Promise<ToolResult> {
  let re: RegExp;
  try {
    re = new RegExp(args.pattern);
  } catch (err) {
    return failed(`Invalid regular expression "${args.pattern}": ${(err as Error).message}`);
  }
  let filter: ((rel: string) => boolean) | undefined;
  if (args.glob !== undefined) {
    const g = args.glob.replace(/^(\.\/)+/, "");
    let matches: GlobMatcher;
    try {
      matches = globMatcher(g);
    } catch (err) {
      return failed(`Invalid glob pattern "${args.glob}": ${(err as Error).message}`);
    }
    // A pattern without a slash matches a file's name at any depth, as in ripgrep.
    filter = g.includes("/") ? matches : (rel) => matches(path.basename(rel));
  }

  const where = args.path ?? ".";
  const lines: string[] = [];
  let bytes = 0;
  const budget = Math.max(0, ctx.limits.maxOutputBytes - NOTES_RESERVE);
  let stop: "matches" | "bytes" | undefined;
  let skippedLarge = 0;

  /** Searches one file; returns false when the result is full. */
  const search = async (abs: string, shown: string): Promise<boolean> => {
    let data: Uint8Array;
    try {
      const info = await Deno.stat(abs);
      if (!info.isFile) return true;
      if (info.size > MAX_GREP_FILE_BYTES) {
        skippedLarge++;
        return true;
      }
      data = await Deno.readFile(abs);
    } catch (err) {
      if (err instanceof Deno.errors.NotCapable) throw err;
      return true; // unreadable files are passed over, as grep -s does
    }
    if (data.subarray(0, 8192).includes(0)) return true;
    const text = decoder.decode(data);
    let n = 0;
    for (const line of text.split("\n")) {
      n++;
      if (!re.test(line)) continue;
      if (lines.length === MAX_GREP_MATCHES) {
        stop = "matches";
        return false;
      }
      const out = `${shown}:${n}:${cutLine(line)}`;
      bytes += encoder.encode(out).length + 1;
      if (bytes > budget) {
        stop = "bytes";
        return false;
      }
      lines.push(out);
    }
    return true;
  };

  try {
    const { root, absolute, inside } = await locate(ctx.cwd, where);
    const info = await Deno.stat(absolute);
    if (info.isFile) {
      await search(absolute, displayPath(root, absolute));
    } else {
      // Outside the workspace, the searched directory's own .gitignore files apply.
      const base = inside ? root : absolute;
      for await (const e of walk(base, absolute, { signal: ctx.signal })) {
        if (!e.isFile || e.isSymlink) continue; // a symlink could lead outside unannounced
        if (filter && !filter(e.rel)) continue;
        if (!(await search(e.path, displayPath(root, e.path)))) break;
      }
    }
  } catch (err) {
    return failed(fileErrorMessage(err, { verb: "search", path: where, flag: "--allow-read" }));
  }
  if (ctx.signal.aborted) return failed(`Searching for "${args.pattern}" was cancelled`);

  const notes: string[] = [];
  if (stop === "matches") {
    notes.push(`[Stopped after ${MAX_GREP_MATCHES} matching lines; narrow the search]`);
  }
  if (stop === "bytes") notes.push(`[Output limit reached; narrow the search]`);
  if (skippedLarge > 0) {
    notes.push(`[Skipped ${skippedLarge} file(s) larger than ${MAX_GREP_FILE_BYTES} bytes]`);
  }
  if (lines.length === 0) {
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
  risk: (args, ctx) => args.path === undefined ? "read" : readRisk(ctx.cwd, args.path),
  summary: (args) => `Search: ${args.pattern}`,
  run,
});
