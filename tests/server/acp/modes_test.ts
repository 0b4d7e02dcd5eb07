import { assert, assertEquals } from "../../support/assert.ts";
import { modeState, policyOfMode } from "../../../server/acp/modes.ts";

Deno.test("the modes are the approval policies, with the configured one current", () => {
  const state = modeState("always");
  assertEquals(state.currentModeId, "always");
  assertEquals(state.availableModes.map((m) => m.id).sort(), [
    "always",
    "auto",
    "never",
    "on-risk",
    "plan",
  ]);
  assert(state.availableModes.every((m) => m.name !== "" && m.description));
});

Deno.test("a mode id names its policy; any other id names none", () => {
  assertEquals(policyOfMode("on-risk"), "on-risk");
  assertEquals(policyOfMode("constructor"), undefined);
  assertEquals(policyOfMode("ON-RISK"), undefined);
});
