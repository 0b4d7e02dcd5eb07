/**
 * OpenAI Responses stream events in, provider events out, with no I/O. Event shapes from
 * https://platform.openai.com/docs/api-reference/responses-streaming: `response.output_item.added`
 * and `.done`, `response.output_text.delta`, `response.function_call_arguments.delta` and
 * `.done`, reasoning as `response.reasoning_summary_text.delta` or `response.reasoning_text.delta`,
 * and the end as `response.completed`, `response.incomplete`, `response.failed` or `error`.
 *
 * @module
 */
import { utf8Length } from "../utf8.ts";
import { ResponseCaps } from "./caps.ts";
import type { ResponseLimits } from "./limits.ts";
import { closingEvents, reported, toolCalls } from "./response_end.ts";
import { detail } from "./chat_accumulator.ts";
import { ProviderError, type ProviderEvent, type ProviderUsage } from "./types.ts";

interface Call {
  key: string;
  callId: string;
  name: string;
  args: string;
  argBytes: number;
}

/**
 * Assembles one Responses stream. `push` takes each event's parsed data (its `type` names it);
 * `finish` returns the calls and `done` once `complete`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ResponsesAccumulator } from "./responses_accumulator.ts";
 * import { DEFAULT_RESPONSE_LIMITS } from "./limits.ts";
 * const acc = new ResponsesAccumulator(DEFAULT_RESPONSE_LIMITS);
 * assert.deepEqual(acc.push({ type: "response.output_text.delta", delta: "Hi" }), [{ type: "text", text: "Hi" }]);
 * acc.push({ type: "response.completed", response: { status: "completed" } });
 * assert(acc.complete);
 * ```
 */
export class ResponsesAccumulator {
  #caps: ResponseCaps;
  #text = "";
  #calls: Call[] = [];
  #reasoning: Array<Record<string, unknown>> = [];
  #reasoningBytes = 0;
  #limits: ResponseLimits;
  #finish: string | undefined;
  #complete = false;

  /** An accumulator for one response under these caps. */
  constructor(limits: ResponseLimits) {
    this.#limits = limits;
    this.#caps = new ResponseCaps(limits);
  }

  /** Whether a terminal event (`response.completed` or `.incomplete`) arrived. */
  get complete(): boolean {
    return this.#complete;
  }

  /** Takes one event's parsed data. */
  push(ev: unknown): ProviderEvent[] {
    if (typeof ev !== "object" || ev === null) return [];
    const e = ev as Record<string, unknown>;
    switch (e.type) {
      case "response.output_text.delta":
        return this.#textDelta(e.delta);
      case "response.reasoning_summary_text.delta":
      case "response.reasoning_text.delta": {
        const d = e.delta;
        if (typeof d !== "string" || d === "") return [];
        this.#caps.reasoning(d);
        return [{ type: "reasoning", text: d }];
      }
      case "response.output_item.added":
      case "response.output_item.done":
        this.#item(
          e.item as Record<string, unknown> | undefined,
          e.type.endsWith("done"),
          e.output_index,
        );
        return [];
      case "response.function_call_arguments.delta": {
        const call = this.#find(e.item_id, e.output_index);
        if (call && typeof e.delta === "string") this.#setArgs(call, call.args + e.delta);
        return [];
      }
      case "response.function_call_arguments.done": {
        const call = this.#find(e.item_id, e.output_index);
        if (call && typeof e.arguments === "string") this.#setArgs(call, e.arguments);
        return [];
      }
      case "response.completed":
      case "response.incomplete": {
        const r = (e.response ?? {}) as Record<string, unknown>;
        this.#complete = true;
        const reason = (r.incomplete_details as Record<string, unknown> | undefined)?.reason;
        this.#finish = e.type === "response.incomplete"
          ? `incomplete${typeof reason === "string" ? `: ${reason}` : ""}`
          : "completed";
        const usage = usageOf(r.usage);
        return usage ? [{ type: "usage", usage }] : [];
      }
      case "response.failed": {
        const r = (e.response ?? {}) as Record<string, unknown>;
        throw reported(r.error ?? r);
      }
      case "error":
        throw reported(e.error ?? e);
      default:
        return [];
    }
  }

  #textDelta(d: unknown): ProviderEvent[] {
    if (typeof d !== "string" || d === "") return [];
    this.#caps.text(d);
    this.#text += d;
    return [{ type: "text", text: d }];
  }

  #find(itemId: unknown, outputIndex: unknown): Call | undefined {
    const key = keyOf(itemId, outputIndex);
    return this.#calls.find((c) => c.key === key) ??
      this.#calls.find((c) => c.key === keyOf(undefined, outputIndex)) ??
      this.#calls.at(-1);
  }

  #setArgs(call: Call, args: string): void {
    call.argBytes = utf8Length(args);
    this.#caps.arguments(call.argBytes);
    call.args = args;
  }

  #item(item: Record<string, unknown> | undefined, done: boolean, outputIndex: unknown): void {
    if (!item) return;
    if (item.type === "function_call") {
      const key = keyOf(item.id, outputIndex);
      let call = this.#calls.find((c) => c.key === key || (c.callId && c.callId === item.call_id));
      if (!call) {
        this.#caps.call();
        call = { key, callId: "", name: "", args: "", argBytes: 0 };
        this.#calls.push(call);
      }
      if (typeof item.call_id === "string" && item.call_id) call.callId = item.call_id;
      if (typeof item.name === "string" && item.name) call.name = item.name;
      if (typeof item.arguments === "string" && (done || item.arguments)) {
        this.#setArgs(call, item.arguments);
      }
    } else if (item.type === "reasoning" && done) {
      // Kept whole (encrypted_content included) to go back on the next request.
      const bytes = utf8Length(JSON.stringify(item));
      this.#reasoningBytes += bytes;
      if (this.#reasoningBytes > this.#limits.maxTextBytes) {
        throw new ProviderError(
          "response_limit",
          `Reasoning items exceeded ${this.#limits.maxTextBytes} bytes`,
        );
      }
      this.#reasoning.push(item);
    }
  }

  /** Ends the response: every call, in order, then `done`. */
  finish(): ProviderEvent[] {
    const calls = toolCalls(this.#calls.map((c) => ({ ...c, id: c.callId })), "call", true);
    // Reasoning items must precede the calls they led to on the next request.
    const carried = this.#reasoning.length > 0
      ? { provider_data: { responses_reasoning: this.#reasoning } }
      : undefined;
    return closingEvents(calls, this.#text, this.#finish, carried);
  }
}

function keyOf(itemId: unknown, outputIndex: unknown): string {
  return typeof itemId === "string" && itemId ? `id:${itemId}` : `ix:${String(outputIndex)}`;
}

function usageOf(value: unknown): ProviderUsage | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const u = value as Record<string, unknown>;
  const out: ProviderUsage = {};
  const ok = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;
  if (ok(u.input_tokens)) out.prompt_tokens = u.input_tokens;
  if (ok(u.output_tokens)) out.completion_tokens = u.output_tokens;
  const cached = detail(u.input_tokens_details, "cached_tokens");
  if (cached !== undefined) out.cached_prompt_tokens = cached;
  const reasoning = detail(u.output_tokens_details, "reasoning_tokens");
  if (reasoning !== undefined) out.reasoning_tokens = reasoning;
  return out.prompt_tokens !== undefined || out.completion_tokens !== undefined ? out : undefined;
}
