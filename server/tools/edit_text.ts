/**
 * The text change of an `edit_file` call, without I/O: exact replacement of `old_string`, once
 * or everywhere, with the messages the model acts on when it cannot be done. Shared by the
 * disk tool and by front-ends that edit through an editor's buffers (ACP).
 *
 * @module
 */

/** The edited text, or why the edit cannot be made. */
export type EditResult =
  | { ok: true; after: string; replaced: number }
  | { ok: false; message: string };

/** What one edit asks for. */
export interface EditRequest {
  /** The path as the model gave it, for messages. */
  path: string;
  /** The exact text to replace. */
  old_string: string;
  /** The text to put in its place. */
  new_string: string;
  /** Replace every occurrence; otherwise `old_string` must occur once. */
  replace_all?: boolean | undefined;
}

/**
 * Refuses edits that can never apply, before any file is read: an empty `old_string`, or one
 * equal to `new_string`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { editRefusal } from "./edit_text.ts";
 * assert(editRefusal({ path: "a", old_string: "", new_string: "x" })?.includes("empty"));
 * assert(editRefusal({ path: "a", old_string: "x", new_string: "y" }) === undefined);
 * ```
 */
export function editRefusal(edit: EditRequest): string | undefined {
  if (edit.old_string === "") {
    return `Cannot edit "${edit.path}": old_string is empty; to write a whole file use write_file`;
  }
  if (edit.old_string === edit.new_string) {
    return `Cannot edit "${edit.path}": old_string and new_string are identical, nothing would change`;
  }
  return undefined;
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

/**
 * Applies an edit to a file's text: `old_string` must occur exactly once unless `replace_all`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { applyEdit } from "./edit_text.ts";
 * const r = applyEdit("a b a", { path: "f", old_string: "a", new_string: "c", replace_all: true });
 * assert(r.ok && r.after === "c b c" && r.replaced === 2);
 * ```
 */
export function applyEdit(before: string, edit: EditRequest): EditResult {
  const refusal = editRefusal(edit);
  if (refusal !== undefined) return { ok: false, message: refusal };
  const p = edit.path;
  const found = occurrences(before, edit.old_string);
  if (found.length === 0) {
    return {
      ok: false,
      message: `old_string not found in "${p}"; read the file again and copy the text exactly, ` +
        `including whitespace and indentation`,
    };
  }
  if (found.length > 1 && edit.replace_all !== true) {
    return {
      ok: false,
      message: `old_string occurs ${found.length} times in "${p}"; include more surrounding ` +
        `text to make it unique, or set replace_all to replace every occurrence`,
    };
  }
  const parts: string[] = [];
  let from = 0;
  for (const at of found) {
    parts.push(before.slice(from, at), edit.new_string);
    from = at + edit.old_string.length;
  }
  parts.push(before.slice(from));
  return { ok: true, after: parts.join(""), replaced: found.length };
}
