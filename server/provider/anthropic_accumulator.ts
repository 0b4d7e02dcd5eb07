/**
 * Anthropic Messages stream events in, provider events out, with no I/O. The event shapes are
 * those of https://docs.anthropic.com/en/docs/build-with-claude/streaming: `message_start`
 * (input usage), `content_block_start`/`_delta`/`_stop` with `text_delta`, `input_json_delta`,
 * `thinking_delta` and `signature_delta`, `message_delta` (stop reason, cumulative output
 * usage), `message_stop`, `ping`, and `error` mid-stream.
 *
 * @module
 */
import { utf8Length } from "../utf8.ts";
import { ResponseCaps } from "./caps.ts";
import { errorMessageOf } from "./error_body.ts";
import type { ResponseLimits } from "./limits.ts";
import { type AssembledCall, closingEvents, MAX_DETAIL_CHARS, toolCalls } from "./response_end.ts";
import { ProviderError, type ProviderEvent, type ProviderUsage } from "./types.ts";

type Block =
  | { kind: "text" }
  | { kind: "tool"; id: string; name: string; args: string; argBytes: number }
  | { kind: "thinking"; thinking: string; signature: string }
  | { kind: "redacted"; data: string }
  | { kind: "other" };

/**
 * Assembles one Messages response. `push(type, data)` takes each SSE event (its name and parsed
 * data) and returns the events it produced; `finish` returns the tool calls and `done`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { AnthropicAccumulator } from "./anthropic_accumulator.ts";
 * import { DEFAULT_RESPONSE_LIMITS } from "./limits.ts";
 * const acc = new AnthropicAccumulator(DEFAULT_RESPONSE_LIMITS);
 * acc.push({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } });
 * const out = acc.push({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Hi" } });
 * assert.deepEqual(out, [{ type: "text", text: "Hi" }]);
 * acc.push({ type: "message_stop" });
 * assert(acc.complete);
 * ```
 */
export class AnthropicAccumulator {
  #caps: ResponseCaps;
  #text = "";
  #blocks = new Map<number, Block>();
  #order: number[] = [];
  #usage: ProviderUsage = {};
  #stopReason: string | undefined;
  #stopped = false;

  /** An accumulator for one response under these caps. */
  constructor(limits: ResponseLimits) {
    this.#caps = new ResponseCaps(limits);
  }

  /** Whether `message_stop` arrived: the response is whole. */
  get complete(): boolean {
    return this.#stopped;
  }

  /** Takes one event's parsed data (its `type` names the event). */
  push(ev: unknown): ProviderEvent[] {
    if (typeof ev !== "object" || ev === null) return [];
    const e = ev as Record<string, unknown>;
    switch (e.type) {
      case "message_start": {
        const usage = (e.message as Record<string, unknown> | undefined)?.usage;
        return this.#addUsage(usage);
      }
      case "content_block_start":
        return this.#start(e.index, e.content_block as Record<string, unknown> | undefined);
      case "content_block_delta":
        return this.#delta(e.index, e.delta as Record<string, unknown> | undefined);
      case "message_delta": {
        const stop = (e.delta as Record<string, unknown> | undefined)?.stop_reason;
        if (typeof stop === "string") this.#stopReason = stop;
        return this.#addUsage(e.usage);
      }
      case "message_stop":
        this.#stopped = true;
        return [];
      case "error":
        throw new ProviderError("provider_error", {
          before: "Provider reported an error: ",
          text: errorMessageOf(e.error) ?? JSON.stringify(e.error ?? e),
          max: MAX_DETAIL_CHARS,
        });
      default:
        // ping, content_block_stop and event types added later carry nothing to keep.
        return [];
    }
  }

