/**
 * The work of the `grep` tool: walking files and matching lines. It runs in a worker
 * (`grep_worker.ts`) so that a regular expression that backtracks for minutes blocks only that
 * worker, which the tool terminates on cancellation or timeout; nothing here looks at a signal.
 *
 * @module
 */
import { looksBinary } from "./binary.ts";
import * as path from "../posix_path.ts";
import { type GlobMatcher, globMatcher } from "./glob_pattern.ts";
import { walk } from "./walk.ts";
import { displayPath, openedInside } from "./workspace.ts";

/** One search, as the tool sends it to the worker. */
export interface GrepRequest {
  /** The regular expression's source, already checked to compile. */
  pattern: string;
  /** Only files matching this glob (by name without a `/`, by path with one); omitted: all. */
  glob?: string;
  /** The workspace, physical. */
  root: string;
  /** The file or directory searched, physical. */
  target: string;
  /** Whether `target` is a file (else a directory). */
  isFile: boolean;
  /** The directory whose .gitignore files apply first: the workspace, or `target` outside it. */
  walkBase: string;
  /**
   * The call was announced as a read inside the workspace: a file that resolves outside it
   * when opened is not read.
   */
  confine: boolean;
  /** Matching lines listed at most. */
  maxMatches: number;
  /** UTF-8 bytes of listed lines (each with its newline) at most. */
  maxBytes: number;
  /** Characters of a matching line shown. */
  maxLineChars: number;
  /** Files larger than this are skipped and counted. */
  maxFileBytes: number;
}

/** What a search found, or the error that ended it. */
export type GrepReply =
  | {
    ok: true;
    /** `path:line:text` for each matching line, in walk order. */
    lines: string[];
    /** Why the listing stopped early, if it did. */
    stop?: "matches" | "bytes";
    /**
     * Matching lines seen, listed or not. When not even the first fits in `maxBytes`, the
     * search goes on counting (listing none) until the end or past `maxMatches`.
     */
    matched: number;
    /** `path:line` of the first matching line, when one was seen. */
    first?: string;
    /** Files passed over for their size. */
    skippedLarge: number;
    /** Files passed over because they led outside the workspace when opened. */
    skippedOutside: number;
  }
  | {
    ok: false;
    /** The error's class name (`NotFound`, `NotCapable`, ...) and message. */
    error: { name: string; message: string };
    /** Set when the searched file itself led outside the workspace when opened. */
    outside?: boolean;
  };

const decoder = new TextDecoder("utf-8", { fatal: false });
const encoder = new TextEncoder();

function cutLine(line: string, max: number): string {
  const l = line.endsWith("\r") ? line.slice(0, -1) : line;
  return l.length > max ? `${l.slice(0, max)} [...]` : l;
}

/** The content of `abs`, or why it was passed over. */
async function readChecked(
  req: GrepRequest,
  abs: string,
): Promise<Uint8Array | "large" | "outside" | "skip"> {
  let file: Deno.FsFile;
  try {
    file = await Deno.open(abs, { read: true });
  } catch (err) {
    if (err instanceof Deno.errors.NotCapable) throw err;
    return "skip"; // unreadable files are passed over, as grep -s does
  }
  try {
    const info = await file.stat();
    if (!info.isFile) return "skip";
    if (info.size > req.maxFileBytes) return "large";
    if (req.confine && !(await openedInside(req.root, abs, file))) return "outside";
    return new Uint8Array(await new Response(file.readable).arrayBuffer());
  } catch (err) {
    if (err instanceof Deno.errors.NotCapable) throw err;
    return "skip";
  } finally {
    try {
      file.close();
    } catch {
      // Already closed by reading it to the end.
    }
  }
}

/**
 * Runs one search to its end. Throws only for a directory that cannot be walked at all;
 * unreadable files are passed over.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { searchFiles } from "./grep_search.ts";
 * const root = await Deno.realPath(await Deno.makeTempDir());
 * await Deno.writeTextFile(`${root}/a.txt`, "one\ntwo\n");
 * const r = await searchFiles({
 *   pattern: "tw", root, target: root, isFile: false, walkBase: root, confine: true,
 *   maxMatches: 10, maxBytes: 1000, maxLineChars: 100, maxFileBytes: 1000,
 * });
 * assert(r.ok && r.lines.join() === "a.txt:2:two");
 * await Deno.remove(root, { recursive: true });
 * ```
 */
export async function searchFiles(req: GrepRequest): Promise<GrepReply> {
  const re = new RegExp(req.pattern);
  let filter: GlobMatcher | undefined;
  if (req.glob !== undefined) {
    const g = req.glob.replace(/^(\.\/)+/, "");
    const matches = globMatcher(g);
    // A pattern without a slash matches a file's name at any depth, as in ripgrep.
    filter = g.includes("/") ? matches : (rel) => matches(path.basename(rel));
  }
  const lines: string[] = [];
  let bytes = 0;
  let matched = 0;
  let first: string | undefined;
  /** Set when the first matching line did not fit: the rest are only counted. */
  let counting = false;
  let stop: "matches" | "bytes" | undefined;
  let skippedLarge = 0;
  let skippedOutside = 0;

  /** Searches one file's content; returns false when the result is full. */
  const scan = (data: Uint8Array, shown: string): boolean => {
    if (looksBinary(data)) return true;
    const text = decoder.decode(data);
    let n = 0;
    for (const line of text.split("\n")) {
      n++;
      if (!re.test(line)) continue;
      if (matched === req.maxMatches) {
        stop = "matches";
        return false;
      }
      matched++;
      first ??= `${shown}:${n}`;
      if (counting) continue;
      const out = `${shown}:${n}:${cutLine(line, req.maxLineChars)}`;
      bytes += encoder.encode(out).length + 1;
      if (bytes > req.maxBytes) {
        stop = "bytes";
        // With nothing listed, "how many match" is all the caller can say: count on.
        if (lines.length > 0) return false;
        counting = true;
        continue;
      }
      lines.push(out);
    }
    return true;
  };

  const visit = async (abs: string): Promise<boolean> => {
    const data = await readChecked(req, abs);
    if (data === "skip") return true;
    if (data === "large") {
      skippedLarge++;
      return true;
    }
    if (data === "outside") {
      skippedOutside++;
      return true;
    }
    return scan(data, displayPath(req.root, abs));
  };

  try {
    if (req.isFile) {
      await visit(req.target);
      if (skippedOutside > 0) {
        return {
          ok: false,
          outside: true,
          error: { name: "Error", message: "it changed and now leads outside the workspace" },
        };
      }
    } else {
      for await (const e of walk(req.walkBase, req.target)) {
        if (!e.isFile || e.isSymlink) continue; // a symlink could lead outside unannounced
        if (filter && !filter(e.rel)) continue;
        if (!(await visit(e.path))) break;
      }
    }
  } catch (err) {
    const e = err instanceof Error ? err : new Error(String(err));
    return { ok: false, error: { name: e.name, message: e.message } };
  }
  const reply: GrepReply = { ok: true, lines, matched, skippedLarge, skippedOutside };
  if (stop !== undefined) reply.stop = stop;
  if (first !== undefined) reply.first = first;
  return reply;
}
