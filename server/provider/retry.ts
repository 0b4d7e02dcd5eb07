/**
 * When to retry a provider request and how long to wait: pure functions of the answer's status
 * and headers, so the policy is tested without a clock or a server.
 *
 * @module
 */

/** Retry settings; every time is in milliseconds. */
export interface RetryPolicy {
  /** Attempts in all (the first included). */
  maxAttempts: number;
  /** First backoff delay when the answer names none; doubles per attempt. */
  baseMs: number;
  /** Longest wait honoured from a header, and the backoff's ceiling. */
  maxWaitMs: number;
}

/** The contract's policy: 3 attempts, 500 ms doubling, at most 60 s. */
export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = Object.freeze({
  maxAttempts: 3,
  baseMs: 500,
  maxWaitMs: 60_000,
});

/**
 * Whether an HTTP status answered before any body byte is worth another attempt: 429 (rate
 * limited) and every 5xx, Anthropic's 529 "overloaded" included. 400 and 401 never are.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isRetryableStatus } from "./retry.ts";
 * assert.deepEqual([429, 500, 529, 400, 401].map(isRetryableStatus), [true, true, true, false, false]);
 * ```
 */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || (status >= 500 && status <= 599);
}

/**
 * The wait before attempt `attempt + 1`: `retry-after-ms` (OpenAI), else `Retry-After` as seconds
 * or an HTTP date, else jittered exponential backoff; never over `maxWaitMs`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DEFAULT_RETRY_POLICY, retryDelayMs } from "./retry.ts";
 * const h = new Headers({ "retry-after": "2" });
 * assert.equal(retryDelayMs(h, 1, DEFAULT_RETRY_POLICY), 2000);
 * assert.equal(retryDelayMs(new Headers({ "retry-after": "9999" }), 1, DEFAULT_RETRY_POLICY), 60_000);
 * ```
 */
export function retryDelayMs(
  headers: Headers,
  attempt: number,
  policy: RetryPolicy,
  now: number = Date.now(),
  random: () => number = Math.random,
): number {
  const max = policy.maxWaitMs;
  const ms = Number(headers.get("retry-after-ms") ?? NaN);
  if (Number.isFinite(ms) && ms >= 0) return Math.min(ms, max);
  const header = headers.get("retry-after");
  if (header !== null) {
    const secs = Number(header);
    if (header.trim() !== "" && Number.isFinite(secs) && secs >= 0) {
      return Math.min(secs * 1000, max);
    }
    const date = Date.parse(header);
    if (!Number.isNaN(date)) return Math.min(Math.max(0, date - now), max);
  }
  return Math.min(policy.baseMs * 2 ** (attempt - 1) * (0.75 + random() * 0.5), max);
}
