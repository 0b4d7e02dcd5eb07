/**
 * The rules' decision for one tool call: a pure function of the rules in force and the call
 * (with its bash parse), so every caller (the tool-call path, `scv rules check`, hooks that
 * must not let an `allow` override a `deny`) gets the same answer.
 *
 * @module
 */
import * as posix from "../../posix_path.ts";
import { canonicalJson } from "./canonical_json.ts";
import {
  pathGlob,
  prefixMatches,
  type Rule,
  type RuleDecision,
  STRICTNESS,
  toolMatches,
} from "./rule.ts";
import type { ShellParse, ShellWord } from "./shell_commands.ts";
import { hostPatternCovers } from "../../tools/web/policy.ts";

/** The call being decided. */
export interface RuleCall {
  /** The tool's name (`bash`, `write_file`, `mcp__github__create_issue`). */
  tool: string;
  /** The validated arguments. */
  args: unknown;
  /** The session's canonical workspace: rule paths are relative to it. */
  cwd: string;
  /** bash: the parse of `args.command` (`parseShell`); without it a bash call asks. */
  shell?: ShellParse;
}

/** What the rules say about a call. */
export interface RuleVerdict {
  /**
   * `deny`: refuse without asking; `ask`: ask under every policy but `never`; `allow`: run
   * without asking; undefined: no rule decides, the approval policy does.
   */
  decision: RuleDecision | undefined;
  /** The rule that decided; absent when no rule did, or when an unresolvable part asks. */
  rule?: Rule;
  /** Why the command cannot be decided from its text, when that is what asks. */
  unresolvable?: string;
}

/** The `path` argument of a call, when it has one. */
export function pathArgument(args: unknown): string | undefined {
  if (typeof args !== "object" || args === null) return undefined;
  const path = (args as Record<string, unknown>).path;
  return typeof path === "string" ? path : undefined;
}

/** The `url` argument of a call (web_fetch), when it has one. */
export function urlArgument(args: unknown): string | undefined {
  if (typeof args !== "object" || args === null) return undefined;
  const url = (args as Record<string, unknown>).url;
  return typeof url === "string" ? url : undefined;
}

/** The `command` argument of a bash call. */
export function commandArgument(args: unknown): string | undefined {
  if (typeof args !== "object" || args === null) return undefined;
  const command = (args as Record<string, unknown>).command;
  return typeof command === "string" ? command : undefined;
}

/**
 * A path argument as rules see it: relative to the workspace (`.` for the workspace itself,
 * `../x` outside it) and absolute, both normalised.
 */
export function rulePaths(cwd: string, path: string): { relative: string; absolute: string } {
  const absolute = posix.resolve(cwd, path);
  return { relative: posix.relative(cwd, absolute) || ".", absolute };
}

function pathCovered(glob: string, paths: { relative: string; absolute: string }): boolean {
  return pathGlob(glob)(glob.startsWith("/") ? paths.absolute : paths.relative);
}

/** Whether a (non-session) rule covers one bash simple command. */
function coversCommand(rule: Rule, words: readonly ShellWord[]): boolean {
  if (!toolMatches(rule.tool, "bash") || rule.path !== undefined) return false;
  if (rule.when) return rule.when(words);
  return rule.prefix === undefined || prefixMatches(rule.prefix, words, rule.decision);
}

/** Whether a (non-session) rule covers a call of another tool. */
function coversCall(
  rule: Rule,
  tool: string,
  paths: { relative: string; absolute: string } | undefined,
  url: string | undefined,
): boolean {
  if (!toolMatches(rule.tool, tool) || rule.prefix !== undefined) return false;
  if (rule.host !== undefined) return url !== undefined && hostPatternCovers(rule.host, url);
  if (rule.path === undefined) return true;
  return paths !== undefined && pathCovered(rule.path, paths);
}

/**
 * Whether a user rule that covers the same call takes a built-in's place: a bash prefix at
 * least as long as the built-in's, or a path glob where the built-in has one.
 */
function overrides(user: Rule, builtin: Rule): boolean {
  if (builtin.prefix) return (user.prefix?.length ?? 0) >= builtin.prefix.length;
  return user.path !== undefined || user.host !== undefined;
}

