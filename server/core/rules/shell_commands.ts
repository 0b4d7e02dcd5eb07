/**
 * A bash command as the simple commands it runs, for deciding it against approval rules.
 *
 * The parse is tree-sitter's bash grammar (`tree-sitter-bash`'s WebAssembly build, run by
 * `web-tree-sitter`): a maintained grammar that covers pipes, lists, subshells, `$(…)`,
 * backticks, process substitution, here-documents and compound statements, with no native code
 * to build. It loads lazily, on the first bash call that must be decided against rules (some
 * 30-80 ms once per process), so a server that never sees such a call never pays for it.
 *
 * Anything whose effect cannot be seen from the text alone is reported as unresolvable (a
 * variable as the command name, `eval`, a shell reading commands from standard input or from
 * a `-c` string that is not a literal, a parse error), and the rules then ask.
 *
 * @module
 */
import type { Node as SyntaxNode, Parser } from "web-tree-sitter";

/** A word of a simple command: its text when it is fixed, null when it depends on the run. */
export type ShellWord = string | null;

/** One simple command: the command name and its arguments, after quote removal. */
export interface SimpleCommand {
  /** `words[0]` is the command name; null where a word depends on the run (`$X`, `$(…)`). */
  words: ShellWord[];
  /** The command as written, for messages. */
  text: string;
}

/** What a command line runs, as far as its text tells. */
export interface ShellParse {
  /** Every simple command, in source order, including those inside substitutions. */
  commands: SimpleCommand[];
  /** Why parts of the line cannot be known from the text; empty when everything could be. */
  unresolvable: string[];
}

/** Most simple commands looked at in one line; beyond, the line is unresolvable. */
export const MAX_SIMPLE_COMMANDS = 256;
/** Deepest `bash -c '…'` nesting looked into. */
export const MAX_SHELL_NESTING = 4;
/** Longest command text parsed; a longer one is unresolvable without parsing. */
export const MAX_SHELL_SOURCE_BYTES = 256 * 1024;

/** Shells: a `-c` string is parsed in turn, commands read from stdin are unresolvable. */
const SHELLS = new Set(["bash", "sh", "zsh", "dash", "ksh", "mksh", "ash", "fish"]);
/**
 * Commands that run the command given in their arguments: that command is looked at too.
 * The value counts the words that are not options but come before the command (a duration).
 */
const WRAPPERS: Readonly<Record<string, number>> = {
  sudo: 0,
  doas: 0,
  env: 0,
  nice: 0,
  nohup: 0,
  time: 0,
  command: 0,
  builtin: 0,
  exec: 0,
  stdbuf: 0,
  xargs: 0,
  timeout: 1,
};
/** Options of wrappers that take a separate value (`sudo -u root`, `nice -n 5`). */
const WRAPPER_VALUE_OPTIONS = new Set([
  "-u",
  "-g",
  "-n",
  "-C",
  "-D",
  "-h",
  "-p",
  "-s",
  "-k",
  "-I",
  "-L",
  "-P",
  "-E",
  "-d",
  "-a",
  "-i",
  "-o",
  "-e",
  "--signal",
  "--kill-after",
  "--chdir",
  "--unset",
  "--user",
  "--group",
]);

let parserPromise: Promise<Parser> | undefined;

/** Loads the grammar once per process; a failed load is retried by the next call. */
function loadParser(): Promise<Parser> {
  parserPromise ??= (async () => {
    // Both WebAssembly files are modules of base64 text (see wasm/generate.ts for why): no
    // permission is needed to load them, and `deno compile` and `deno publish` take them as
    // they take any module.
    const [{ Parser, Language }, { unpack }, runtime, grammar] = await Promise.all([
      import("web-tree-sitter"),
      import("./wasm/embedded.ts"),
      import("./wasm/web_tree_sitter.ts"),
      import("./wasm/tree_sitter_bash.ts"),
    ]);
    const [wasmBinary, grammarBytes] = await Promise.all([
      unpack(runtime.BASE64),
      unpack(grammar.BASE64),
    ]);
    await Parser.init({ wasmBinary });
    const language = await Language.load(grammarBytes);
    const parser = new Parser();
    parser.setLanguage(language);
    return parser;
  })();
  parserPromise.catch(() => parserPromise = undefined);
  return parserPromise;
}

/** `\x` outside quotes is `x`; a backslash-newline joins lines. */
function unescapeBare(text: string): string {
  return text.replace(/\\(\n|.)/g, (_, c: string) => c === "\n" ? "" : c);
}

