/**
 * Approvals over ACP: the options a `session/request_permission` offers, what the client's
 * answer means. "Allow always" is the core's session rule (`core/rules/session_rules.ts`), the
 * same one a Peon client's `remember: "session"` adds.
 *
 * @module
 */
import type { PermissionOption, RequestPermissionOutcome } from "@agentclientprotocol/sdk";

/** The options scv offers for every approval, in the order an editor shows them. */
export const PERMISSION_OPTIONS: readonly PermissionOption[] = Object.freeze([
  { optionId: "allow_once", name: "Allow", kind: "allow_once" },
  {
    optionId: "allow_always",
    name: "Always allow this call in this session",
    kind: "allow_always",
  },
  { optionId: "reject_once", name: "Reject", kind: "reject_once" },
]);

/** What the user decided. */
export type PermissionDecision = "allow_once" | "allow_always" | "reject" | "cancelled";

/**
 * The decision a permission outcome stands for. An option id scv did not offer is a rejection:
 * only an explicit allow runs a call.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { permissionDecision } from "./permissions.ts";
 * assert.equal(permissionDecision({ outcome: "selected", optionId: "allow_once" }), "allow_once");
 * assert.equal(permissionDecision({ outcome: "selected", optionId: "yes!" }), "reject");
 * assert.equal(permissionDecision({ outcome: "cancelled" }), "cancelled");
 * ```
 */
export function permissionDecision(outcome: RequestPermissionOutcome): PermissionDecision {
  if (outcome.outcome === "cancelled") return "cancelled";
  if (outcome.optionId === "allow_once") return "allow_once";
  if (outcome.optionId === "allow_always") return "allow_always";
  return "reject";
}
