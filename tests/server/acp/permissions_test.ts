import { assertEquals } from "../../support/assert.ts";
import { PERMISSION_OPTIONS, permissionDecision } from "../../../server/acp/permissions.ts";

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
