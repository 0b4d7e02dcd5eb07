/**
 * A tool call's decision from its three voices: the approval rules (when one matched), the
 * approval policy, and the `PreToolUse` hooks. Pure, so the rules' own decision function can be
 * plugged in without touching it.
 *
 * - `deny` from a rule or a hook refuses the call, under every policy (`never` included);
 * - else `ask` from a hook asks under every policy, and a rule's `ask` under every policy but
 *   `never` (CONTRACT.md: under `never`, `ask` rules run);
 * - else a hook's `allow` runs the call without asking (it never overrides a rule's `deny` or
 *   `ask`, nor a hook's);
 * - else a rule's `allow` runs it;
 * - else the policy decides.
 *
 * @module
 */
import type { PermissionDecision } from "./outcome.ts";

/** The decision on one call. */
export type CallDecision = PermissionDecision;

/** What decides a call. */
export interface DecisionInputs {
  /** The strictest matching approval rule's decision; omitted: no rule matched. */
  rule?: PermissionDecision | undefined;
  /** Whether the approval policy alone would ask. */
  policyAsks: boolean;
  /** Whether the policy is `never`, under which a rule's `ask` runs the call. */
  never?: boolean;
  /** The `PreToolUse` hooks' combined decision; omitted: none gave one. */
  hook?: PermissionDecision | undefined;
}

/**
 * The decision on a call.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { decideCall } from "./decision.ts";
 * assert.equal(decideCall({ rule: "deny", policyAsks: false, hook: "allow" }), "deny");
 * assert.equal(decideCall({ policyAsks: false, hook: "deny" }), "deny");
 * assert.equal(decideCall({ policyAsks: true, hook: "allow" }), "allow");
 * assert.equal(decideCall({ rule: "ask", policyAsks: false, hook: "allow" }), "ask");
 * assert.equal(decideCall({ policyAsks: true }), "ask");
 * assert.equal(decideCall({ rule: "ask", policyAsks: false, never: true }), "allow");
 * ```
 */
export function decideCall(inputs: DecisionInputs): CallDecision {
  const { rule, hook } = inputs;
  if (rule === "deny" || hook === "deny") return "deny";
  if (hook === "ask" || (rule === "ask" && !inputs.never)) return "ask";
  if (hook === "allow" || rule === "allow") return "allow";
  return inputs.policyAsks ? "ask" : "allow";
}
