/**
 * What a `write_file` or `edit_file` call would change, read before it runs, for the approval
 * preview: the file as it is now and as the call would leave it. Only files inside the
 * workspace are read (a call that leaves it fails anyway), and only text within the edit size
 * limit; anything else has no preview.
 *
 * @module
 */
import { looksBinary } from "./binary.ts";
import { applyEdit, editRefusal } from "./edit_text.ts";
import type { FileChangePreview } from "./tool.ts";
import { displayPath, writeTarget } from "./workspace.ts";

/** Largest file read for a preview, as `edit_file`'s own limit. */
export const MAX_PREVIEW_FILE_BYTES = 16 * 1024 * 1024;

/** The text of a file now: null when there is none, undefined when it cannot be previewed. */
async function currentText(absolute: string): Promise<string | null | undefined> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(absolute);
  } catch (e) {
    return e instanceof Deno.errors.NotFound ? null : undefined;
  }
  if (!info.isFile || info.size > MAX_PREVIEW_FILE_BYTES) return undefined;
  try {
    const bytes = await Deno.readFile(absolute);
    if (looksBinary(bytes)) return undefined;
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/** The change `write_file` would make: the file now (null: none) and `content`. */
export async function writePreview(
  cwd: string,
  args: { path: string; content: string },
): Promise<FileChangePreview | undefined> {
  const target = await writeTarget(cwd, args.path, "write");
  if (!target.ok) return undefined;
  const before = await currentText(target.absolute);
  if (before === undefined) return undefined;
  return {
    path: displayPath(target.root, target.absolute),
    absolute: target.absolute,
    before,
    after: args.content,
  };
}

/** The change `edit_file` would make; undefined where the edit would fail. */
export async function editPreview(
  cwd: string,
  args: { path: string; old_string: string; new_string: string; replace_all?: boolean | undefined },
): Promise<FileChangePreview | undefined> {
  if (editRefusal({ ...args }) !== undefined) return undefined;
  const target = await writeTarget(cwd, args.path, "edit");
  if (!target.ok) return undefined;
  const before = await currentText(target.absolute);
  if (before === undefined || before === null) return undefined;
  const edit = applyEdit(before, { ...args });
  if (!edit.ok) return undefined;
  return {
    path: displayPath(target.root, target.absolute),
    absolute: target.absolute,
    before,
    after: edit.after,
  };
}
