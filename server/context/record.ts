/**
 * The compaction record: the one user message that stands in for the messages compaction
 * removed. It is deterministic, bounded to {@link RECORD_MAX_BYTES} of UTF-8, and parsable, so
 * that a later compaction that removes it merges its lines into the next record.
 *
 * ```text
 * [scv: earlier conversation compacted]
 * Earlier messages were removed to fit the context window (42 messages, 5 turns).
 * Prompts of the removed turns, oldest first (1 older not listed):
 * - "Fix the failing test."
 * - "Now run the linter and fix what it reports"
 * Tool calls in the removed messages: {"bash":12,"read_file":7}
 * ```
 *
 * @module
 */
import type { ChatMessage } from "../provider/types.ts";
import { utf8Length } from "../utf8.ts";

/** The first line of every compaction record. */
export const COMPACTION_MARKER = "[scv: earlier conversation compacted]";
/** A record's content never exceeds this many UTF-8 bytes. */
export const RECORD_MAX_BYTES = 2048;
/** A listed prompt keeps at most this many UTF-16 code units (then "…"). */
export const RECORD_PROMPT_CHARS = 200;
/** The tool-count line never exceeds this many UTF-8 bytes; the rest is summed as "(other)". */
const TOOLS_MAX_BYTES = 512;
/** A tool name in the record keeps at most this many characters. */
const TOOL_NAME_CHARS = 64;
const OTHER_TOOLS = "(other)";
/** Room reserved for the "Prompts of the removed turns…" line, whatever its count. */
const PROMPTS_HEADER_BYTES = 96;

const SUMMARY_LINE = /^Earlier messages were removed .*\((\d+) messages?, (\d+) turns?\)\.$/;
const PROMPTS_LINE =
  /^Prompts of the removed turns, oldest first(?: \((\d+) older not listed\))?:$/;
const PROMPT_LINE = /^- (".*")$/;
const TOOLS_PREFIX = "Tool calls in the removed messages: ";

/**
 * Whether `message` is a compaction record: a user message whose first line is
 * {@link COMPACTION_MARKER}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { COMPACTION_MARKER, isCompactionRecord } from "./record.ts";
 * assert.equal(isCompactionRecord({ role: "user", content: `${COMPACTION_MARKER}\n...` }), true);
 * assert.equal(isCompactionRecord({ role: "user", content: "hello" }), false);
 * ```
 */
export function isCompactionRecord(message: ChatMessage): boolean {
  return message.role === "user" &&
    (message.content === COMPACTION_MARKER ||
      message.content.startsWith(COMPACTION_MARKER + "\n"));
}

/** A prompt as the record lists it: whitespace collapsed, at most {@link RECORD_PROMPT_CHARS}. */
function shortPrompt(prompt: string): string {
  const text = prompt.slice(0, RECORD_PROMPT_CHARS * 8).replace(/\s+/g, " ").trim();
  if (text.length <= RECORD_PROMPT_CHARS) return text;
  let end = RECORD_PROMPT_CHARS - 1;
  const c = text.charCodeAt(end - 1);
  if (c >= 0xd800 && c <= 0xdbff) end--; // do not split a surrogate pair
  return text.slice(0, end) + "…";
}

function parseCount(text: string | undefined): number {
  const n = Number(text);
  return Number.isSafeInteger(n) && n >= 0 ? n : 0;
}

/**
 * Accumulates removed messages, oldest first, and renders the record that replaces them. Adding
 * a message is O(1) (a record: O(its size)); rendering is bounded by the record size, so a
 * planner can try successive cut points cheaply.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { CompactionSummary, isCompactionRecord } from "./record.ts";
 * const summary = new CompactionSummary();
 * summary.add({ role: "user", content: "Fix the failing test." });
 * summary.add({
 *   role: "assistant",
 *   content: null,
 *   tool_calls: [{ id: "c1", type: "function", function: { name: "bash", arguments: "{}" } }],
 * });
 * summary.add({ role: "tool", tool_call_id: "c1", content: "ok" });
 * const record = summary.toMessage();
 * assert.ok(isCompactionRecord(record));
 * assert.match(record.content, /- "Fix the failing test\."/);
 * assert.match(record.content, /\{"bash":1\}/);
 * ```
 */
export class CompactionSummary {
  #prompts: string[] = [];
  #unlisted = 0;
  #messages = 0;
  #turns = 0;
  #tools = new Map<string, number>();