/** Inside double quotes only `\$`, `` \` ``, `\"`, `\\` and backslash-newline are escapes. */
function unescapeDouble(text: string): string {
  return text.replace(/\\([$`"\\\n])/g, (_, c: string) => c === "\n" ? "" : c);
}

/** The text of a word after quote removal, or null when it depends on the run. */
function wordOf(node: SyntaxNode): ShellWord {
  switch (node.type) {
    case "word":
      return unescapeBare(node.text);
    case "number":
      return node.text;
    case "raw_string":
      return node.text.slice(1, -1);
    case "string": {
      let out = "";
      for (const child of node.namedChildren) {
        if (child?.type !== "string_content") return null;
        out += unescapeDouble(child.text);
      }
      return out;
    }
    case "concatenation": {
      let out = "";
      for (const child of node.namedChildren) {
        const part = child ? wordOf(child) : null;
        if (part === null) return null;
        out += part;
      }
      return out;
    }
    case "variable_name":
      return node.text;
    case "variable_assignment": {
      // `NAME=value` as one word; `NAME=` when there is no value.
      const name = node.childForFieldName("name")?.text ?? "";
      const value = node.childForFieldName("value");
      const text = value ? wordOf(value) : "";
      return text === null ? null : `${name}=${text}`;
    }
    case "command_name": {
      const inner = node.namedChildren[0];
      return inner ? wordOf(inner) : null;
    }
    default:
      return null;
  }
}

/** The last path component: `/usr/bin/git` is `git`. */
export function baseName(word: string): string {
  return word.slice(word.lastIndexOf("/") + 1);
}

/** The command a wrapper runs (`sudo -u x git push` runs `git push`), if it names one. */
function wrapped(words: ShellWord[]): ShellWord[] | undefined {
  const name = words[0];
  if (name == null) return undefined;
  const skipWords = WRAPPERS[baseName(name)];
  if (skipWords === undefined) return undefined;
  let i = 1;
  let skip = skipWords;
  while (i < words.length) {
    const w = words[i];
    if (w === null || w === undefined) return undefined;
    if (w === "--") {
      i++;
      break;
    }
    if (w.startsWith("-") && w.length > 1) {
      i += WRAPPER_VALUE_OPTIONS.has(w) ? 2 : 1;
    } else if (baseName(name) === "env" && /^[A-Za-z_][A-Za-z0-9_]*=/.test(w)) {
      i++;
    } else if (skip > 0) {
      skip--;
      i++;
    } else break;
  }
  const inner = words.slice(i);
  if (inner.length === 0) return undefined;
  // xargs appends words read from stdin: the command is open-ended.
  return baseName(name) === "xargs" ? [...inner, null] : inner;
}

/** Collects one line's commands; `depth` counts the `bash -c` levels above it. */
class Collector {
  readonly commands: SimpleCommand[] = [];
  readonly unresolvable: string[] = [];

  constructor(readonly parser: Parser) {}

  #unresolvable(why: string): void {
    if (this.unresolvable.length < MAX_SIMPLE_COMMANDS && !this.unresolvable.includes(why)) {
      this.unresolvable.push(why);
    }
  }

  #add(words: ShellWord[], text: string, depth: number): void {
    if (this.commands.length >= MAX_SIMPLE_COMMANDS) {
      return this.#unresolvable(`more than ${MAX_SIMPLE_COMMANDS} simple commands`);
    }
    this.commands.push({ words, text });
    const name = words[0];
    if (name === null || name === undefined) {
      return this.#unresolvable(`the command name of \`${clip(text)}\` depends on the run`);
    }
    const base = baseName(name);
    if (base === "eval") return this.#unresolvable(`\`${clip(text)}\` runs text as commands`);
    if (SHELLS.has(base)) this.#shell(words, text, depth);
    const inner = wrapped(words);
    if (inner) this.#add(inner, text, depth);
  }

  /** A shell as a command: its `-c` string parsed in turn, its stdin commands unknown. */
  #shell(words: ShellWord[], text: string, depth: number): void {
    const args = words.slice(1);
    const c = args.findIndex((w) => w !== null && /^-[a-zA-Z]*c[a-zA-Z]*$/.test(w));
    if (c >= 0) {
      const script = args[c + 1];
      if (script === null || script === undefined) {
        return this.#unresolvable(`the commands \`${clip(text)}\` runs are not written out`);
      }
      if (depth >= MAX_SHELL_NESTING) {
        return this.#unresolvable(`shells nested more than ${MAX_SHELL_NESTING} deep`);
      }
      return this.parse(script, depth + 1);
    }
    const operand = args.find((w) => w === null || !w.startsWith("-") || w === "-");
    if (operand === undefined || operand === "-" || args.includes("-s")) {
      this.#unresolvable(`\`${clip(text)}\` reads its commands from standard input`);
    }
  }

  /** Parses `source` and collects its commands. */
  parse(source: string, depth: number): void {
    if (new TextEncoder().encode(source).length > MAX_SHELL_SOURCE_BYTES) {
      return this.#unresolvable(`the command is longer than ${MAX_SHELL_SOURCE_BYTES} bytes`);
    }
    const tree = this.parser.parse(source);
    if (!tree) return this.#unresolvable("the shell parser gave no result");
    try {
      if (tree.rootNode.hasError) {
        this.#unresolvable(`\`${clip(source)}\` does not parse as bash`);
      }
      this.#walk(tree.rootNode, depth);
    } finally {
      tree.delete();
    }
  }

  /** Visits the tree without recursion, so nesting depth cannot overflow the stack. */
  #walk(root: SyntaxNode, depth: number): void {
    const stack: SyntaxNode[] = [root];
    while (stack.length > 0) {
      const node = stack.pop()!;
      const words = this.#commandWords(node);
      if (words) this.#add(words, node.text, depth);
      const children = node.namedChildren;
      for (let i = children.length - 1; i >= 0; i--) {
        const child = children[i];
        if (child) stack.push(child);
      }
    }
  }

  /** The words of a node that runs a simple command, else undefined. */
  #commandWords(node: SyntaxNode): ShellWord[] | undefined {
    if (node.type === "command") {
      const name = node.childForFieldName("name");
      if (!name) return undefined;
      const args = node.childrenForFieldName("argument").filter((n): n is SyntaxNode => !!n);
      return [wordOf(name), ...args.map(wordOf)];
    }
    if (node.type === "declaration_command" || node.type === "unset_command") {
      // `export A=1 B`, `local x`, `unset y`: the keyword is the first, unnamed, child.
      const keyword = node.child(0)?.text ?? node.type;
      return [keyword, ...node.namedChildren.map((n) => n ? wordOf(n) : null)];
    }
    return undefined;
  }
}

