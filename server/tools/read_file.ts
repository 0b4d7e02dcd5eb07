/**
 * The `read_file` tool: a text file's lines, numbered, streamed so that a huge file costs only
 * the lines shown.
 *
 * @module
 */
import { BINARY_SNIFF_BYTES } from "./binary.ts";
import * as z from "zod";
import { defineTool, stopMessage, type ToolContext, type ToolResult } from "./tool.ts";
import { directoryEnding, locate, openedInside, readRisk } from "./workspace.ts";
import { fileErrorMessage } from "./permission.ts";
import { utf8Length } from "../utf8.ts";
import { mediaTypeOfName } from "../images/format.ts";
import { readWorkspaceImage } from "./image_file.ts";

/** Lines shown when the call gives no `limit`. */
export const DEFAULT_LINE_LIMIT = 2000;
/** Characters of one line shown; the rest is cut with a note, so minified files stay readable. */
export const MAX_LINE_CHARS = 2000;

const schema = z.object({
  path: z.string().min(1).describe("File path, relative to the workspace or absolute"),
  offset: z.number().int().positive().optional().describe("First line to show, 1-based"),
  limit: z.number().int().positive().optional().describe(
    `Number of lines to show (default ${DEFAULT_LINE_LIMIT})`,
  ),
});

function failed(output: string): ToolResult {
  return { success: false, output, truncated: false };
}

/** Why reading stopped early, if it did. */
type Stop = "limit" | "bytes" | "binary" | "invalid" | "cancelled" | undefined;

/** Formats one numbered line the way `cat -n` does. */
function numbered(n: number, line: string): string {
  const shown = line.length > MAX_LINE_CHARS
    ? `${line.slice(0, MAX_LINE_CHARS)} [... line cut at ${MAX_LINE_CHARS} characters]`
    : line;
  return `${String(n).padStart(6)}\t${shown}\n`;
}

/**
 * An image file inside the workspace, given to the model as the image itself, bounded like an
 * attachment (`max_image_bytes`, format by magic bytes); where the provider takes no images the
 * output says so.
 */
async function readImage(path: string, size: number, ctx: ToolContext): Promise<ToolResult> {
  const what = `"${path}" is an image (${size} bytes)`;
  if (ctx.maxImageBytes === undefined) {
    return failed(`${what}, and this provider takes no images, so it cannot be shown to you`);
  }
  const got = await readWorkspaceImage(ctx.cwd, path, { maxImageBytes: ctx.maxImageBytes });
  if (typeof got === "string") return failed(`Cannot show the image "${path}": ${got}`);
  const format = got.media_type.slice("image/".length).toUpperCase();
  return {
    success: true,
    output: `Image "${path}": ${format}, ${got.width}x${got.height} px, ${got.bytes} bytes; ` +
      `it is attached for you to see.`,
    truncated: false,
    images: [got],
  };
}

