/**
 * Approval rules in words, for the approval box and `/rules`.
 *
 * @module
 */
import type { RuleView, ServerEventOf } from "../../protocol/mod.ts";
import { ruleLine } from "../../protocol/mod.ts";

/**
 * One rule in one line: what it covers, where it came from, why.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ruleText } from "./rules_text.ts";
 * assert.equal(
 *   ruleText({ source: "builtin", index: 5, description: "bash git push --force", decision: "ask", justification: "a force push overwrites the remote's history" }),
 *   "ask   bash git push --force (built-in rule 5): a force push overwrites the remote's history",
 * );
 * ```
 */
export function ruleText(rule: RuleView): string {
  return `${rule.decision.padEnd(6)}${ruleLine(rule)}`;
}

/** The `rules.list` reply as the `/rules` notice shows it. */
export function rulesListText(event: ServerEventOf<"rules.list">): string {
  const lines = [
    "Approval rules in force, strictest match wins (deny, then ask, then allow):",
    ...event.rules.map((r) => `  ${ruleText(r)}`),
  ];
  if (event.omitted) lines.push(`  … ${event.omitted} more not shown (they did not fit a frame)`);
  lines.push(
    "Files: ~/.config/scv/rules.jsonc, then <workspace>/.scv/rules.jsonc (see the README)",
  );
  return lines.join("\n");
}

/**
 * A call as a session rule remembers it, in words: `bash \`make test\``, `write_file on a.txt`,
 * `mcp__x__y with these arguments` (the server keeps the rule itself; this only names it).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { rememberedText } from "./rules_text.ts";
 * assert.equal(rememberedText("bash", { command: "ls" }), "bash `ls`");
 * assert.equal(rememberedText("write_file", { path: "a.txt", content: "" }), "write_file on a.txt");
 * ```
 */
export function rememberedText(name: string, args: unknown): string {
  const a = typeof args === "object" && args !== null ? args as Record<string, unknown> : {};
  if (name === "bash" && typeof a.command === "string") return `bash \`${a.command}\``;
  if (typeof a.path === "string") return `${name} on ${a.path}`;
  return `${name} with these arguments`;
}
