/**
 * The rules one session's user added by answering an approval with `remember: "session"`: the
 * exact bash command, the tool on that path, or the tool with those exact arguments when it
 * takes no path. They live as long as the session's process does, bounded in count and size.
 *
 * @module
 */
import { canonicalJson } from "./canonical_json.ts";
import { commandArgument, pathArgument, type RuleCall, rulePaths } from "./decide.ts";
import type { Rule } from "./rule.ts";

/** Most rules one session remembers; the oldest is forgotten first. */
export const MAX_SESSION_RULES = 256;
/** Longest command, path or canonical argument text remembered; a longer call asks each time. */
export const MAX_REMEMBERED_BYTES = 16 * 1024;

/**
 * One session's remembered rules.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { SessionRules } from "./session_rules.ts";
 * const rules = new SessionRules();
 * rules.remember({ tool: "write_file", args: { path: "./a.txt", content: "x" }, cwd: "/w" });
 * assert.deepEqual(rules.list[0]?.exact, { path: "a.txt" });
 * ```
 */
export class SessionRules {
  #rules: Rule[] = [];
  #max: number;
  #next = 1;

  /** An empty set holding at most `max` rules. */
  constructor(max = MAX_SESSION_RULES) {
    if (!Number.isSafeInteger(max) || max <= 0) {
      throw new RangeError(
        `Cannot create SessionRules: max must be a positive integer, got ${max}`,
      );
    }
    this.#max = max;
  }

  /** The rules, oldest first. */
  get list(): readonly Rule[] {
    return this.#rules;
  }

  /**
   * Adds the rule that allows exactly this call again, and returns it; undefined when what it
   * would remember is longer than {@link MAX_REMEMBERED_BYTES}.
   */
  remember(call: RuleCall): Rule | undefined {
    const exact = exactOf(call);
    const [text] = Object.values(exact) as string[];
    if (text === undefined || text.length > MAX_REMEMBERED_BYTES) return undefined;
    const same = this.#rules.findIndex((r) =>
      r.tool === call.tool && canonicalJson(r.exact) === canonicalJson(exact)
    );
    if (same >= 0) this.#rules.splice(same, 1);
    const rule: Rule = {
      tool: call.tool,
      decision: "allow",
      source: "session",
      index: this.#next++,
      exact,
    };
    this.#rules.push(rule);
    if (this.#rules.length > this.#max) this.#rules.shift();
    return rule;
  }
}

/** What a session rule keeps of a call: the command, the workspace-relative path, or the args. */
function exactOf(call: RuleCall): NonNullable<Rule["exact"]> {
  const command = call.tool === "bash" ? commandArgument(call.args) : undefined;
  if (command !== undefined) return { command };
  const path = pathArgument(call.args);
  if (path !== undefined) return { path: rulePaths(call.cwd, path).relative };
  return { args: canonicalJson(call.args) };
}