/** The strictest of the rules; on a tie the first (user, then workspace, then built-in). */
function strictest(matches: readonly Rule[]): Rule | undefined {
  let best: Rule | undefined;
  for (const r of matches) {
    if (!best || STRICTNESS[r.decision] > STRICTNESS[best.decision]) best = r;
  }
  return best;
}

/** The deciding rule among those covering one command or call, built-ins after the files. */
function decideAmong(rules: readonly Rule[], covers: (r: Rule) => boolean): Rule | undefined {
  const files = rules.filter((r) => r.source !== "builtin" && r.source !== "session" && covers(r));
  const users = files.filter((r) => r.source === "user");
  const builtins = rules.filter((r) =>
    r.source === "builtin" && covers(r) && !users.some((u) => overrides(u, r))
  );
  return strictest([...files, ...builtins]);
}

/** The session rule that remembers exactly this call, if one does. */
export function sessionRuleFor(rules: readonly Rule[], call: RuleCall): Rule | undefined {
  const command = call.tool === "bash" ? commandArgument(call.args) : undefined;
  const path = pathArgument(call.args);
  const relative = path === undefined ? undefined : rulePaths(call.cwd, path).relative;
  let args: string | undefined;
  return rules.find((r) => {
    if (r.source !== "session" || r.tool !== call.tool || !r.exact) return false;
    if (r.exact.command !== undefined) return r.exact.command === command;
    if (r.exact.path !== undefined) return r.exact.path === relative;
    args ??= canonicalJson(call.args);
    return r.exact.args === args;
  });
}

/**
 * The rules' verdict on a call. A bash command is allowed only when every simple command in it
 * is; any simple command denied denies it, any asked asks, and a part the parser cannot resolve
 * asks. The strictest matching rule wins; built-in rules count only where no user rule at
 * least as specific covers the same command. A session rule (the user's "yes, for this
 * session" to this exact call) allows over `ask` rules and unresolvable parts, never over a
 * `deny`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { decide } from "./decide.ts";
 * import { parseShell } from "./shell_commands.ts";
 * import type { Rule } from "./rule.ts";
 * const rules: Rule[] = [
 *   { tool: "bash", prefix: ["git", "status"], decision: "allow", source: "user", index: 1 },
 *   { tool: "bash", prefix: ["rm"], decision: "deny", source: "user", index: 2 },
 * ];
 * const call = async (command: string) =>
 *   decide(rules, { tool: "bash", args: { command }, cwd: "/w", shell: await parseShell(command) });
 * assert.equal((await call("git status")).decision, "allow");
 * assert.equal((await call("git status; rm x")).decision, "deny");
 * assert.equal((await call("git status | less")).decision, undefined);
 * ```
 */
export function decide(rules: readonly Rule[], call: RuleCall): RuleVerdict {
  const remembered = sessionRuleFor(rules, call);
  let verdicts: Rule[];
  let unresolvable: string | undefined;
  let complete: boolean;
  if (call.tool === "bash") {
    if (!call.shell) return { decision: "ask", unresolvable: "the command was not parsed" };
    const shell = call.shell;
    unresolvable = shell.unresolvable[0];
    const perCommand = shell.commands.map((c) =>
      decideAmong(rules, (r) => coversCommand(r, c.words))
    );
    verdicts = perCommand.filter((r): r is Rule => r !== undefined);
    complete = shell.commands.length > 0 && verdicts.length === shell.commands.length;
  } else {
    const path = pathArgument(call.args);
    const paths = path === undefined ? undefined : rulePaths(call.cwd, path);
    const url = urlArgument(call.args);
    const rule = decideAmong(rules, (r) => coversCall(r, call.tool, paths, url));
    verdicts = rule ? [rule] : [];
    complete = rule !== undefined;
  }
  const deny = verdicts.find((r) => r.decision === "deny");
  if (deny) return { decision: "deny", rule: deny };
  if (remembered) return { decision: "allow", rule: remembered };
  const ask = verdicts.find((r) => r.decision === "ask");
  if (ask) return { decision: "ask", rule: ask };
  if (unresolvable !== undefined) return { decision: "ask", unresolvable };
  if (complete) return { decision: "allow", rule: verdicts[0]! };
  return { decision: undefined };
}
