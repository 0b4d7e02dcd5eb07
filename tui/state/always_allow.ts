/**
 * Per-session "always allow": answering `a` in the approval box approves the call and keeps a
 * rule for this session (an exact bash command, or a tool on a path); a later call the rule
 * covers is approved on the user's behalf, and the transcript says so each time. The protocol
 * has no such state: the TUI keeps it, and forgets it with the session.
 *
 * @module
 */
import type { AllowRule, ClientState } from "./model.ts";

/** Most rules one session keeps; the oldest go first. */
export const MAX_ALLOW_RULES = 100;

/**
 * The rule that allows exactly this call again: bash by its command, another tool by its
 * `path` argument, or by its whole arguments when it has no path.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ruleFor } from "./always_allow.ts";
 * assert.deepEqual(ruleFor("bash", { command: "ls" }), { tool: "bash", command: "ls" });
 * assert.deepEqual(ruleFor("write_file", { path: "a.txt", content: "x" }), { tool: "write_file", path: "a.txt" });
 * ```
 */
export function ruleFor(tool: string, args: unknown): AllowRule {
  const a = typeof args === "object" && args !== null ? args as Record<string, unknown> : {};
  if (tool === "bash" && typeof a.command === "string") return { tool, command: a.command };
  if (typeof a.path === "string") return { tool, path: a.path };
  return { tool, args: JSON.stringify(args ?? null) };
}

function same(a: AllowRule, b: AllowRule): boolean {
  return a.tool === b.tool && a.command === b.command && a.path === b.path && a.args === b.args;
}

/** Keeps `rule` for the session (once). */
export function addRule(state: ClientState, rule: AllowRule): void {
  if (state.allowRules.some((r) => same(r, rule))) return;
  state.allowRules.push(rule);
  if (state.allowRules.length > MAX_ALLOW_RULES) state.allowRules.shift();
}

/** The session's rule that covers this call, if one does. */
export function allowingRule(
  state: ClientState,
  tool: string,
  args: unknown,
): AllowRule | undefined {
  const wanted = ruleFor(tool, args);
  return state.allowRules.find((r) => same(r, wanted));
}

/** The rule in words, for the transcript and `/status`. */
export function describeRule(rule: AllowRule): string {
  if (rule.command !== undefined) return `bash \`${rule.command}\``;
  if (rule.path !== undefined) return `${rule.tool} on ${rule.path}`;
  return `${rule.tool} with these arguments`;
}
