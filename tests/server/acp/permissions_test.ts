import { assert, assertEquals } from "../../support/assert.ts";
import {
  AlwaysAllowed,
  canonicalJson,
  MAX_REMEMBERED_ARGUMENT_BYTES,
  PERMISSION_OPTIONS,
  permissionDecision,
} from "../../../server/acp/permissions.ts";

Deno.test("a permission request offers allow_once, allow_always and reject_once", () => {
  assertEquals(PERMISSION_OPTIONS.map((o) => [o.optionId, o.kind]), [
    ["allow_once", "allow_once"],
    ["allow_always", "allow_always"],
    ["reject_once", "reject_once"],
  ]);
});

Deno.test("each offered option decides as it says; a cancelled outcome is cancelled", () => {
  assertEquals(permissionDecision({ outcome: "selected", optionId: "allow_once" }), "allow_once");
  assertEquals(
    permissionDecision({ outcome: "selected", optionId: "allow_always" }),
    "allow_always",
  );
  assertEquals(permissionDecision({ outcome: "selected", optionId: "reject_once" }), "reject");
  assertEquals(permissionDecision({ outcome: "cancelled" }), "cancelled");
});

Deno.test("an option id scv did not offer rejects the call", () => {
  assertEquals(permissionDecision({ outcome: "selected", optionId: "reject_always" }), "reject");
  assertEquals(permissionDecision({ outcome: "selected", optionId: "" }), "reject");
});

Deno.test("canonical JSON sorts keys at every depth", () => {
  assertEquals(
    canonicalJson({ b: 1, a: { d: [2, { z: 0, y: 1 }], c: null } }),
    canonicalJson({ a: { c: null, d: [2, { y: 1, z: 0 }] }, b: 1 }),
  );
  assertEquals(canonicalJson({ b: 1, a: 2 }), '{"a":2,"b":1}');
});

Deno.test("allow always remembers the exact tool and arguments, key order aside", () => {
  const allowed = new AlwaysAllowed();
  allowed.remember("edit_file", { path: "a", old_string: "x", new_string: "y" });
  assert(allowed.has("edit_file", { new_string: "y", old_string: "x", path: "a" }));
  assert(!allowed.has("edit_file", { path: "a", old_string: "x", new_string: "z" }));
  assert(!allowed.has("write_file", { path: "a", old_string: "x", new_string: "y" }));
});

Deno.test("allow always forgets the oldest call past its bound", () => {
  const allowed = new AlwaysAllowed(2);
  allowed.remember("bash", { command: "1" });
  allowed.remember("bash", { command: "2" });
  allowed.remember("bash", { command: "3" });
  assertEquals(allowed.size, 2);
  assert(!allowed.has("bash", { command: "1" }));
  assert(allowed.has("bash", { command: "2" }) && allowed.has("bash", { command: "3" }));
});

Deno.test("allow always keeps no call whose arguments are over the size bound", () => {
  const allowed = new AlwaysAllowed();
  const command = "x".repeat(MAX_REMEMBERED_ARGUMENT_BYTES);
  assertEquals(allowed.remember("bash", { command }), false);
  assert(!allowed.has("bash", { command }));
  assertEquals(allowed.size, 0);
});

Deno.test("allow always refuses a bound that is not a positive integer", () => {
  let error: unknown;
  try {
    new AlwaysAllowed(0);
  } catch (e) {
    error = e;
  }
  assert(error instanceof RangeError);
});
