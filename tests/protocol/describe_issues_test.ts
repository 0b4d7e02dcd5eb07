/** describeIssues: one line naming what is wrong, for protocol frames and for tool arguments. */
import assert from "node:assert/strict";
import * as z from "zod";
import { describeIssues, TurnStartMessage } from "../../protocol/schema.ts";

const args = z.object({ path: z.string(), limit: z.number().optional() });

function issuesOf(schema: z.ZodType, value: unknown): z.ZodError {
  const r = schema.safeParse(value);
  assert.ok(!r.success);
  return r.error;
}

Deno.test('describeIssues names a protocol frame\'s root "message", as before', () => {
  assert.equal(
    describeIssues(issuesOf(TurnStartMessage, [])),
    `"message": Invalid input: expected object, received array`,
  );
});

Deno.test("describeIssues names the first offending field by its path", () => {
  const e = issuesOf(TurnStartMessage, { type: "turn.start", request_id: "1" });
  assert.match(describeIssues(e), /^"session_id": /);
  assert.match(describeIssues(issuesOf(args, { path: 1 }), "arguments"), /^"path": /);
});

Deno.test("describeIssues with a root name says tool arguments must be a JSON object", () => {
  const cases: Array<[unknown, string]> = [
    [[], "an array"],
    [null, "null"],
    ["x", "a string"],
    [3, "a number"],
    [true, "a boolean"],
  ];
  for (const [value, got] of cases) {
    assert.equal(
      describeIssues(issuesOf(args, value), "arguments"),
      `the arguments must be a JSON object, got ${got}`,
    );
  }
});

Deno.test("describeIssues with a root name labels other root-level issues with it", () => {
  const strict = z.strictObject({ path: z.string() });
  assert.equal(
    describeIssues(issuesOf(strict, { path: "a", extra: 1 }), "arguments"),
    `"arguments": Unrecognized key: "extra"`,
  );
});
