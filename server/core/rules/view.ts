/**
 * A rule as the wire shows it (`approval.requested.rule`, `rules.list`): where it came from,
 * what it covers in words, what it decides.
 *
 * @module
 */
import type { RuleView } from "../../../protocol/schema.ts";
export { ruleLine } from "../../../protocol/rule_text.ts";
import { describeRule, type Rule } from "./rule.ts";

/**
 * The wire view of a rule.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ruleView } from "./view.ts";
 * const view = ruleView({ tool: "bash", prefix: ["ls"], decision: "allow", source: "user", file: "/r.jsonc", index: 2 });
 * assert.deepEqual(view, { source: "user", description: "bash ls", decision: "allow", file: "/r.jsonc", index: 2 });
 * ```
 */
export function ruleView(rule: Rule): RuleView {
  return {
    source: rule.source,
    description: clip(describeRule(rule)),
    decision: rule.decision,
    ...(rule.file !== undefined ? { file: rule.file } : {}),
    index: rule.index,
    ...(rule.justification !== undefined ? { justification: clip(rule.justification) } : {}),
  };
}

/** Longest description or justification a view carries, so it fits any frame limit. */
export const MAX_VIEW_TEXT = 300;

function clip(text: string): string {
  return text.length > MAX_VIEW_TEXT ? `${text.slice(0, MAX_VIEW_TEXT - 3)}...` : text;
}

/** The view of what asks when a command cannot be resolved from its text. */
export function unresolvableView(reason: string): RuleView {
  return {
    source: "parser",
    description: "a command whose effect the shell parser cannot resolve",
    decision: "ask",
    justification: clip(reason),
  };
}
