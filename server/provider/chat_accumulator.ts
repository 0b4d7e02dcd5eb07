/**
 * Chat Completions stream chunks in, provider events out, with no I/O: the text, reasoning and
 * tool-call assembly of one response under the protocol's caps. It reads the chunk shapes the
 * OpenAI-compatible servers really send, by shape and never by host:
 * - tool calls with `index` (OpenAI), without it (Gemini: a new `id` starts a new call, no `id`
 *   continues the last), and names resent whole on every delta (NVIDIA NIM, some proxies);
 * - reasoning as `reasoning_content` (DeepSeek, vLLM, llama.cpp; kept for tool-call messages,
 *   which DeepSeek requires back), `reasoning` (Ollama, OpenRouter, Groq; not sent back), or
 *   inline as `<think>...</think>` at the start of the content (R1-style models, no parser);
 * - Gemini's `extra_content` thought signatures on tool calls, kept to be sent back;
 * - usage at the top level or under `x_groq.usage` (Groq);
 * - errors mid-stream as `{"error": ...}` or `{"object": "error", "message": ...}` (older vLLM).
 *
 * @module
 */
import { utf8Length } from "../utf8.ts";
import { ResponseCaps } from "./caps.ts";
import { type ThinkPiece, ThinkSplitter } from "./think_tags.ts";
import type { ResponseLimits } from "./limits.ts";
import { closingEvents, reported, toolCalls } from "./response_end.ts";
import { ProviderError, type ProviderEvent, type ProviderUsage } from "./types.ts";

interface CallSlot {
  id: string;
  name: string;
  args: string;
  argBytes: number;
  extra?: Record<string, unknown>;
}

/**
 * Assembles one Chat Completions response. `push` takes each parsed chunk and returns the
 * events it produced; `finish` returns the tool calls and `done`. Both throw
 * {@link ProviderError} when a cap is crossed or the provider reported an error.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ChatAccumulator } from "./chat_accumulator.ts";
 * import { DEFAULT_RESPONSE_LIMITS } from "./limits.ts";
 * const acc = new ChatAccumulator(DEFAULT_RESPONSE_LIMITS);
 * assert.deepEqual(acc.push({ choices: [{ delta: { content: "Hi" } }] }), [{ type: "text", text: "Hi" }]);
 * acc.push({ choices: [{ delta: {}, finish_reason: "stop" }] });
 * assert.deepEqual(acc.finish().at(-1), {
 *   type: "done",
 *   message: { role: "assistant", content: "Hi" },
 *   finishReason: "stop",
 * });
 * ```
 */
export class ChatAccumulator {
  #limits: ResponseLimits;
  #caps: ResponseCaps;
  #text = "";
  #reasoning = "";
  /** Reasoning came as `reasoning_content`: the field DeepSeek wants back. */
  #reasoningContent = false;
  #calls: CallSlot[] = [];
  /** Reasoning inline as `<think>...</think>` at the start of the content. */
  #think = new ThinkSplitter();
  #byIndex = new Map<number, number>();
  #finishReason: string | undefined;

  /** An accumulator for one response under these caps. */
  constructor(limits: ResponseLimits) {
    this.#limits = limits;
    this.#caps = new ResponseCaps(limits);
  }

  /** The finish reason seen so far, if any (a stream without `[DONE]` may still be complete). */
  get finishReason(): string | undefined {
    return this.#finishReason;
  }

  /** Takes one parsed chunk. */
  push(chunk: unknown): ProviderEvent[] {
    if (Array.isArray(chunk)) {
      // Gemini's endpoint reports an error mid-stream as a list of Google error objects.
      if (chunk.some((c) => typeof c === "object" && c !== null && "error" in c)) {
        throw reported(chunk);
      }
      return [];
    }
    if (typeof chunk !== "object" || chunk === null) return [];
    const c = chunk as Record<string, unknown>;
    if (c.error !== undefined && c.error !== null) throw reported(c.error);
    if (c.object === "error") throw reported(c);
    const out: ProviderEvent[] = [];
    const choices = c.choices;
    const choice = Array.isArray(choices) ? choices[0] as Record<string, unknown> : undefined;
    if (choice && typeof choice === "object") {
      if (typeof choice.finish_reason === "string") this.#finishReason = choice.finish_reason;
      const delta = choice.delta as Record<string, unknown> | undefined;
      if (delta && typeof delta === "object") this.#delta(delta, out);
    }
    const usage = usageOf(c.usage) ?? usageOf((c.x_groq as { usage?: unknown })?.usage);
    if (usage) out.push({ type: "usage", usage });
    return out;
  }

