/**
 * Drives a stream accumulator over a list of parsed events, for the accumulator unit tests.
 *
 * @module
 */
import { assert } from "../../support/assert.ts";
import { DEFAULT_RESPONSE_LIMITS, type ResponseLimits } from "../../../server/provider/limits.ts";
import type { TypedAccumulator } from "../../../server/provider/typed_stream.ts";
import { ProviderError, type ProviderEvent } from "../../../server/provider/types.ts";

/** `run` (every event pushed, then `finish`) and `fails` (the error that run throws). */
export function accumulatorRunner(make: (limits: ResponseLimits) => TypedAccumulator) {
  function run(events: unknown[], limits: ResponseLimits = DEFAULT_RESPONSE_LIMITS) {
    const acc = make(limits);
    const out: ProviderEvent[] = [];
    for (const e of events) out.push(...acc.push(e));
    out.push(...acc.finish());
    return { out, complete: acc.complete };
  }
  function fails(
    events: unknown[],
    limits: ResponseLimits = DEFAULT_RESPONSE_LIMITS,
  ): ProviderError {
    try {
      run(events, limits);
    } catch (e) {
      assert(e instanceof ProviderError);
      return e;
    }
    throw new Error("expected a failure");
  }
  return { run, fails };
}
