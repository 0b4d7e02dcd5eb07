/**
 * Reading the rules files: the user's (`$XDG_CONFIG_HOME/scv/rules.jsonc`, else
 * `~/.config/scv/rules.jsonc`), then the workspace's (`<workspace>/.scv/rules.jsonc`), then the
 * built-in rules. Each rule's `match` and `not_match` examples are checked as it is read, and a
 * workspace's `allow` is refused: nothing a repository contains may widen what scv allows.
 *
 * @module
 */
import { parseJsonc } from "../../jsonc.ts";
import { BUILTIN_RULES } from "./builtin.ts";
import { parseRule, pathGlob, type Rule, RuleFileError } from "./rule.ts";
import * as posix from "../../posix_path.ts";
import { hostPatternCovers } from "../../tools/web/policy.ts";
import { parseShell } from "./shell_commands.ts";
import { decide } from "./decide.ts";

/** Largest rules file read. */
export const MAX_RULES_FILE_BYTES = 1024 * 1024;
/** Most rules one file may hold. */
export const MAX_RULES_PER_FILE = 1000;

/** The per-user rules file path, beside the per-user config file. */
export function userRulesPath(env: (name: string) => string | undefined): string | undefined {
  const xdg = env("XDG_CONFIG_HOME");
  // As for config.jsonc: a relative XDG_CONFIG_HOME is invalid and ignored.
  if (xdg?.startsWith("/")) return `${xdg}/scv/rules.jsonc`;
  const home = env("HOME");
  return home ? `${home}/.config/scv/rules.jsonc` : undefined;
}

/** The rules file of a workspace. */
export function workspaceRulesPath(cwd: string): string {
  return `${cwd.replace(/\/+$/, "")}/.scv/rules.jsonc`;
}

/** A rules file scv has no read permission for (`--allow-read` does not cover it). */
export class RulesUnreadableError extends RuleFileError {
  /** Builds the error for the path. */
  constructor(path: string) {
    super(`Cannot load rules "${path}": scv was started without read permission for it`);
    this.name = "RulesUnreadableError";
  }
}

/** Reads a file's text; undefined when there is none. */
export type ReadRulesText = (path: string) => Promise<string | undefined>;

async function readText(path: string): Promise<string | undefined> {
  let file: Deno.FsFile;
  try {
    file = await Deno.open(path);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound || e instanceof Deno.errors.NotADirectory) {
      return undefined;
    }
    if (e instanceof Deno.errors.NotCapable) throw new RulesUnreadableError(path);
    throw new RuleFileError(`Cannot load rules "${path}": ${(e as Error).message}`);
  }
  try {
    const { size } = await file.stat();
    if (size > MAX_RULES_FILE_BYTES) {
      throw new RuleFileError(
        `Cannot load rules "${path}": the file has ${size} bytes, more than ${MAX_RULES_FILE_BYTES}`,
      );
    }
    const bytes = new Uint8Array(size);
    let read = 0;
    while (read < size) {
      const n = await file.read(bytes.subarray(read));
      if (n === null) break;
      read += n;
    }
    return new TextDecoder().decode(bytes.subarray(0, read));
  } finally {
    file.close();
  }
}

/**
 * Whether a rule covers an example: a command line for bash, a URL for a web_fetch host rule, a
 * path for other tools.
 */
async function covers(rule: Rule, example: string): Promise<boolean> {
  if (rule.host !== undefined) return hostPatternCovers(rule.host, example);
  if (rule.tool !== "bash") {
    // A path example, relative to the workspace (or absolute, for an absolute glob).
    if (rule.path === undefined) return true;
    const path = rule.path.startsWith("/") ? posix.resolve("/", example) : posix.normalize(example);
    return pathGlob(rule.path)(path);
  }
  const shell = await parseShell(example);
  // Each simple command on its own: the rule covers the example when it covers one of them.
  return shell.commands.some((c) =>
    decide([rule], {
      tool: "bash",
      args: { command: c.text },
      cwd: "/",
      shell: { commands: [c], unresolvable: [] },
    }).decision !== undefined
  );
}

