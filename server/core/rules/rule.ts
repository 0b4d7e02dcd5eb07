/**
 * One approval rule: which calls it covers (a bash command prefix, or a tool on a path glob),
 * what it decides, and where it came from. The shape of a rules file's entries, checked by hand
 * (zod loads with the first turn, rules with the session).
 *
 * @module
 */
import { type GlobMatcher, globMatcher } from "../../tools/glob_pattern.ts";
import { baseName, type ShellWord } from "./shell_commands.ts";
import { HOST_PATTERN } from "../../host_pattern.ts";

/** What a rule decides, weakest first. */
export type RuleDecision = "allow" | "ask" | "deny";

/** The decisions in the order a rules file may name them. */
export const RULE_DECISIONS: readonly RuleDecision[] = ["allow", "ask", "deny"];

/** Strictness: the strictest decision of the matching rules wins. */
export const STRICTNESS: Readonly<Record<RuleDecision, number>> = { allow: 0, ask: 1, deny: 2 };

/**
 * Where a rule came from: the user's rules file, the workspace's, scv's built-in list, or a
 * `remember: "session"` answer. The order is also the order rules are listed in.
 */
export type RuleSource = "user" | "workspace" | "builtin" | "session";

/** One rule in force. */
export interface Rule {
  /** A tool name; `*` matches any run of characters (`mcp__github__*`). */
  tool: string;
  /** bash only: the words a simple command starts with; absent: every command. */
  prefix?: readonly string[];
  /** Other tools only: a glob of the `path` argument, relative to the workspace (or absolute). */
  path?: string;
  /** `web_fetch` only: a host pattern the `url` argument's host must match (`*.deno.com`). */
  host?: string;
  /** The decision for a call it covers. */
  decision: RuleDecision;
  /** Why: shown to the model when the rule denies, and to the user when it asks. */
  justification?: string;
  /** Where it came from. */
  source: RuleSource;
  /** The file it was read from, for rules from a file. */
  file?: string;
  /** Its 1-based position in that file (or in the built-in list). */
  index: number;
  /**
   * Built-in rules only: the test on a simple command's words that the prefix alone cannot
   * say (`-f` anywhere after `git push`). The prefix then only names the rule and says how
   * specific a user rule must be to override it.
   */
  when?: (words: readonly ShellWord[]) => boolean;
  /** Session rules only: the exact bash command, the path, or the canonical arguments. */
  exact?: { command?: string; path?: string; args?: string };
}

/** A rules file's entry that is not a rule; the message names the file and the entry. */
export class RuleFileError extends Error {
  /** Builds the error; `message` is already user-facing. */
  constructor(message: string) {
    super(message);
    this.name = "RuleFileError";
  }
}

/** Longest text a rule's string fields may hold. */
export const MAX_RULE_TEXT = 4096;
/** Most words in a prefix, examples in `match`/`not_match`. */
export const MAX_RULE_ITEMS = 64;

const KEYS = new Set([
  "tool",
  "prefix",
  "path",
  "host",
  "decision",
  "justification",
  "match",
  "not_match",
]);

/** A rule as a rules file writes it, with its examples. */
export interface FileRule {
  /** The rule in force. */
  rule: Rule;
  /** Examples the rule must cover. */
  match: string[];
  /** Examples the rule must not cover. */
  notMatch: string[];
}

function text(v: unknown, what: string, fail: (detail: string) => never): string {
  if (typeof v !== "string" || v.length === 0 || v.length > MAX_RULE_TEXT) {
    fail(`"${what}" must be a non-empty string of at most ${MAX_RULE_TEXT} characters`);
  }
  return v as string;
}

function texts(v: unknown, what: string, fail: (detail: string) => never): string[] {
  if (v === undefined) return [];
  if (!Array.isArray(v) || v.length > MAX_RULE_ITEMS) {
    fail(`"${what}" must be a list of at most ${MAX_RULE_ITEMS} strings`);
  }
  return (v as unknown[]).map((item, i) => text(item, `${what}[${i}]`, fail));
}

/**
 * Reads one entry of a rules file; throws {@link RuleFileError} naming `file` and the entry's
 * 1-based position when it is not a rule.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseRule } from "./rule.ts";
 * const { rule } = parseRule({ tool: "bash", prefix: ["git", "status"], decision: "allow" }, "r.jsonc", 1, "user");
 * assert.deepEqual(rule.prefix, ["git", "status"]);
 * assert.throws(() => parseRule({ tool: "bash", decision: "maybe" }, "r.jsonc", 2, "user"), /rule 2/);
 * ```
 */
