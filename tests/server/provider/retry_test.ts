/** Unit tests of the retry policy: which statuses retry and how long each wait is. */
import { assertEquals } from "../../support/assert.ts";
import {
  DEFAULT_RETRY_POLICY,
  isRetryableStatus,
  retryDelayMs,
} from "../../../server/provider/retry.ts";

Deno.test("429, every 5xx and Anthropic's 529 are retryable; 4xx others are not", () => {
  assertEquals([429, 500, 502, 503, 529, 599].map(isRetryableStatus), Array(6).fill(true));
  assertEquals([400, 401, 403, 404, 422, 600].map(isRetryableStatus), Array(6).fill(false));
});

Deno.test("Retry-After in seconds is honoured and capped at the policy's longest wait", () => {
  assertEquals(retryDelayMs(new Headers({ "retry-after": "3" }), 1, DEFAULT_RETRY_POLICY), 3000);
  assertEquals(
    retryDelayMs(new Headers({ "retry-after": "3600" }), 1, DEFAULT_RETRY_POLICY),
    DEFAULT_RETRY_POLICY.maxWaitMs,
  );
});

Deno.test("Retry-After as an HTTP date waits until that date", () => {
  const now = Date.parse("2026-01-01T00:00:00Z");
  const h = new Headers({ "retry-after": "Thu, 01 Jan 2026 00:00:05 GMT" });
  assertEquals(retryDelayMs(h, 1, DEFAULT_RETRY_POLICY, now), 5000);
});

Deno.test("retry-after-ms takes precedence over Retry-After", () => {
  const h = new Headers({ "retry-after-ms": "250", "retry-after": "10" });
  assertEquals(retryDelayMs(h, 1, DEFAULT_RETRY_POLICY), 250);
});

Deno.test("without a header the backoff doubles per attempt within a 25% jitter", () => {
  const policy = { maxAttempts: 5, baseMs: 100, maxWaitMs: 10_000 };
  const none = new Headers();
  assertEquals(retryDelayMs(none, 1, policy, 0, () => 0.5), 100);
  assertEquals(retryDelayMs(none, 3, policy, 0, () => 0.5), 400);
  assertEquals(retryDelayMs(none, 3, policy, 0, () => 0), 300);
  assertEquals(retryDelayMs(none, 3, policy, 0, () => 1), 500);
});

Deno.test("a malformed Retry-After falls back to backoff", () => {
  const policy = { maxAttempts: 3, baseMs: 100, maxWaitMs: 10_000 };
  assertEquals(retryDelayMs(new Headers({ "retry-after": "soon" }), 1, policy, 0, () => 0.5), 100);
  assertEquals(retryDelayMs(new Headers({ "retry-after": "" }), 1, policy, 0, () => 0.5), 100);
});
