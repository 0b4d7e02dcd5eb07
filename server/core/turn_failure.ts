/**
 * The error that ends a turn with `turn.failed`: thrown anywhere inside the agent loop and
 * turned into the one terminal event by the loop itself.
 *
 * @module
 */
import type { TurnFailureCode } from "../../protocol/constants.ts";

/**
 * A failure that ends the turn with `turn.failed` and this code.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { TurnFailure } from "./turn_failure.ts";
 * const f = new TurnFailure("step_limit", "agent reached 32 steps");
 * assert.equal(f.code, "step_limit");
 * ```
 */
export class TurnFailure extends Error {
  /** The `turn.failed` code. */
  readonly code: TurnFailureCode;
  /** Builds the failure; `message` is what the client sees (bounded on the way out). */
  constructor(code: TurnFailureCode, message: string) {
    super(message);
    this.name = "TurnFailure";
    this.code = code;
  }
}
