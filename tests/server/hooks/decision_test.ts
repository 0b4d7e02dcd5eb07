/** A tool call's decision from the rules, the policy and the PreToolUse hooks, exhaustively. */
import { assertEquals } from "../../support/assert.ts";
import { decideCall } from "../../../server/hooks/decision.ts";

const DECISIONS = [undefined, "allow", "ask", "deny"] as const;

Deno.test("a hook's allow never overrides a rule's deny, and a hook's deny refuses under never", () => {
  for (const rule of DECISIONS) {
    for (const hook of DECISIONS) {
      for (const policyAsks of [false, true]) {
        for (const never of [false, true]) {
          const got = decideCall({ rule, hook, policyAsks: never ? false : policyAsks, never });
          if (rule === "deny" || hook === "deny") assertEquals(got, "deny");
          else if (hook === "ask") assertEquals(got, "ask");
          else if (rule === "ask") assertEquals(got, never ? "allow" : "ask");
          else if (hook === "allow" || rule === "allow") assertEquals(got, "allow");
          else assertEquals(got, !never && policyAsks ? "ask" : "allow");
        }
      }
    }
  }
});
