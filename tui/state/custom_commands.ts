/**
 * Custom commands: a Markdown file `NAME.md` in `~/.config/scv/commands/` or
 * `<workspace>/.scv/commands/` is the prompt of `/NAME`, with `$ARGUMENTS` replaced by the
 * words typed after the name.
 *
 * @module
 */
import type { CustomCommand } from "./model.ts";

/** What a custom command's name may be: it is typed after a slash. */
export const CUSTOM_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** A description longer than this is cut for `/help`. */
const MAX_DESCRIPTION = 72;

/**
 * The command a file defines. A leading front matter block (`---` lines around `key: value`
 * lines, as other agents' command files have) is not part of the prompt, and its
 * `description` describes the command; without one, the first non-empty line does (a `#`
 * heading mark removed). Undefined when the file name makes no command name.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseCustomCommand } from "./custom_commands.ts";
 * const c = parseCustomCommand("review.md", "# Review a change\nReview $ARGUMENTS.", "/c/review.md");
 * assert(c?.name === "review" && c.description === "Review a change");
 * assert(parseCustomCommand("notes.txt", "x", "/c/notes.txt") === undefined);
 * const f = parseCustomCommand("fix.md", "---\ndescription: Fix it\n---\nFix $ARGUMENTS", "/c/fix.md");
 * assert(f?.description === "Fix it" && f.body === "Fix $ARGUMENTS");
 * ```
 */
export function parseCustomCommand(
  fileName: string,
  text: string,
  source: string,
): CustomCommand | undefined {
  if (!fileName.endsWith(".md")) return undefined;
  const name = fileName.slice(0, -3);
  if (!CUSTOM_NAME.test(name)) return undefined;
  let body = text;
  let description: string | undefined;
  const front = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(text);
  if (front) {
    body = text.slice(front[0].length);
    const d = /^description:\s*(.*)$/m.exec(front[1]!);
    if (d) description = d[1]!.trim().replace(/^(["'])(.*)\1$/, "$2");
  }
  const first = body.split("\n").find((l) => l.trim() !== "") ?? "";
  description ??= first.replace(/^#+\s*/, "").trim();
  if (description.length > MAX_DESCRIPTION) {
    description = description.slice(0, MAX_DESCRIPTION - 1) + "…";
  }
  return { name, description, body, source };
}

/**
 * The prompt of `/NAME args`: every `$ARGUMENTS` replaced by `args`; a body without one gets
 * the arguments after it, so nothing typed is dropped.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { expandCustomCommand } from "./custom_commands.ts";
 * const c = { name: "fix", description: "", body: "Fix $ARGUMENTS now.", source: "" };
 * assert.equal(expandCustomCommand(c, "issue 4"), "Fix issue 4 now.");
 * ```
 */
export function expandCustomCommand(command: CustomCommand, args: string): string {
  const body = command.body.replace(/\s+$/, "");
  if (body.includes("$ARGUMENTS")) return body.replaceAll("$ARGUMENTS", args);
  return args === "" ? body : `${body}\n\n${args}`;
}
