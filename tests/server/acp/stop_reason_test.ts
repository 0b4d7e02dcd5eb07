import { assertEquals } from "../../support/assert.ts";
import { promptAnswer, TURN_FAILED_ERROR_CODE } from "../../../server/acp/stop_reason.ts";
import { TURN_FAILURE_CODES } from "../../../protocol/constants.ts";

Deno.test("a completed turn stops with end_turn and a cancelled one with cancelled", () => {
  assertEquals(promptAnswer({ type: "turn.completed" }), { stopReason: "end_turn" });
  assertEquals(promptAnswer({ type: "turn.cancelled" }), { stopReason: "cancelled" });
});

Deno.test("step_limit stops with max_turn_requests", () => {
  assertEquals(promptAnswer({ type: "turn.failed", code: "step_limit", message: "32 steps" }), {
    stopReason: "max_turn_requests",
  });
});

Deno.test("context_limit and response_limit stop with max_tokens", () => {
  for (const code of ["context_limit", "response_limit"] as const) {
    assertEquals(promptAnswer({ type: "turn.failed", code, message: "too big" }), {
      stopReason: "max_tokens",
    });
  }
});

Deno.test("a provider error is a JSON-RPC error carrying the provider's message and the code", () => {
  assertEquals(
    promptAnswer({ type: "turn.failed", code: "provider_error", message: "HTTP 401: bad key" }),
    {
      error: {
        code: TURN_FAILED_ERROR_CODE,
        message: "HTTP 401: bad key",
        data: { reason: "provider_error" },
      },
    },
  );
});

Deno.test("every failure code has an answer: a stop reason or an error", () => {
  for (const code of TURN_FAILURE_CODES) {
    const answer = promptAnswer({ type: "turn.failed", code, message: "m" });
    assertEquals("stopReason" in answer || "error" in answer, true);
    if (code === "internal_error") assertEquals("error" in answer, true);
  }
});