export function parseRule(
  value: unknown,
  file: string,
  index: number,
  source: "user" | "workspace",
): FileRule {
  const fail = (detail: string): never => {
    throw new RuleFileError(`Cannot load rules "${file}": rule ${index}: ${detail}`);
  };
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    fail("must be an object");
  }
  const v = value as Record<string, unknown>;
  for (const key of Object.keys(v)) if (!KEYS.has(key)) fail(`unknown key "${key}"`);
  const tool = text(v.tool, "tool", fail);
  if (!RULE_DECISIONS.includes(v.decision as RuleDecision)) {
    fail(`"decision" must be "allow", "ask" or "deny", got ${JSON.stringify(v.decision)}`);
  }
  const rule: Rule = { tool, decision: v.decision as RuleDecision, source, file, index };
  if (v.prefix !== undefined) {
    if (tool !== "bash") fail(`"prefix" is for bash rules; use "path" for ${tool}`);
    const prefix = texts(v.prefix, "prefix", fail);
    if (prefix.length === 0) fail(`"prefix" must name at least one word`);
    rule.prefix = prefix;
  }
  if (v.path !== undefined) {
    if (tool === "bash") fail(`"path" is not for bash rules; use "prefix"`);
    rule.path = text(v.path, "path", fail);
    try {
      globMatcher(rule.path);
    } catch (e) {
      fail(`"path" is not a glob: ${(e as Error).message}`);
    }
  }
  if (v.host !== undefined) {
    if (tool !== "web_fetch") fail(`"host" is for web_fetch rules`);
    if (v.path !== undefined) fail(`a rule has "host" or "path", not both`);
    const host = text(v.host, "host", fail);
    if (!HOST_PATTERN.test(host)) {
      fail(
        `"host" must be a host name, "*.domain", an IPv4 address or [IPv6], with an optional ` +
          `:PORT, got ${JSON.stringify(host)}`,
      );
    }
    rule.host = host;
  }
  if (v.justification !== undefined) {
    rule.justification = text(v.justification, "justification", fail);
  }
  return {
    rule,
    match: texts(v.match, "match", fail),
    notMatch: texts(v.not_match, "not_match", fail),
  };
}

/** Whether a rule's `tool` covers a tool name (`*` matches any run of characters). */
export function toolMatches(pattern: string, name: string): boolean {
  if (!pattern.includes("*")) return pattern === name;
  const parts = pattern.split("*").map((p) => p.replace(/[.+?^${}()|[\]\\]/g, "\\$&"));
  return new RegExp(`^${parts.join(".*")}$`, "s").test(name);
}

/**
 * Whether a prefix covers a simple command's words. An unknown word (`$X`) never satisfies an
 * `allow`, but may be anything for `ask` and `deny`; those also match a command by its base
 * name (`/usr/bin/git`), which an `allow` does not (a workspace's own `./git` is not git).
 */
export function prefixMatches(
  prefix: readonly string[],
  words: readonly ShellWord[],
  decision: RuleDecision,
): boolean {
  if (words.length < prefix.length) return false;
  const strict = decision === "allow";
  return prefix.every((want, i) => {
    const word = words[i];
    if (word === null || word === undefined) return !strict;
    if (word === want) return true;
    return i === 0 && !strict && !want.includes("/") && baseName(word) === want;
  });
}

const matchers = new Map<string, GlobMatcher>();

/** A compiled glob, kept: the same few rule globs are matched on every call. */
export function pathGlob(glob: string): (path: string) => boolean {
  let m = matchers.get(glob);
  if (!m) {
    m = globMatcher(glob);
    if (matchers.size >= 1024) matchers.clear();
    matchers.set(glob, m);
  }
  return m;
}

/** The rule in a few words, for the approval box, `/rules` and `scv rules check`. */
export function describeRule(rule: Rule): string {
  if (rule.exact?.command !== undefined) return `bash \`${rule.exact.command}\``;
  if (rule.exact?.path !== undefined) return `${rule.tool} on ${rule.exact.path}`;
  if (rule.exact?.args !== undefined) return `${rule.tool} with these exact arguments`;
  if (rule.prefix) return `bash ${rule.prefix.join(" ")}`;
  if (rule.path !== undefined) return `${rule.tool} on ${rule.path}`;
  if (rule.host !== undefined) return `${rule.tool} on host ${rule.host}`;
  return rule.tool === "bash" ? "bash (every command)" : rule.tool;
}
