/**
 * An approval rule (`RuleView`, as `approval.requested.rule` and `rules.list` carry it) in words,
 * for every client and for the server's own messages: where it came from and what it covers.
 *
 * @module
 */
import type { RuleView } from "./schema.ts";

/**
 * Where a rule came from: `~/.config/scv/rules.jsonc rule 3`, `built-in rule 2`, `session rule`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ruleOrigin } from "./rule_text.ts";
 * assert.equal(ruleOrigin({ source: "builtin", index: 2, description: "x", decision: "ask" }), "built-in rule 2");
 * ```
 */
export function ruleOrigin(rule: RuleView): string {
  switch (rule.source) {
    case "builtin":
      return `built-in rule ${rule.index ?? ""}`.trim();
    case "session":
      return "session rule";
    case "parser":
      return "shell parser";
    default:
      return `${rule.file ?? rule.source} rule ${rule.index ?? ""}`.trim();
  }
}

/**
 * A rule in one line: `bash git push --force (built-in rule 5): a force push overwrites…`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ruleLine } from "./rule_text.ts";
 * assert.equal(
 *   ruleLine({ source: "user", file: "/r.jsonc", index: 1, description: "bash curl", decision: "deny", justification: "no network" }),
 *   "bash curl (/r.jsonc rule 1): no network",
 * );
 * ```
 */
export function ruleLine(rule: RuleView): string {
  const why = rule.justification !== undefined ? `: ${rule.justification}` : "";
  return `${rule.description} (${ruleOrigin(rule)})${why}`;
}
