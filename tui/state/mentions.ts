/**
 * `@path` mentions: Tab completes one from the workspace's files (the server's `files.list`,
 * gitignore-aware), and a mentioned file's content is attached to the prompt when it is sent:
 * the server reads it (`files.read`, under the workspace's rules) and the prompt goes out once
 * it has answered, bounded per file and by the prompt limit, with a notice when it is cut.
 *
 * @module
 */
import * as ed from "../composer.ts";
import { MAX_FILES_READ_PATH_CHARS } from "../../protocol/mod.ts";
import { formatBytes } from "./format.ts";
import type { ClientState, Effect, PromptMessage, WorkspaceIndex } from "./model.ts";
import { notice } from "./transcript.ts";

/** The most of one mentioned file attached to a prompt. */
export const MAX_MENTION_BYTES = 64 * 1024;
/** The most files one prompt attaches; later mentions are sent as typed. */
export const MAX_MENTIONS = 10;
/** The candidates a Tab with several matches lists in the hint. */
const LISTED_CANDIDATES = 6;

const encoder = new TextEncoder();

/** The `@word` the cursor is in or just after, with where it starts. */
function mentionAtCursor(b: ed.Buffer): { start: number; prefix: string } | undefined {
  let start = b.cursor;
  while (start > 0 && !/\s/.test(b.text[start - 1]!)) start--;
  const word = b.text.slice(start, b.cursor);
  if (!word.startsWith("@")) return undefined;
  return { start, prefix: word.slice(1) };
}

/**
 * The distinct completions of `prefix` one path segment deep: `src/` for `s` when the
 * workspace has `src/a.ts`, then `src/a.ts` for `src/`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { completionsOf } from "./mentions.ts";
 * const index = { paths: ["README.md", "src/", "src/a.ts", "src/b.ts"], truncated: false };
 * assert.deepEqual(completionsOf(index, "s"), ["src/"]);
 * assert.deepEqual(completionsOf(index, "src/"), ["src/a.ts", "src/b.ts"]);
 * ```
 */
export function completionsOf(index: WorkspaceIndex, prefix: string): string[] {
  const out = new Set<string>();
  for (const p of index.paths) {
    if (!p.startsWith(prefix) || p === prefix) continue;
    const slash = p.indexOf("/", prefix.length);
    out.add(slash === -1 || slash === p.length - 1 ? p : p.slice(0, slash + 1));
  }
  return [...out].sort();
}

function commonPrefix(words: string[]): string {
  let p = words[0] ?? "";
  for (const w of words) while (!w.startsWith(p)) p = p.slice(0, -1);
  return p;
}

/**
 * Tab: completes the `@path` at the cursor (asking the shell to index the workspace the first
 * time), or indents when the cursor is not in a mention.
 */
export function completeMention(state: ClientState): Effect[] {
  const b = state.composer;
  const at = mentionAtCursor(b);
  if (!at) {
    state.composer = ed.insert(b, "    ");
    return [];
  }
  if (!state.files) {
    state.completionPending = true;
    state.hint = "Indexing the workspace's files…";
    return [{ kind: "index-files" }];
  }
  const found = completionsOf(state.files, at.prefix);
  if (found.length === 0) {
    state.hint = `No file of the workspace starts with ${at.prefix === "" ? "that" : at.prefix}` +
      (state.files.truncated ? " (the index holds only the first files)" : "");
    state.completionHint = state.hint;
    return [];
  }
  const completed = found.length === 1 ? found[0]! : commonPrefix(found);
  const end = found.length === 1 && !completed.endsWith("/") ? " " : "";
  const text = b.text.slice(0, at.start) + "@" + completed + end + b.text.slice(b.cursor);
  state.composer = { text, cursor: at.start + 1 + completed.length + end.length };
  state.hint = found.length === 1 ? undefined : truncateList(found);
  state.completionHint = state.hint;
  return [];
}

function truncateList(found: string[]): string {
  const shown = found.slice(0, LISTED_CANDIDATES).map((f) => `@${f}`).join("  ");
  return found.length > LISTED_CANDIDATES ? `${shown}  … ${found.length} matches` : shown;
}