async function run(args: z.infer<typeof schema>, ctx: ToolContext): Promise<ToolResult> {
  const err = (e: unknown) =>
    failed(fileErrorMessage(e, { verb: "read", path: args.path, flag: "--allow-read" }));
  let file: Deno.FsFile;
  try {
    const { root, absolute, inside } = await locate(ctx.cwd, args.path);
    const info = await Deno.stat(absolute);
    if (info.isDirectory) {
      return failed(`Cannot read "${args.path}": it is a directory; use glob to list files`);
    }
    if (!info.isFile) return failed(`Cannot read "${args.path}": it is not a regular file`);
    const ending = directoryEnding(args.path);
    if (ending !== undefined) {
      return failed(
        `Cannot read "${args.path}": it is not a directory, but the path ends in "${ending}"`,
      );
    }
    const mediaType = mediaTypeOfName(args.path);
    if (mediaType !== undefined && inside) return await readImage(args.path, info.size, ctx);
    file = await Deno.open(absolute, { read: true });
    // A path judged inside was not announced as a read outside: make sure the open agrees.
    if (inside && !(await openedInside(root, absolute, file).catch(() => false))) {
      file.close();
      return failed(
        `Cannot read "${args.path}": it changed while being opened and may now lead outside ` +
          `the workspace "${root}"; nothing was read`,
      );
    }
  } catch (e) {
    return err(e);
  }

  const offset = args.offset ?? 1;
  const limit = args.limit ?? DEFAULT_LINE_LIMIT;
  const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });
  const buf = new Uint8Array(64 * 1024);
  const shown: string[] = [];
  let shownBytes = 0;
  let lineNo = 0; // the last line counted, shown or skipped before `offset`
  let partial = ""; // the current line, capped
  let sniffed = 0;
  let stop: Stop;
  let sawAny = false;

  /** Takes one complete line; returns false when reading should stop. */
  const take = (line: string): boolean => {
    lineNo++;
    if (lineNo < offset) return true;
    if (lineNo >= offset + limit) {
      lineNo--;
      stop = "limit";
      return false;
    }
    const text = numbered(lineNo, line);
    const size = utf8Length(text);
    if (shownBytes + size > ctx.limits.maxOutputBytes) {
      lineNo--;
      stop = "bytes";
      return false;
    }
    shown.push(text);
    shownBytes += size;
    return true;
  };

  const feed = (text: string): boolean => {
    let start = 0;
    for (;;) {
      const nl = text.indexOf("\n", start);
      const piece = text.slice(start, nl === -1 ? undefined : nl);
      const room = MAX_LINE_CHARS + 1 - partial.length;
      // One character past the cap is kept so that `numbered` knows to mark the cut.
      partial += piece.length <= room ? piece : piece.slice(0, room);
      if (nl === -1) return true;
      const line = partial;
      partial = "";
      if (!take(line)) return false;
      start = nl + 1;
    }
  };

  try {
    for (;;) {
      if (ctx.signal.aborted) {
        stop = "cancelled";
        break;
      }
      const n = await file.read(buf);
      if (n === null) break;
      const chunk = buf.subarray(0, n);
      sawAny = true;
      if (sniffed < BINARY_SNIFF_BYTES) {
        const look = chunk.subarray(0, BINARY_SNIFF_BYTES - sniffed);
        sniffed += look.length;
        if (look.includes(0)) {
          stop = "binary";
          break;
        }
      }
      let text: string;
      try {
        text = decoder.decode(chunk, { stream: true });
      } catch {
        stop = "invalid";
        break;
      }
      if (!feed(text)) break;
    }
    if (stop === undefined) {
      let rest = "";
      try {
        rest = decoder.decode();
      } catch {
        stop = "invalid";
      }
      // The last line has no newline after it.
      if (stop === undefined && feed(rest) && partial !== "") take(partial);
    }
  } catch (e) {
    return err(e);
  } finally {
    file.close();
  }

  if (stop === "binary") {
    return failed(
      `Cannot read "${args.path}": it looks like a binary file (it contains NUL bytes)`,
    );
  }
  if (stop === "invalid") {
    return failed(`Cannot read "${args.path}": it is not valid UTF-8 text`);
  }
  if (stop === "cancelled") {
    return failed(stopMessage(ctx.signal, `Reading "${args.path}" was cancelled`));
  }
  if (!sawAny) return { success: true, output: `(file "${args.path}" is empty)`, truncated: false };
  const tooLong = (): ToolResult => ({
    success: false,
    output: `Cannot show line ${offset} of "${args.path}": it does not fit in the ` +
      `${ctx.limits.maxOutputBytes}-byte output limit`,
    truncated: true,
  });
  if (shown.length === 0) {
    if (stop === "bytes") return tooLong();
    return failed(
      `Cannot read "${args.path}" from line ${offset}: the file has only ${lineNo} lines`,
    );
  }
  // A footer goes after the lines when reading stopped early. The whole output, footer
  // included, must fit the limit: past it the agent cuts bytes out of the middle, and the
  // footer would name lines the model did not fully see. Lines are dropped from the end until
  // it fits, so the output still ends on a line boundary.
  const footer = (last: number): string | undefined => {
    if (stop === "bytes") {
      return `[Output limit reached after line ${last}; continue with offset=${last + 1}]`;
    }
    if (stop === "limit" && args.limit === undefined) {
      return `[Showing lines ${offset}-${last}; continue with offset=${last + 1}]`;
    }
    return undefined;
  };
  let note = footer(lineNo);
  const max = ctx.limits.maxOutputBytes;
  while (note !== undefined && shown.length > 0 && shownBytes + utf8Length(note) > max) {
    shownBytes -= utf8Length(shown.pop()!);
    stop = "bytes";
    note = footer(offset + shown.length - 1);
  }
  if (shown.length === 0) return tooLong();
  const output = shown.join("") + (note ?? "");
  const truncated = note !== undefined;
  return { success: true, output, truncated };
}

/**
 * The `read_file` tool of CONTRACT.md: risk `read`, or `write` for a path outside the
 * workspace.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readFileTool } from "./read_file.ts";
 * assert(readFileTool.summary({ path: "a.ts" }) === "Read file: a.ts");
 * ```
 */
export const readFileTool = defineTool({
  name: "read_file",
  description: "Read a UTF-8 text file. Lines are numbered from 1 (`     1\\tline`); use " +
    "`offset` and `limit` to page through long files. Binary files are refused, but an image " +
    "(PNG, JPEG, GIF, WebP) inside the workspace is shown to you as the image itself.",
  schema,
  // It changes nothing: it runs in plan mode.
  readOnly: true,
  risk: (args, ctx) => readRisk(ctx.cwd, args.path),
  summary: (args) => `Read file: ${args.path}`,
  run,
});
