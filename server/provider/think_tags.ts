/**
 * Reasoning sent inside the content as `<think>...</think>` (DeepSeek-R1 and QwQ style models on
 * servers without a reasoning parser: Together, older Ollama and vLLM), split from the answer
 * while it streams. Only a `<think>` at the very start of the content counts (leading whitespace
 * aside), so an answer that mentions the tag later is left alone.
 *
 * @module
 */

const OPEN = "<think>";
const CLOSE = "</think>";

/** One piece of content, as reasoning or as text. */
export type ThinkPiece = { kind: "text" | "reasoning"; text: string };

/**
 * Splits streamed content into reasoning and text; holds back at most a tag's length of
 * characters while a tag may be arriving in pieces.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ThinkSplitter } from "./think_tags.ts";
 * const s = new ThinkSplitter();
 * const out = [...s.push("<thi"), ...s.push("nk>plan</th"), ...s.push("ink>\n\nHi"), ...s.end()];
 * assert.deepEqual(out, [{ kind: "reasoning", text: "plan" }, { kind: "text", text: "Hi" }]);
 * ```
 */
export class ThinkSplitter {
  #state: "start" | "in" | "after" | "out" = "start";
  #pending = "";

  /** Takes the next piece of content. */
  push(piece: string): ThinkPiece[] {
    if (this.#state === "out") return piece ? [{ kind: "text", text: piece }] : [];
    this.#pending += piece;
    const out: ThinkPiece[] = [];
    if (this.#state === "start") {
      const head = this.#pending.trimStart();
      if (head.length < OPEN.length && OPEN.startsWith(head)) return out; // maybe a tag
      if (!head.startsWith(OPEN)) return this.#flushText(out);
      this.#state = "in";
      this.#pending = head.slice(OPEN.length);
    }
    if (this.#state === "in") {
      const close = this.#pending.indexOf(CLOSE);
      if (close === -1) {
        // Everything but what could be the start of the closing tag is reasoning already.
        const keep = heldBack(this.#pending);
        const ready = this.#pending.slice(0, this.#pending.length - keep);
        this.#pending = this.#pending.slice(this.#pending.length - keep);
        if (ready) out.push({ kind: "reasoning", text: ready });
        return out;
      }
      const reasoning = this.#pending.slice(0, close);
      if (reasoning) out.push({ kind: "reasoning", text: reasoning });
      this.#pending = this.#pending.slice(close + CLOSE.length);
      this.#state = "after";
    }
    // After the closing tag, the blank lines before the answer are not part of it.
    const rest = this.#pending.replace(/^\s+/, "");
    if (rest === "") return out;
    this.#pending = rest;
    return this.#flushText(out);
  }

  #flushText(out: ThinkPiece[]): ThinkPiece[] {
    this.#state = "out";
    if (this.#pending) out.push({ kind: "text", text: this.#pending });
    this.#pending = "";
    return out;
  }

  /** Ends the content: whatever was held back goes out as what it was part of. */
  end(): ThinkPiece[] {
    const rest = this.#pending;
    this.#pending = "";
    if (!rest) return [];
    if (this.#state === "in") return [{ kind: "reasoning", text: rest }];
    if (this.#state === "after") {
      return rest.trim() ? [{ kind: "text", text: rest.trimStart() }] : [];
    }
    return [{ kind: "text", text: rest }];
  }
}

/** The length of the longest end of `text` that could begin the closing tag. */
function heldBack(text: string): number {
  for (let k = Math.min(text.length, CLOSE.length - 1); k > 0; k--) {
    if (CLOSE.startsWith(text.slice(text.length - k))) return k;
  }
  return 0;
}