/** The shell indexed the workspace: a Tab waiting for it completes now. */
export function applyWorkspaceIndex(state: ClientState, index: WorkspaceIndex): void {
  state.version++;
  state.files = index;
  if (!state.completionPending) return;
  state.completionPending = false;
  if (state.hint?.startsWith("Indexing")) state.hint = undefined;
  if (mentionAtCursor(state.composer)) completeMention(state);
}

/**
 * The paths `text` mentions as `@path`, in order, once each; trailing punctuation (`,.;:!?)`)
 * is not part of a path.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { mentionedPaths } from "./mentions.ts";
 * assert.deepEqual(mentionedPaths("see @a.ts, then @src/b.ts and @a.ts. mail me@x.org"), ["a.ts", "src/b.ts"]);
 * ```
 */
export function mentionedPaths(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/(?:^|\s)@([^\s]+)/g)) {
    const path = m[1]!.replace(/[,.;:!?)]+$/, "");
    if (path !== "" && !out.includes(path)) out.push(path);
  }
  return out;
}

/** The first `max` bytes of `text` at most, cut at a character boundary. */
function headBytes(text: string, max: number): string {
  const bytes = encoder.encode(text);
  if (bytes.length <= max) return text;
  let end = max;
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  return new TextDecoder().decode(bytes.subarray(0, end));
}

const escapePath = (path: string) => path.replaceAll("&", "&amp;").replaceAll('"', "&quot;");
const blockOpen = (path: string) => `\n\n<file path="${escapePath(path)}">\n`;
const BLOCK_CLOSE = "\n</file>";

/**
 * Takes apart a prompt as {@link attachMentions} built it: the text the user typed and the
 * paths whose `<file>` blocks follow it, so a resumed transcript shows the prompt as it was
 * typed. Only blocks of paths the typed text mentions count, in order; a `<file>` block the
 * user wrote themselves stays in the text. In a `shortened` record (its tail cut), the last
 * block may be unclosed.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { splitAttachments } from "./mentions.ts";
 * const sent = 'see @a.ts\n\n<file path="a.ts">\nconst a = 1;\n</file>';
 * assert.deepEqual(splitAttachments(sent, false), { typed: "see @a.ts", paths: ["a.ts"] });
 * ```
 */
export function splitAttachments(
  prompt: string,
  shortened: boolean,
): { typed: string; paths: string[] } {
  const whole = { typed: prompt, paths: [] };
  for (let at = prompt.indexOf("\n\n<file path="); at !== -1;) {
    const typed = prompt.slice(0, at);
    const mentioned = mentionedPaths(typed).slice(0, MAX_MENTIONS);
    const paths = blocksFrom(prompt, at, mentioned, shortened);
    if (paths) return { typed, paths };
    at = prompt.indexOf("\n\n<file path=", at + 1);
  }
  return whole;
}

/** The paths of the blocks making up `prompt` from `at` to its end, or undefined. */
function blocksFrom(
  prompt: string,
  at: number,
  mentioned: string[],
  shortened: boolean,
): string[] | undefined {
  const opensAt = (i: number, used: string[]) =>
    mentioned.find((p) => !used.includes(p) && prompt.startsWith(blockOpen(p), i));
  const paths: string[] = [];
  let i = at;
  for (;;) {
    const path = opensAt(i, paths);
    if (path === undefined) return undefined;
    paths.push(path);
    const bodyAt = i + blockOpen(path).length;
    // The block ends at the first close followed by the end or by the next block.
    let close = prompt.indexOf(BLOCK_CLOSE, bodyAt - 1);
    let next = -1;
    while (close !== -1) {
      const after = close + BLOCK_CLOSE.length;
      if (after === prompt.length) return paths;
      if (opensAt(after, paths) !== undefined) {
        next = after;
        break;
      }
      close = prompt.indexOf(BLOCK_CLOSE, close + 1);
    }
    if (next === -1) return shortened ? paths : undefined;
    i = next;
  }
}

/** What the server's `files.read` answered for one mentioned path (or the TUI, on no answer). */
export type MentionedFile =
  | { text: string; size: number; truncated: boolean }
  | { refused: { reason: string; message: string } };

