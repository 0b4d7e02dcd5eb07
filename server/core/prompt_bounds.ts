/**
 * The bounds every prompt obeys, whether it starts a turn, waits in the queue or steers the
 * running turn: not blank, and at most `max_prompt_bytes` of UTF-8.
 *
 * @module
 */
import { utf8Length } from "../utf8.ts";

/**
 * Why a prompt cannot be sent (the message of an `invalid_request`), or undefined when it can.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { promptRefusal } from "./prompt_bounds.ts";
 * assert.equal(promptRefusal("  ", 10), "prompt is empty");
 * assert.equal(promptRefusal("hello", 10), undefined);
 * assert.equal(promptRefusal("hello", 4), "prompt of 5 bytes exceeds max_prompt_bytes (4)");
 * ```
 */
export function promptRefusal(prompt: string, maxPromptBytes: number): string | undefined {
  if (prompt.trim() === "") return "prompt is empty";
  const size = utf8Length(prompt);
  if (size > maxPromptBytes) {
    return `prompt of ${size} bytes exceeds max_prompt_bytes (${maxPromptBytes})`;
  }
  return undefined;
}