  #delta(delta: Record<string, unknown>, out: ProviderEvent[]): void {
    const rc = delta.reasoning_content;
    const viaContent = typeof rc === "string" && rc.length > 0;
    const r = viaContent ? rc : delta.reasoning;
    if (typeof r === "string" && r.length > 0) {
      if (viaContent) this.#reasoningContent = true;
      this.#addReasoning(r, out);
    }
    let content = delta.content;
    if (Array.isArray(content)) content = this.#parts(content, out);
    if (typeof content === "string" && content.length > 0) {
      this.#content(this.#think.push(content), out);
    }
    if (Array.isArray(delta.tool_calls)) {
      for (const tc of delta.tool_calls) {
        if (tc && typeof tc === "object") this.#toolDelta(tc as Record<string, unknown>);
      }
    }
  }

  /** Content after `<think>` splitting: text is the answer, the rest reasoning. */
  #content(pieces: ThinkPiece[], out: ProviderEvent[]): void {
    for (const p of pieces) {
      if (p.kind === "reasoning") {
        this.#addReasoning(p.text, out);
        continue;
      }
      this.#caps.text(p.text);
      this.#text += p.text;
      out.push({ type: "text", text: p.text });
    }
  }

  /**
   * Content sent as a list of parts (Mistral's reasoning models): thinking parts stream as
   * reasoning, text parts are returned as the text.
   */
  #parts(parts: unknown[], out: ProviderEvent[]): string {
    let text = "";
    for (const p of parts) {
      if (typeof p === "string") text += p;
      if (typeof p !== "object" || p === null) continue;
      const part = p as Record<string, unknown>;
      if (part.type === "text" && typeof part.text === "string") text += part.text;
      else if (part.type === "thinking") {
        const t = part.thinking;
        const thought = typeof t === "string"
          ? t
          : Array.isArray(t)
          ? t.map((x) => typeof x?.text === "string" ? x.text : "").join("")
          : "";
        if (thought) this.#addReasoning(thought, out);
      }
    }
    return text;
  }

  #addReasoning(r: string, out: ProviderEvent[]): void {
    this.#caps.reasoning(r);
    this.#reasoning += r;
    out.push({ type: "reasoning", text: r });
  }

  #toolDelta(tc: Record<string, unknown>): void {
    const id = typeof tc.id === "string" ? tc.id : "";
    let slot: number | undefined;
    if (Number.isInteger(tc.index)) {
      slot = this.#byIndex.get(tc.index as number);
      if (slot === undefined) {
        slot = this.#open(id);
        this.#byIndex.set(tc.index as number, slot);
      }
    } else {
      // No index: a new id starts a call, no id (or the same one) continues the last.
      const last = this.#calls.length - 1;
      slot = last >= 0 && (id === "" || id === this.#calls[last]!.id) ? last : this.#open(id);
    }
    const call = this.#calls[slot]!;
    if (id && !call.id) call.id = id;
    const fn = tc.function as Record<string, unknown> | undefined;
    if (fn && typeof fn === "object") {
      const name = fn.name;
      // A name resent whole on every delta is the same name, not more of it.
      if (typeof name === "string" && name !== call.name) call.name += name;
      if (typeof fn.arguments === "string") this.#addArguments(call, fn.arguments);
      else if (typeof fn.arguments === "object" && fn.arguments !== null && call.args === "") {
        // Some servers send the arguments as an object rather than its JSON text.
        this.#addArguments(call, JSON.stringify(fn.arguments));
      }
    }
    const extra = tc.extra_content;
    if (extra && typeof extra === "object" && !Array.isArray(extra)) {
      if (utf8Length(JSON.stringify(extra)) > this.#limits.maxToolArgumentBytes) {
        throw new ProviderError(
          "tool_limit",
          `Tool call extra_content exceeded ${this.#limits.maxToolArgumentBytes} bytes`,
        );
      }
      call.extra = extra as Record<string, unknown>;
    }
  }

  #open(id: string): number {
    this.#caps.call();
    this.#calls.push({ id, name: "", args: "", argBytes: 0 });
    return this.#calls.length - 1;
  }

  #addArguments(call: CallSlot, piece: string): void {
    call.argBytes += utf8Length(piece);
    this.#caps.arguments(call.argBytes);
    call.args += piece;
  }

  /** Ends the response: every tool call, in order, then `done`. */
  finish(): ProviderEvent[] {
    const out: ProviderEvent[] = [];
    this.#content(this.#think.end(), out);
    const calls = toolCalls(this.#calls, "call", false);
    this.#calls.forEach((c, i) => {
      if (c.extra) calls[i]!.extra_content = c.extra;
    });
    // DeepSeek refuses a follow-up whose tool-call message lacks the reasoning it came with.
    const carried = this.#reasoningContent ? { reasoning_content: this.#reasoning } : undefined;
    out.push(...closingEvents(calls, this.#text, this.#finishReason, carried));
    return out;
  }
}

/** Token counts from a usage object, or undefined when it reports none. */
export function usageOf(value: unknown): ProviderUsage | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const u = value as Record<string, unknown>;
  const out: ProviderUsage = {};
  if (isCount(u.prompt_tokens)) out.prompt_tokens = u.prompt_tokens;
  if (isCount(u.completion_tokens)) out.completion_tokens = u.completion_tokens;
  // OpenAI's details; DeepSeek reports its cache hits at the top level instead.
  const cached = detail(u.prompt_tokens_details, "cached_tokens") ??
    (isCount(u.prompt_cache_hit_tokens) ? u.prompt_cache_hit_tokens : undefined);
  if (cached !== undefined) out.cached_prompt_tokens = cached;
  const reasoning = detail(u.completion_tokens_details, "reasoning_tokens");
  if (reasoning !== undefined) out.reasoning_tokens = reasoning;
  return out.prompt_tokens !== undefined || out.completion_tokens !== undefined ? out : undefined;
}

/** One count of a `*_tokens_details` object, when it reports it. */
export function detail(details: unknown, key: string): number | undefined {
  if (typeof details !== "object" || details === null) return undefined;
  const v = (details as Record<string, unknown>)[key];
  return isCount(v) ? v : undefined;
}

/** A token count as a provider may report it: a non-negative safe integer. */
export function isCount(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}