function clip(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > 80 ? `${line.slice(0, 77)}...` : line;
}

/**
 * The simple commands a bash command line runs (through pipes, lists, subshells, `$(…)`,
 * backticks, process substitutions, compound statements, function bodies, `bash -c` strings and
 * wrappers such as `sudo` and `env`), and what in it cannot be resolved from the text.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseShell } from "./shell_commands.ts";
 * const parsed = await parseShell("git status && (cd docs; ls | wc -l)");
 * assert.deepEqual(parsed.commands.map((c) => c.words), [
 *   ["git", "status"], ["cd", "docs"], ["ls"], ["wc", "-l"],
 * ]);
 * assert.deepEqual(parsed.unresolvable, []);
 * assert.equal((await parseShell("$CMD x")).unresolvable.length, 1);
 * ```
 */
export async function parseShell(source: string): Promise<ShellParse> {
  return plainCommand(source) ?? await parseShellTree(source);
}

/**
 * Words bash takes literally: no quotes, expansions, globs, braces, tildes, comments,
 * redirections or operators, and no leading `=` (the grammar reads `==` as an operator). The command name is held tighter (no `=`: an assignment; and
 * nothing the grammar reads otherwise there, such as `a@`).
 */
const PLAIN_WORD = /^[A-Za-z0-9_./:,+@-][A-Za-z0-9_./:,+@=-]*$/;
const PLAIN_NAME = /^[A-Za-z0-9_./][A-Za-z0-9_./+-]*$/;
/** First words bash or the collector treat apart: reserved words, declarations, and below. */
const NOT_PLAIN_FIRST = new Set([
  ...["if", "then", "else", "elif", "fi", "case", "esac", "for", "select", "while", "until"],
  ...["do", "done", "in", "function", "time", "coproc"],
  ...["export", "local", "declare", "readonly", "typeset", "unset", "eval"],
]);

/**
 * The parse of a line that is one simple command of plain words (`echo hi`, `ls -la src`,
 * `git status`), without loading tree-sitter: that load costs a tool turn more than the rest
 * of its work. Undefined for anything else, which the grammar parses. A property test holds it
 * to the grammar's answer.
 */
function plainCommand(source: string): ShellParse | undefined {
  const text = source.trim();
  if (text === "" || text.length > 4096) return undefined;
  const words = text.split(/ +/);
  if (!words.every((w) => PLAIN_WORD.test(w))) return undefined;
  const name = words[0]!;
  if (!PLAIN_NAME.test(name) || NOT_PLAIN_FIRST.has(name)) return undefined;
  const base = baseName(name);
  if (SHELLS.has(base) || base in WRAPPERS || base === "eval") return undefined;
  return { commands: [{ words, text }], unresolvable: [] };
}

/**
 * {@link parseShell} through the grammar always, never the plain-command shortcut: what that
 * shortcut is checked against.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseShellTree } from "./shell_commands.ts";
 * assert.deepEqual((await parseShellTree("ls -la")).commands.map((c) => c.words), [["ls", "-la"]]);
 * ```
 */
export async function parseShellTree(source: string): Promise<ShellParse> {
  const collector = new Collector(await loadParser());
  collector.parse(source, 0);
  return { commands: collector.commands, unresolvable: collector.unresolvable };
}
