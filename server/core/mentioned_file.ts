/**
 * Peon's `files.read`: the head of one file a client's user mentioned (`@path`), read by the
 * server under the workspace's rules so that a client under `--server-command` attaches the
 * server's file, never its own. The file must be a regular file inside the workspace (opened as
 * `read_file` opens one), not hidden (`.git`, `.gitignore`d, `sandbox_deny_read` or scv's own
 * directories), not denied to `read_file` by an approval rule, and UTF-8 text; at most
 * `max_bytes` of it is read, and the text is cut further to fit the reply's frame.
 *
 * @module
 */
import { relative } from "../posix_path.ts";

import type { ServerEventOf } from "../../protocol/schema.ts";
import { ruleLine } from "../../protocol/rule_text.ts";
import { BINARY_SNIFF_BYTES, looksBinary } from "../tools/binary.ts";
import { openContained, readAtMost } from "../tools/contained_file.ts";
import { skippedByWalk } from "../tools/walk.ts";
import { isInside } from "../workspace_dir.ts";
import { utf8Length } from "../utf8.ts";
import { errorText } from "../error_text.ts";
import { decide } from "./rules/decide.ts";
import type { Rule } from "./rules/rule.ts";
import { ruleView } from "./rules/view.ts";

/** A directory no mention may attach from, and why (for the refusal). */
export interface HiddenRoot {
  /** Absolute. */
  path: string;
  /** What hides it, as the refusal says: `by "sandbox_deny_read"`. */
  by: string;
}

/** What {@link readMentionedFile} reads under. */
export interface MentionedFileOptions {
  /** The session's canonical workspace. */
  cwd: string;
  /** The approval rules in force (a `deny` of `read_file` on the path refuses it). */
  rules: readonly Rule[];
  /** Directories hidden from mentions (`sandbox_deny_read`, scv's own directories). */
  hidden: readonly HiddenRoot[];
  /** The most bytes of the file read. */
  maxBytes: number;
  /** The most bytes `text` may take as a JSON string, so the reply fits its frame. */
  maxEncodedBytes: number;
}

/** The reply's body: the text read, or why not. */
export type MentionedFile = Pick<
  ServerEventOf<"files.read">,
  "text" | "size" | "truncated" | "refused"
>;

/** `text` cut (at a character) until it takes at most `max` bytes as a JSON string. */
function fitEncoded(text: string, max: number): string {
  let encoded = utf8Length(JSON.stringify(text));
  while (encoded > max && text.length > 0) {
    let end = Math.max(0, Math.floor(text.length * (max / encoded)) - 1);
    // Never half a surrogate pair.
    const last = text.charCodeAt(end - 1);
    if (last >= 0xd800 && last <= 0xdbff) end--;
    text = text.slice(0, end);
    encoded = utf8Length(JSON.stringify(text));
  }
  return text;
}

/** The hidden root `absolute` lies in, if any (compared as given and as resolved). */
async function hiddenRootOf(
  absolute: string,
  hidden: readonly HiddenRoot[],
): Promise<HiddenRoot | undefined> {
  for (const h of hidden) {
    if (isInside(h.path, absolute)) return h;
    const real = await Deno.realPath(h.path).catch(() => undefined);
    if (real !== undefined && isInside(real, absolute)) return h;
  }
  return undefined;
}

/**
 * Reads the file `path` names for a mention, or says why it will not.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readMentionedFile } from "./mentioned_file.ts";
 * const cwd = await Deno.realPath(await Deno.makeTempDir());
 * await Deno.writeTextFile(`${cwd}/a.txt`, "hello world");
 * const options = { cwd, rules: [], hidden: [], maxBytes: 5, maxEncodedBytes: 1024 };
 * assert.deepEqual(await readMentionedFile("a.txt", options), {
 *   text: "hello", size: 11, truncated: true,
 * });
 * const out = await readMentionedFile("../x", options);
 * assert.equal(out.refused?.reason, "outside");
 * await Deno.remove(cwd, { recursive: true });
 * ```
 */
export async function readMentionedFile(
  path: string,
  options: MentionedFileOptions,
): Promise<MentionedFile> {
  const refuse = (reason: NonNullable<MentionedFile["refused"]>["reason"], message: string) => ({
    refused: { reason, message },
  });
  const opened = await openContained(options.cwd, path);
  if (!("file" in opened)) return refuse(opened.reason, opened.message);
  const { file, info, root, absolute } = opened;
  try {
    const physical = relative(root, absolute);
    if (await skippedByWalk(root, physical)) {
      return refuse(
        "hidden",
        `"${path}" is hidden from the workspace's file list (.git, or ignored by .gitignore)`,
      );
    }
    const hiddenBy = await hiddenRootOf(absolute, options.hidden);
    if (hiddenBy) return refuse("hidden", `"${path}" is hidden ${hiddenBy.by}`);
    for (const p of new Set([path, physical])) {
      const verdict = decide(options.rules, { tool: "read_file", args: { path: p }, cwd: root });
      if (verdict.decision === "deny" && verdict.rule) {
        return refuse(
          "denied",
          `reading "${path}" is denied by an approval rule: ${ruleLine(ruleView(verdict.rule))}`,
        );
      }
    }
    // The head is read whole for the binary sniff even when fewer bytes are asked for.
    const head = await readAtMost(file, Math.max(options.maxBytes, BINARY_SNIFF_BYTES) + 1);
    if (looksBinary(head)) {
      return refuse("binary", `"${path}" looks like a binary file (it contains NUL bytes)`);
    }
    const kept = head.subarray(0, Math.min(options.maxBytes, head.length));
    let truncated = head.length > kept.length;
    let text: string;
    try {
      // A head cut inside a character keeps the whole characters before it.
      text = new TextDecoder("utf-8", { fatal: true }).decode(kept, { stream: truncated });
    } catch {
      return refuse("binary", `"${path}" is not valid UTF-8 text`);
    }
    const fitted = fitEncoded(text, options.maxEncodedBytes);
    if (fitted !== text) truncated = true;
    return { text: fitted, size: Math.max(info.size, head.length), truncated };
  } catch (e) {
    return refuse("unreadable", `Cannot read "${path}": ${errorText(e)}`);
  } finally {
    file.close();
  }
}