/**
 * The rules of one file, checked: a JSONC list of rules, each matching its `match` examples and
 * none of its `not_match` ones; in a workspace's file, no `allow`. Throws {@link RuleFileError}
 * naming the file and the rule.
 */
export async function parseRulesText(
  text: string,
  file: string,
  source: "user" | "workspace",
): Promise<Rule[]> {
  let value: unknown;
  try {
    value = parseJsonc(text);
  } catch (e) {
    throw new RuleFileError(`Cannot load rules "${file}": ${(e as Error).message}`);
  }
  if (!Array.isArray(value)) {
    throw new RuleFileError(`Cannot load rules "${file}": the file must hold a list of rules`);
  }
  if (value.length > MAX_RULES_PER_FILE) {
    throw new RuleFileError(
      `Cannot load rules "${file}": ${value.length} rules, more than ${MAX_RULES_PER_FILE}`,
    );
  }
  const rules: Rule[] = [];
  for (const [i, entry] of value.entries()) {
    const { rule, match, notMatch } = parseRule(entry, file, i + 1, source);
    const at = `Cannot load rules "${file}": rule ${i + 1}`;
    if (source === "workspace" && rule.decision === "allow") {
      throw new RuleFileError(
        `${at}: a workspace's rules may only ask or deny; put "allow" rules in your own ` +
          `rules file`,
      );
    }
    for (const example of match) {
      if (!await covers(rule, example)) {
        throw new RuleFileError(
          `${at}: does not match its "match" example ${JSON.stringify(example)}`,
        );
      }
    }
    for (const example of notMatch) {
      if (await covers(rule, example)) {
        throw new RuleFileError(
          `${at}: matches its "not_match" example ${JSON.stringify(example)}`,
        );
      }
    }
    rules.push(rule);
  }
  return rules;
}

/** Reads and checks one rules file; no file is no rules. */
export async function loadRulesFile(
  path: string,
  source: "user" | "workspace",
  read: ReadRulesText = readText,
): Promise<Rule[]> {
  const text = await read(path);
  return text === undefined ? [] : await parseRulesText(text, path, source);
}

/** Where {@link loadRules} looks, injectable for tests. */
export interface RulesSources {
  /** Environment lookup for `XDG_CONFIG_HOME` and `HOME`. */
  env: (name: string) => string | undefined;
  /** Reads a file; defaults to a bounded read from disk. */
  read?: ReadRulesText;
}

/**
 * The rules in force in a workspace: the user's file, the workspace's, then the built-in
 * rules. Throws {@link RuleFileError} for a file that is not a valid rules file.
 */
export async function loadRules(cwd: string, sources: RulesSources): Promise<Rule[]> {
  const userPath = userRulesPath(sources.env);
  let user: Rule[] = [];
  try {
    if (userPath) user = await loadRulesFile(userPath, "user", sources.read);
  } catch (e) {
    // A locked-down run that may not read scv's config directory reads no user rules either;
    // the config file's notice already names that directory.
    if (!(e instanceof RulesUnreadableError)) throw e;
  }
  const workspace = await loadRulesFile(workspaceRulesPath(cwd), "workspace", sources.read);
  return [...user, ...workspace, ...BUILTIN_RULES];
}

/**
 * Checks the user's rules file at startup, so a broken one stops `scv server`, `scv acp` and
 * `scv exec` before any session: the message to print (naming the file and the rule), or
 * undefined when the file is valid or absent. A workspace's file is checked when a session
 * opens on it.
 */
export async function userRulesProblem(
  env: (name: string) => string | undefined,
  read?: ReadRulesText,
): Promise<string | undefined> {
  const path = userRulesPath(env);
  if (!path) return undefined;
  try {
    await loadRulesFile(path, "user", read);
    return undefined;
  } catch (e) {
    if (e instanceof RulesUnreadableError) return undefined;
    if (e instanceof RuleFileError) return e.message;
    throw e;
  }
}
