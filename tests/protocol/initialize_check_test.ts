/**
 * The zod-free `initialize` check accepts exactly what the zod schema accepts.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { checkInitialize } from "../../protocol/initialize_check.ts";
import { InitializeMessage } from "../../protocol/schema.ts";

const anyValue = fc.oneof(
  fc.constant(undefined),
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double(),
  fc.constantFrom(1, 2, 0, -1, 1.5, Number.MAX_SAFE_INTEGER + 2),
  fc.string(),
  fc.constantFrom("", "1", "initialize"),
  fc.array(fc.integer(), { maxLength: 2 }),
  fc.record({
    name: fc.oneof(fc.string(), fc.integer()),
    version: fc.oneof(fc.string(), fc.constant(undefined)),
  }),
);

Deno.test("initialize check agrees with the zod schema on arbitrary messages (fast-check)", () => {
  fc.assert(
    fc.property(
      fc.record({
        type: fc.oneof(fc.constant("initialize"), fc.string()),
        request_id: anyValue,
        protocol_version: anyValue,
        client: anyValue,
        capabilities: fc.oneof(
          anyValue,
          fc.record({ reasoning: anyValue, notices: anyValue, other: anyValue }, {
            requiredKeys: [],
          }),
        ),
        extra: anyValue,
      }, { requiredKeys: ["type"] }),
      (msg) => {
        const fast = checkInitialize(msg as Record<string, unknown>);
        const zod = InitializeMessage.safeParse(msg);
        assert.equal(fast.ok, zod.success, JSON.stringify(msg));
        // Compared as JSON: zod keeps an explicit `client: undefined`, which JSON drops.
        if (fast.ok && zod.success) {
          assert.deepEqual(
            JSON.parse(JSON.stringify(fast.message)),
            JSON.parse(JSON.stringify(zod.data)),
          );
        }
      },
    ),
    { numRuns: 2000 },
  );
});

Deno.test("initialize check names the offending field", () => {
  const r = checkInitialize({ type: "initialize", request_id: "1", protocol_version: "1" });
  assert(!r.ok && r.error.includes("protocol_version"));
});