  /** Adds the next removed message; an earlier record's lines are merged, not listed. */
  add(message: ChatMessage): void {
    if (message.role === "user" && isCompactionRecord(message)) {
      this.#merge(message.content);
      return;
    }
    this.#messages++;
    if (message.role === "user") {
      this.#turns++;
      this.#prompts.push(shortPrompt(message.content));
    } else if (message.role === "assistant" && message.tool_calls) {
      for (const call of message.tool_calls) this.#addTool(call.function.name, 1);
    }
  }

  #addTool(name: string, count: number): void {
    const key = name.length > TOOL_NAME_CHARS ? name.slice(0, TOOL_NAME_CHARS) : name;
    this.#tools.set(key, (this.#tools.get(key) ?? 0) + count);
  }

  #merge(content: string): void {
    for (const line of content.split("\n")) {
      let match;
      if ((match = SUMMARY_LINE.exec(line))) {
        this.#messages += parseCount(match[1]);
        this.#turns += parseCount(match[2]);
      } else if ((match = PROMPTS_LINE.exec(line))) {
        this.#unlisted += parseCount(match[1]);
      } else if ((match = PROMPT_LINE.exec(line))) {
        try {
          const prompt: unknown = JSON.parse(match[1]!);
          if (typeof prompt === "string") this.#prompts.push(prompt);
        } catch {
          // Not a line this module wrote: nothing to merge.
        }
      } else if (line.startsWith(TOOLS_PREFIX)) {
        try {
          const tools: unknown = JSON.parse(line.slice(TOOLS_PREFIX.length));
          if (tools && typeof tools === "object" && !Array.isArray(tools)) {
            for (const [name, count] of Object.entries(tools)) {
              const n = parseCount(String(count));
              if (n > 0) this.#addTool(name, n);
            }
          }
        } catch {
          // As above.
        }
      }
    }
  }

  /** Conversation messages summarized so far, including those an earlier record stood for. */
  get messages(): number {
    return this.#messages;
  }

  /** The tool-count line: by count descending then name, bounded, the rest as "(other)". */
  #toolsLine(): string {
    const entries = [...this.#tools].filter(([name]) => name !== OTHER_TOOLS)
      .sort(([a, x], [b, y]) => y - x || (a < b ? -1 : a > b ? 1 : 0));
    let other = this.#tools.get(OTHER_TOOLS) ?? 0;
    // No prototype: a tool named "__proto__" is an ordinary key.
    const kept: Record<string, number> = Object.create(null);
    // Room for `,"(other)":<count>` and the closing brace, whatever the count.
    let bytes = utf8Length(TOOLS_PREFIX) + 1 + 30;
    for (const [name, count] of entries) {
      const size = utf8Length(JSON.stringify(name)) + 2 + String(count).length;
      if (bytes + size <= TOOLS_MAX_BYTES) {
        kept[name] = count;
        bytes += size;
      } else {
        other += count;
      }
    }
    if (other > 0) kept[OTHER_TOOLS] = other;
    return TOOLS_PREFIX + JSON.stringify(kept);
  }

  /** The record's text: at most {@link RECORD_MAX_BYTES} UTF-8 bytes, newest prompts kept. */
  render(): string {
    const head = `${COMPACTION_MARKER}\nEarlier messages were removed to fit the context window (${
      this.#messages === 1 ? "1 message" : `${this.#messages} messages`
    }, ${this.#turns === 1 ? "1 turn" : `${this.#turns} turns`}).`;
    const tools = this.#tools.size > 0 ? this.#toolsLine() : "";
    let budget = RECORD_MAX_BYTES - utf8Length(head) - PROMPTS_HEADER_BYTES - 1 -
      (tools ? utf8Length(tools) + 1 : 0);
    const listed: string[] = [];
    for (let i = this.#prompts.length - 1; i >= 0; i--) {
      const line = `- ${JSON.stringify(this.#prompts[i])}`;
      const size = utf8Length(line) + 1;
      if (size > budget) break;
      budget -= size;
      listed.push(line);
    }
    const unlisted = this.#unlisted + this.#prompts.length - listed.length;
    const lines = [head];
    if (listed.length > 0 || unlisted > 0) {
      lines.push(
        `Prompts of the removed turns, oldest first${
          unlisted > 0 ? ` (${unlisted} older not listed)` : ""
        }:`,
      );
      lines.push(...listed.reverse());
    }
    if (tools) lines.push(tools);
    return lines.join("\n");
  }

  /** The record as a user message. */
  toMessage(): Extract<ChatMessage, { role: "user" }> {
    return { role: "user", content: this.render() };
  }
}
