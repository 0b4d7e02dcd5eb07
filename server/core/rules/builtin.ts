/**
 * scv's built-in rules: commands that destroy work which no undo brings back ask under every
 * policy but `never`. They are consulted after the rules files, and a user rule that covers
 * the same command at least as specifically (its prefix as long as the built-in's) overrides
 * one: `{"tool": "bash", "prefix": ["git", "push", "--force"], "decision": "allow"}` lets force
 * pushes run, `["git"]` does not.
 *
 * @module
 */
import type { Rule } from "./rule.ts";
import { baseName, type ShellWord } from "./shell_commands.ts";

/** git's options that come before the subcommand and take a separate value. */
const GIT_VALUE_OPTIONS = new Set(["-C", "-c", "--git-dir", "--work-tree", "--namespace"]);

/**
 * A git command's subcommand and what follows it, git's own options before it skipped
 * (`git -C dir push` is `push`); undefined for anything else or an unknown subcommand.
 */
export function gitArgs(words: readonly ShellWord[]): ShellWord[] | undefined {
  const name = words[0];
  if (name === null || name === undefined || baseName(name) !== "git") return undefined;
  let i = 1;
  while (i < words.length) {
    const w = words[i];
    if (w === null || w === undefined) return words.slice(i);
    if (!w.startsWith("-")) break;
    i += GIT_VALUE_OPTIONS.has(w) ? 2 : 1;
  }
  return words.slice(i);
}

/** Whether a word is the long option or a cluster of short ones holding the letter. */
function hasFlag(words: readonly ShellWord[], long: string[], short?: string): boolean {
  return words.some((w) => {
    if (w === null) return false;
    if (long.some((l) => w === l || w.startsWith(`${l}=`))) return true;
    return short !== undefined && /^-[A-Za-z]+$/.test(w) && w.includes(short);
  });
}

/** A git subcommand test: the words after the subcommand, unknown words counted as risky. */
function git(sub: string, test: (rest: readonly ShellWord[]) => boolean) {
  return (words: readonly ShellWord[]): boolean => {
    const args = gitArgs(words);
    if (!args || args.length === 0) return false;
    const first = args[0];
    // `git $SUB …` could be any subcommand.
    if (first === null) return true;
    if (first !== sub) return false;
    const rest = args.slice(1);
    return test(rest) || rest.includes(null);
  };
}

/** Operands of `rm -r` that delete a home, the root, or the whole workspace. */
const PRECIOUS = new Set(["/", "/*", "~", "~/", "~/*", ".", "./", "*", "./*", "..", "../"]);

function rmRecursive(words: readonly ShellWord[]): boolean {
  const name = words[0];
  if (name === null || name === undefined || baseName(name) !== "rm") return false;
  const args = words.slice(1);
  const recursive = hasFlag(args, ["--recursive"], "r") || hasFlag(args, [], "R");
  if (!recursive) return false;
  let options = true;
  return args.some((w) => {
    if (w === null) return true;
    if (options && w === "--") {
      options = false;
      return false;
    }
    if (options && w.startsWith("-") && w.length > 1) return false;
    const trimmed = w.length > 1 ? w.replace(/\/+$/, "") || "/" : w;
    return PRECIOUS.has(w) || PRECIOUS.has(trimmed) || w.startsWith("$HOME") ||
      /^~[^/]*\/?$/.test(w);
  });
}

/** Tools that write files; a rule on their `path` covers writes under `.git/`. */
export const FILE_WRITE_TOOLS: readonly string[] = ["write_file", "edit_file"];

const ASK = "ask" as const;

/**
 * The built-in rules, in the order they are listed. Each asks; the justification says what
 * the command would lose.
 */
export const BUILTIN_RULES: readonly Rule[] = Object.freeze([
  {
    tool: "bash",
    prefix: ["git", "reset", "--hard"],
    when: git("reset", (r) => hasFlag(r, ["--hard"])),
    justification: "git reset --hard discards uncommitted changes",
  },
  {
    tool: "bash",
    prefix: ["git", "clean", "-f"],
    when: git("clean", (r) => hasFlag(r, ["--force"], "f")),
    justification: "git clean -f deletes untracked files",
  },
  {
    tool: "bash",
    prefix: ["git", "checkout", "--"],
    when: git("checkout", (r) => r.includes("--") || r.includes(".")),
    justification: "git checkout -- PATH discards uncommitted changes to those paths",
  },
  {
    tool: "bash",
    prefix: ["git", "restore"],
    when: git("restore", (r) => r.length > 0),
    justification: "git restore discards uncommitted changes to those paths",
  },
  {
    tool: "bash",
    prefix: ["git", "push", "--force"],
    when: git(
      "push",
      (r) =>
        hasFlag(r, ["--force", "--force-with-lease", "--force-if-includes"], "f") ||
        r.some((w) => w !== null && w.startsWith("+")),
    ),
    justification: "a force push overwrites the remote's history",
  },
  {
    tool: "bash",
    prefix: ["git", "branch", "-D"],
    when: git(
      "branch",
      (r) => hasFlag(r, [], "D") || (hasFlag(r, ["--delete"], "d") && hasFlag(r, ["--force"], "f")),
    ),
    justification: "git branch -D deletes a branch whether or not it was merged",
  },
  {
    tool: "bash",
    prefix: ["rm", "-r"],
    when: rmRecursive,
    justification: "rm -r of the workspace, a home directory or / deletes everything in it",
  },
  ...FILE_WRITE_TOOLS.flatMap((tool) =>
    [".git", ".git/**", "**/.git", "**/.git/**"].map((path) => ({
      tool,
      path,
      justification: "writing inside .git/ can corrupt the repository",
    }))
  ),
].map((r, i): Rule => ({ ...r, decision: ASK, source: "builtin", index: i + 1 })));