/**
 * The mentioned paths of `typed` whose files are read to attach them: the mentions that were
 * not attached as images, at most {@link MAX_MENTIONS}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { textMentions } from "./mentions.ts";
 * assert.deepEqual(textMentions("see @a.png and @b.ts", ["a.png"]), ["b.ts"]);
 * ```
 */
export function textMentions(typed: string, images: readonly string[] = []): string[] {
  return candidates(typed, images).slice(0, MAX_MENTIONS);
}

/** The mentions of `typed` that may name a text file: not images, not longer than any path. */
function candidates(typed: string, images: readonly string[]): string[] {
  // A longer word is text: the server would refuse the request itself.
  return mentionedPaths(typed).filter((p) =>
    !images.includes(p) && p.length <= MAX_FILES_READ_PATH_CHARS
  );
}

/**
 * The effect that sends `message`, a prompt typed as `typed`, with its mentioned files
 * attached: at once when it mentions none, else once the server has read them (the shell asks
 * `files.read` and builds the prompt with {@link attachMentions}). `images` are the mentions
 * already attached as images.
 */
export function sendAttached(
  state: ClientState,
  message: PromptMessage,
  typed: string,
  images: readonly string[] = [],
): Effect {
  const paths = textMentions(typed, images);
  if (paths.length === 0) return { kind: "send", message: { ...message, prompt: typed } };
  return { kind: "send-attached", message, typed, images, paths, maxBytes: state.maxPromptBytes };
}

/**
 * The prompt to send for `typed`: the typed text, then each mentioned file's content in a
 * `<file path="…">` block, at most {@link MAX_MENTION_BYTES} each and never past `maxBytes` in
 * all; each file cut short, or left out, gets a notice. `files` holds what the server read for
 * each path; a mention it found no file for is sent as typed, one it refused says why. The
 * mentions in `images` were attached as images.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createState } from "./model.ts";
 * import { attachMentions } from "./mentions.ts";
 * const s = createState({ model: "m", cwd: "/w", historyLimits: { maxItems: 1, maxBytes: 100 } });
 * const files = new Map([["a.ts", { text: "let a;", size: 6, truncated: false }]]);
 * assert.equal(
 *   attachMentions(s, "see @a.ts", 1000, [], files),
 *   'see @a.ts\n\n<file path="a.ts">\nlet a;\n</file>',
 * );
 * ```
 */
export function attachMentions(
  state: ClientState,
  typed: string,
  maxBytes: number,
  images: readonly string[],
  files: ReadonlyMap<string, MentionedFile>,
): string {
  let prompt = typed;
  let used = encoder.encode(typed).length;
  // Mentions of image files go as images (images.ts), not as text.
  for (const [i, path] of candidates(typed, images).entries()) {
    if (i >= MAX_MENTIONS) {
      notice(state, "warn", `Only the first ${MAX_MENTIONS} mentioned files are attached`);
      break;
    }
    const file = files.get(path);
    if (!file) continue;
    if ("refused" in file) {
      // "@alice" in a sentence names nobody's file: it is text, not a failed attachment.
      if (file.refused.reason !== "missing") {
        notice(state, "warn", `@${path} was not attached: ${file.refused.message}`);
      }
      continue;
    }
    const open = blockOpen(path);
    const close = BLOCK_CLOSE;
    const overhead = encoder.encode(open + close).length;
    const room = Math.min(MAX_MENTION_BYTES, maxBytes - used - overhead);
    if (room <= 0) {
      notice(state, "warn", `@${path} was not attached: the prompt is at its size limit`);
      continue;
    }
    const text = headBytes(file.text, room);
    const shown = encoder.encode(text).length;
    prompt += open + text + close;
    used += overhead + shown;
    if (shown < file.size) {
      notice(
        state,
        "warn",
        `@${path}: only its first ${formatBytes(shown)} of ${formatBytes(file.size)} are attached`,
      );
    } else {
      notice(state, "info", `Attached @${path} (${formatBytes(file.size)})`);
    }
  }
  return prompt;
}