  #addUsage(value: unknown): ProviderEvent[] {
    if (typeof value !== "object" || value === null) return [];
    const u = value as Record<string, unknown>;
    const count = (k: string) => Number.isSafeInteger(u[k]) && (u[k] as number) >= 0;
    let changed = false;
    if (count("input_tokens")) {
      // Cached prompt tokens are prompt tokens too: they fill the context window the same.
      let input = u.input_tokens as number;
      for (const k of ["cache_creation_input_tokens", "cache_read_input_tokens"]) {
        if (count(k)) input += u[k] as number;
      }
      this.#usage.prompt_tokens = input;
      if (count("cache_read_input_tokens")) {
        this.#usage.cached_prompt_tokens = u.cache_read_input_tokens as number;
      }
      if (count("cache_creation_input_tokens")) {
        this.#usage.cache_write_tokens = u.cache_creation_input_tokens as number;
      }
      changed = true;
    }
    if (count("output_tokens")) {
      this.#usage.completion_tokens = u.output_tokens as number;
      changed = true;
    }
    return changed ? [{ type: "usage", usage: { ...this.#usage } }] : [];
  }

  #start(index: unknown, block: Record<string, unknown> | undefined): ProviderEvent[] {
    if (!Number.isSafeInteger(index) || !block) return [];
    const i = index as number;
    if (!this.#blocks.has(i)) this.#order.push(i);
    const out: ProviderEvent[] = [];
    let b: Block;
    if (block.type === "text") {
      b = { kind: "text" };
      if (typeof block.text === "string" && block.text) out.push(this.#addText(block.text));
    } else if (block.type === "tool_use") {
      this.#caps.call();
      b = {
        kind: "tool",
        id: typeof block.id === "string" ? block.id : "",
        name: typeof block.name === "string" ? block.name : "",
        args: "",
        argBytes: 0,
      };
    } else if (block.type === "thinking") {
      b = {
        kind: "thinking",
        thinking: typeof block.thinking === "string" ? block.thinking : "",
        signature: typeof block.signature === "string" ? block.signature : "",
      };
    } else if (block.type === "redacted_thinking") {
      const data = typeof block.data === "string" ? block.data : "";
      this.#caps.reasoning(data);
      b = { kind: "redacted", data };
    } else b = { kind: "other" };
    this.#blocks.set(i, b);
    return out;
  }

  #addText(text: string): ProviderEvent {
    this.#caps.text(text);
    this.#text += text;
    return { type: "text", text };
  }

  #delta(index: unknown, delta: Record<string, unknown> | undefined): ProviderEvent[] {
    const out: ProviderEvent[] = [];
    const b = this.#blocks.get(index as number);
    if (!b || !delta) return out;
    if (delta.type === "text_delta" && typeof delta.text === "string" && delta.text) {
      out.push(this.#addText(delta.text));
    } else if (delta.type === "input_json_delta" && b.kind === "tool") {
      const piece = typeof delta.partial_json === "string" ? delta.partial_json : "";
      b.argBytes += utf8Length(piece);
      this.#caps.arguments(b.argBytes);
      b.args += piece;
    } else if (delta.type === "thinking_delta" && b.kind === "thinking") {
      const piece = typeof delta.thinking === "string" ? delta.thinking : "";
      if (piece) {
        this.#caps.reasoning(piece);
        b.thinking += piece;
        out.push({ type: "reasoning", text: piece });
      }
    } else if (delta.type === "signature_delta" && b.kind === "thinking") {
      const piece = typeof delta.signature === "string" ? delta.signature : "";
      this.#caps.reasoning(piece);
      b.signature += piece;
    }
    return out;
  }

  /** Ends the response: every tool call, in block order, then `done`. */
  finish(): ProviderEvent[] {
    const tools: AssembledCall[] = [];
    const thinking: Array<Record<string, unknown>> = [];
    for (const i of this.#order) {
      const b = this.#blocks.get(i)!;
      if (b.kind === "tool") {
        tools.push(b);
      } else if (b.kind === "thinking") {
        thinking.push({ type: "thinking", thinking: b.thinking, signature: b.signature });
      } else if (b.kind === "redacted") {
        thinking.push({ type: "redacted_thinking", data: b.data });
      }
    }
    const calls = toolCalls(tools, "toolu", true);
    // The API requires the signed thinking of a tool-use turn back with its results.
    const carried = thinking.length > 0
      ? { provider_data: { anthropic_thinking: thinking } }
      : undefined;
    return closingEvents(calls, this.#text, this.#stopReason, carried);
  }
}
