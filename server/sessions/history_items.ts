/**
 * `session.history`'s answer, planned: the canonical history as `history.item` frames a client
 * renders like live items, each content cut to a head, the run bounded by the transcript limits
 * of `session.started` (items and bytes, newest kept) and every frame by the frame limit. Pure.
 *
 * @module
 */
import type { ChatMessage, ImagePart } from "../provider/types.ts";
import { isCompactionRecord } from "../context/record.ts";
import { headOf } from "../tools/output.ts";
import { utf8Length } from "../utf8.ts";
import type { ToolMeta } from "./records.ts";

/** An item's content keeps at most this many UTF-8 bytes (then `truncated: true`). */
export const HISTORY_HEAD_BYTES = 16 * 1024;
/** A tool item's summary keeps at most this many UTF-8 bytes. */
export const HISTORY_SUMMARY_BYTES = 1024;

/** The body of one `history.item` (the envelope is added by the sender). */
export interface HistoryItem {
  role: "user" | "assistant" | "tool";
  content: string;
  truncated?: boolean;
  compaction?: boolean;
  name?: string;
  summary?: string;
  success?: boolean;
}

/** Limits of {@link planHistory}. */
export interface HistoryLimits {
  maxItems: number;
  /** Sum of the items' encoded frame sizes, newline included. */
  maxBytes: number;
  maxFrameBytes: number;
  /** Bytes each frame's envelope (`type`, `request_id`, `session_id`) adds. */
  envelopeBytes: number;
}

/** The planned answer. */
export interface HistoryPlan {
  items: HistoryItem[];
  /** Messages with an item that were left out, oldest first, to keep within the limits. */
  omitted: number;
}

/** A message's text with a `[image: name]` line for each of its images (scv 0.3). */
function withImageNames(content: string, images: readonly ImagePart[] | undefined): string {
  if (!images?.length) return content;
  return [content, ...images.map((i) => `[image: ${i.name}]`)].filter((s) => s !== "").join("\n");
}

/** The item of one message; undefined for messages a transcript does not show. */
function itemOf(m: ChatMessage, meta: Map<string, ToolMeta>): HistoryItem | undefined {
  switch (m.role) {
    case "user":
      return isCompactionRecord(m)
        ? { role: "user", content: m.content, compaction: true }
        : { role: "user", content: withImageNames(m.content, m.images) };
    case "assistant":
      // Only calling tools: its calls show as the tool items that follow.
      return m.content ? { role: "assistant", content: m.content } : undefined;
    case "tool": {
      const t = meta.get(m.tool_call_id);
      const item: HistoryItem = { role: "tool", content: withImageNames(m.content, m.images) };
      if (t) {
        item.name = t.name;
        if (t.summary !== undefined) item.summary = headOf(t.summary, HISTORY_SUMMARY_BYTES);
        item.success = t.success;
      }
      return item;
    }
    default:
      return undefined;
  }
}

/** The item's frame size, envelope and newline included. */
function frameBytes(item: HistoryItem, envelopeBytes: number): number {
  return utf8Length(JSON.stringify(item)) + envelopeBytes + 1;
}

/** Cuts the content until the frame fits; JSON escapes can make it up to 6 times its text. */
function bounded(item: HistoryItem, limits: HistoryLimits): HistoryItem | undefined {
  let head = Math.min(HISTORY_HEAD_BYTES, Math.max(0, limits.maxFrameBytes));
  let out = item;
  while (true) {
    const content = headOf(item.content, head);
    out = content === item.content ? item : { ...item, content, truncated: true };
    if (frameBytes(out, limits.envelopeBytes) <= limits.maxFrameBytes) return out;
    if (head === 0) return undefined;
    head = Math.floor(head / 2);
  }
}

/**
 * Plans the items for a history, newest kept when the limits bind.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { planHistory } from "./history_items.ts";
 * const history = [
 *   { role: "user" as const, content: "one" },
 *   { role: "assistant" as const, content: "1" },
 *   { role: "user" as const, content: "two" },
 * ];
 * const plan = planHistory(history, new Map(), {
 *   maxItems: 2, maxBytes: 1 << 20, maxFrameBytes: 1 << 20, envelopeBytes: 80,
 * });
 * assert.deepEqual(plan.items.map((i) => i.content), ["1", "two"]);
 * assert.equal(plan.omitted, 1);
 * ```
 */
export function planHistory(
  history: readonly ChatMessage[],
  meta: Map<string, ToolMeta>,
  limits: HistoryLimits,
): HistoryPlan {
  const items: HistoryItem[] = [];
  let bytes = 0;
  let i = history.length - 1;
  for (; i >= 0; i--) {
    const item = itemOf(history[i]!, meta);
    if (!item) continue;
    if (items.length >= limits.maxItems) break;
    const fitted = bounded(item, limits);
    if (!fitted) break;
    const size = frameBytes(fitted, limits.envelopeBytes);
    if (bytes + size > limits.maxBytes) break;
    bytes += size;
    items.push(fitted);
  }
  let omitted = 0;
  for (; i >= 0; i--) if (itemOf(history[i]!, meta)) omitted++;
  return { items: items.reverse(), omitted };
}
