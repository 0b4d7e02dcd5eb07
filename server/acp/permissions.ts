/**
 * Approvals over ACP: the options a `session/request_permission` offers, what the client's
 * answer means. "Allow always" is the core's session rule (`core/rules/session_rules.ts`), the
 * same one a Peon client's `remember: "session"` adds.
 *
 * @module
 */
import type { PermissionOption, RequestPermissionOutcome } from "@agentclientprotocol/sdk";
import { ruleLine } from "../../protocol/rule_text.ts";
import type { RuleView } from "../../protocol/schema.ts";

/** The most characters of the rule's words a permission title carries. */
export const MAX_TITLE_RULE_CHARS = 300;

/**
 * The title of a `session/request_permission`: the call's summary and, when a rule asks (not the
 * approval policy), which rule, as the TUI's approval box says it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { permissionTitle } from "./permissions.ts";
 * assert.equal(permissionTitle("Run shell command: ls"), "Run shell command: ls");
 * assert.equal(
 *   permissionTitle("Run shell command: git push -f", {
 *     source: "builtin", index: 5, description: "bash git push --force", decision: "ask",
 *     justification: "it overwrites the remote's history",
 *   }),
 *   "Run shell command: git push -f (asked by bash git push --force (built-in rule 5): " +
 *     "it overwrites the remote's history)",
 * );
 * ```
 */
export function permissionTitle(summary: string, rule?: RuleView): string {
  if (!rule) return summary;
  const line = ruleLine(rule).replace(/\s+/g, " ");
  const words = line.length > MAX_TITLE_RULE_CHARS
    ? `${line.slice(0, MAX_TITLE_RULE_CHARS - 1)}…`
    : line;
  return `${summary} (asked by ${words})`;
}

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
