/**
 * The protocol's per-response caps as one counter every provider's accumulator shares, so each
 * wire API fails the same way with the same codes: text and reasoning over 1 MiB →
 * `response_limit`; arguments over 256 KiB or more than 32 calls → `tool_limit`.
 *
 * @module
 */
import { utf8Length } from "../utf8.ts";
import type { ResponseLimits } from "./limits.ts";
import { ProviderError } from "./types.ts";

/**
 * Counts one response against its caps; each method throws {@link ProviderError} at the first
 * byte over.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ResponseCaps } from "./caps.ts";
 * import { DEFAULT_RESPONSE_LIMITS } from "./limits.ts";
 * const caps = new ResponseCaps({ ...DEFAULT_RESPONSE_LIMITS, maxTextBytes: 3 });
 * caps.text("abc");
 * assert.throws(() => caps.text("d"), /Assistant text exceeded 3 bytes/);
 * ```
 */
export class ResponseCaps {
  #limits: ResponseLimits;
  #text = 0;
  #reasoning = 0;
  #calls = 0;

  /** Counters for one response under `limits`. */
  constructor(limits: ResponseLimits) {
    this.#limits = limits;
  }

  /** Counts assistant text. */
  text(piece: string): void {
    this.#text += utf8Length(piece);
    if (this.#text > this.#limits.maxTextBytes) {
      throw new ProviderError(
        "response_limit",
        `Assistant text exceeded ${this.#limits.maxTextBytes} bytes`,
      );
    }
  }

  /** Counts reasoning text (its own budget: it is not assistant text). */
  reasoning(piece: string): void {
    this.#reasoning += utf8Length(piece);
    if (this.#reasoning > this.#limits.maxTextBytes) {
      throw new ProviderError(
        "response_limit",
        `Reasoning text exceeded ${this.#limits.maxTextBytes} bytes`,
      );
    }
  }

  /** Counts one more tool call. */
  call(): void {
    if (++this.#calls > this.#limits.maxToolCalls) {
      throw new ProviderError(
        "tool_limit",
        `Provider requested more than ${this.#limits.maxToolCalls} tool calls in one response`,
      );
    }
  }

  /** Checks one call's arguments, `bytes` long so far. */
  arguments(bytes: number): void {
    if (bytes > this.#limits.maxToolArgumentBytes) {
      throw new ProviderError(
        "tool_limit",
        `Tool call arguments exceeded ${this.#limits.maxToolArgumentBytes} bytes`,
      );
    }
  }
}
