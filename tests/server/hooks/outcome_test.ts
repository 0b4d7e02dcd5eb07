/** What a hook's exit code, stderr and stdout mean for each event, and several hooks together. */
import { assertEquals } from "../../support/assert.ts";
import { combineOutcomes, type HookExit, readHookExit } from "../../../server/hooks/outcome.ts";

const exited = (code: number, stdout = "", stderr = ""): HookExit => ({
  kind: "exited",
  code,
  stdout,
  stderr,
});
const json = (v: unknown) => exited(0, JSON.stringify(v));

Deno.test("exit 2 blocks PreToolUse, PostToolUse and Stop with the stderr for the model", () => {
  for (const event of ["PreToolUse", "PostToolUse", "Stop"] as const) {
    assertEquals(readHookExit(event, exited(2, "", "use rg\n"), "h"), { block: "use rg" });
  }
});

Deno.test("exit 2 of UserPromptSubmit blocks the prompt and tells the user", () => {
  assertEquals(readHookExit("UserPromptSubmit", exited(2, "", "no"), '"h"'), {
    block: "no",
    notices: ['The prompt was blocked by hook "h": no'],
  });
});

Deno.test("exit 2 of SessionStart or SessionEnd blocks nothing and is a notice", () => {
  assertEquals(readHookExit("SessionStart", exited(2, "", "bad"), "h"), {
    notices: ["Hook h: bad"],
  });
});

Deno.test("another non-zero exit is a notice with the stderr and blocks nothing", () => {
  assertEquals(readHookExit("PreToolUse", exited(1, "", "jq: not found"), "h"), {
    notices: ["Hook h failed (exit 1): jq: not found"],
  });
});

Deno.test("a timeout and a hook that cannot start are notices", () => {
  assertEquals(readHookExit("Stop", { kind: "timeout", seconds: 3, stderr: "" }, "h"), {
    notices: ["Hook h timed out after 3 s and was killed"],
  });
  assertEquals(readHookExit("Stop", { kind: "failed", message: "no bash" }, "h"), {
    notices: ["Hook h could not run: no bash"],
  });
});

Deno.test("plain stdout is context for UserPromptSubmit and SessionStart only", () => {
  assertEquals(readHookExit("UserPromptSubmit", exited(0, "ctx\n"), "h"), { context: "ctx" });
  assertEquals(readHookExit("SessionStart", exited(0, "ctx"), "h"), { context: "ctx" });
  assertEquals(readHookExit("PreToolUse", exited(0, "ctx"), "h"), {});
  assertEquals(readHookExit("Stop", exited(0, "ctx"), "h"), {});
});

Deno.test("permissionDecision and its reason are read for PreToolUse", () => {
  const out = json({
    hookSpecificOutput: {
      hookEventName: "PreToolUse",
      permissionDecision: "deny",
      permissionDecisionReason: "not here",
    },
  });
  assertEquals(readHookExit("PreToolUse", out, "h"), {
    permission: "deny",
    permissionReason: "not here",
  });
});

Deno.test('the older decision "approve" and "block" are allow and deny for PreToolUse', () => {
  assertEquals(readHookExit("PreToolUse", json({ decision: "approve", reason: "ok" }), "h"), {
    permission: "allow",
    permissionReason: "ok",
  });
  assertEquals(readHookExit("PreToolUse", json({ decision: "block" }), "h"), {
    permission: "deny",
  });
});

Deno.test('decision "block" with a reason blocks PostToolUse, Stop and UserPromptSubmit', () => {
  assertEquals(readHookExit("Stop", json({ decision: "block", reason: "tests" }), "h"), {
    block: "tests",
  });
  assertEquals(readHookExit("PostToolUse", json({ decision: "block", reason: "lint" }), "h"), {
    block: "lint",
  });
  assertEquals(
    readHookExit("UserPromptSubmit", json({ decision: "block", reason: "no" }), "h").block,
    "no",
  );
});

Deno.test("additionalContext is read for the events that add context", () => {
  const out = json({ hookSpecificOutput: { additionalContext: "more" } });
  assertEquals(readHookExit("PostToolUse", out, "h"), { context: "more" });
  assertEquals(readHookExit("UserPromptSubmit", out, "h"), { context: "more" });
  assertEquals(readHookExit("SessionStart", out, "h"), { context: "more" });
});

Deno.test("continue: false stops with stopReason, and systemMessage is a notice", () => {
  assertEquals(
    readHookExit(
      "PostToolUse",
      json({ continue: false, stopReason: "halt", systemMessage: "hi" }),
      "h",
    ),
    { stop: { reason: "halt" }, notices: ["hi"] },
  );
});

Deno.test("stdout that is not a JSON object is not read as JSON", () => {
  assertEquals(readHookExit("PreToolUse", exited(0, '["deny"]'), "h"), {});
  assertEquals(readHookExit("PreToolUse", exited(0, '{"permissionDecision": '), "h"), {});
});

Deno.test("combined outcomes: the strictest decision wins, blocks and contexts add up", () => {
  assertEquals(
    combineOutcomes([
      { permission: "allow", context: "a" },
      { permission: "ask", permissionReason: "check" },
      { block: "x", context: "b", notices: ["n1"] },
      { block: "y", stop: { reason: "s" }, notices: ["n2"] },
    ]),
    {
      permission: "ask",
      permissionReason: "check",
      context: "a\nb",
      block: "x\ny",
      stop: { reason: "s" },
      notices: ["n1", "n2"],
    },
  );
});
