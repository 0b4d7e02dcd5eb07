/**
 * `scv rules check -- CMD ARGS…`: what the approval rules decide for a bash command, and the
 * rule that decides it, as a session in that workspace would (the user's rules file, the
 * workspace's, the built-in rules; the approval policy where no rule decides).
 *
 * @module
 */
import { loadConfigOrReport, readEnv } from "../server/config.ts";
import { decide } from "../server/core/rules/decide.ts";
import { loadRules } from "../server/core/rules/load.ts";
import { RuleFileError } from "../server/core/rules/rule.ts";
import { parseShell } from "../server/core/rules/shell_commands.ts";
import { ruleLine, ruleView, unresolvableView } from "../server/core/rules/view.ts";
import type { RulesCheckOptions } from "./command_line.ts";

/** A word as bash would read it back: bare when it is plain, else single-quoted. */
export function shellQuote(word: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * The command line checked: one argument is a command line as typed (`"ls | wc -l"`), several
 * are the words of one command, quoted so that each stays one word.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { commandLineOf } from "./rules_command.ts";
 * assert.equal(commandLineOf(["ls | wc -l"]), "ls | wc -l");
 * assert.equal(commandLineOf(["git", "commit", "-m", "a b"]), "git commit -m 'a b'");
 * ```
 */
export function commandLineOf(words: readonly string[]): string {
  return words.length === 1 ? words[0]! : words.map(shellQuote).join(" ");
}

/** Where the check prints; injectable for tests. */
export interface RulesCheckIO {
  stdout: (line: string) => void;
  stderr: (line: string) => void;
}

const defaultIO: RulesCheckIO = {
  stdout: (line) => console.log(line),
  stderr: (line) => console.error(line),
};

/**
 * Prints the decision (`allow`, `ask`, `deny`, or `policy` where no rule decides) and the rule,
 * then one line per simple command. Exit status 0; 2 for a bad config or rules file.
 */
export async function runRulesCheck(
  options: RulesCheckOptions,
  io: RulesCheckIO = defaultIO,
): Promise<number> {
  const config = loadConfigOrReport(options.flags, io.stderr);
  if (!config) return 2;
  const cwd = options.cwd ?? Deno.cwd();
  let rules;
  try {
    rules = await loadRules(cwd, { env: readEnv });
  } catch (e) {
    if (!(e instanceof RuleFileError)) throw e;
    io.stderr(`scv: ${e.message}`);
    return 2;
  }
  const command = commandLineOf(options.words);
  const shell = await parseShell(command);
  const verdict = decide(rules, { tool: "bash", args: { command }, cwd, shell });
  const view = verdict.rule
    ? ruleView(verdict.rule)
    : verdict.unresolvable !== undefined
    ? unresolvableView(verdict.unresolvable)
    : undefined;
  if (verdict.decision === undefined) {
    io.stdout(`policy: no rule decides; approval_policy "${config.approval_policy}" does`);
  } else {
    io.stdout(`${verdict.decision}: ${ruleLine(view!)}`);
  }
  // Each simple command on its own, so a long line shows which part decided.
  if (shell.commands.length > 1) {
    for (const c of shell.commands) {
      const one = decide(rules, {
        tool: "bash",
        args: { command: c.text },
        cwd,
        shell: { commands: [c], unresolvable: [] },
      });
      const why = one.rule ? ruleLine(ruleView(one.rule)) : "no rule";
      io.stdout(
        `  ${(one.decision ?? "policy").padEnd(6)} ${c.text.replace(/\s+/g, " ")}  (${why})`,
      );
    }
  }
  for (const u of shell.unresolvable) io.stdout(`  unresolvable: ${u}`);
  return 0;
}
