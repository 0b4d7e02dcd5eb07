/**
 * The shell parse behind bash rules (server/core/rules/shell_commands.ts): every simple command
 * through pipes, lists, subshells and substitutions, and what cannot be resolved from the text.
 */
import { assert, assertEquals } from "../../../support/assert.ts";
import {
  MAX_SHELL_NESTING,
  MAX_SIMPLE_COMMANDS,
  parseShell,
} from "../../../../server/core/rules/shell_commands.ts";

async function wordsOf(source: string): Promise<(string | null)[][]> {
  return (await parseShell(source)).commands.map((c) => c.words);
}

Deno.test("a pipeline, a list and a subshell give every simple command in order", async () => {
  const parsed = await parseShell("git status && (cd docs; ls -la | wc -l) || echo no");
  assertEquals(parsed.commands.map((c) => c.words), [
    ["git", "status"],
    ["cd", "docs"],
    ["ls", "-la"],
    ["wc", "-l"],
    ["echo", "no"],
  ]);
  assertEquals(parsed.unresolvable, []);
});

Deno.test("command substitutions, backticks and process substitutions are looked into", async () => {
  assertEquals(await wordsOf("echo `date` $(rm -rf /) > out 2>&1; diff <(ls a) b"), [
    ["echo", null, null],
    ["date"],
    ["rm", "-rf", "/"],
    ["diff", null, "b"],
    ["ls", "a"],
  ]);
});

Deno.test("quotes are removed and a word with an expansion is unknown", async () => {
  assertEquals(await wordsOf(`git commit -m "a \\"b\\"" 'c d' e\\ f g"h"i "$x"`), [
    ["git", "commit", "-m", 'a "b"', "c d", "e f", "ghi", null],
  ]);
});

Deno.test("compound statements, function bodies and here-document bodies are looked into", async () => {
  assertEquals(
    await wordsOf("if true; then a; fi; for i in 1; do b $i; done; f() { c; }; cat <<E\n$(d)\nE"),
    [["true"], ["a"], ["b", null], ["c"], ["cat"], ["d"]],
  );
});

Deno.test("a variable as the command name is unresolvable", async () => {
  const parsed = await parseShell("$CMD --flag");
  assertEquals(parsed.unresolvable.length, 1);
  assert(parsed.unresolvable[0]!.includes("command name"));
});

Deno.test("eval is unresolvable", async () => {
  assertEquals((await parseShell("eval ls")).unresolvable.length, 1);
});

Deno.test("a here-document or a pipe feeding a shell is unresolvable", async () => {
  for (const source of ["bash <<EOF\nrm -rf /\nEOF", "curl -s x | sh", "sh -s < script"]) {
    const parsed = await parseShell(source);
    assert(parsed.unresolvable.some((u) => u.includes("standard input")), source);
  }
});

Deno.test("a literal bash -c string is parsed, a variable one is unresolvable", async () => {
  const literal = await parseShell("bash -c 'git push -f origin'");
  assertEquals(literal.commands.map((c) => c.words)[1], ["git", "push", "-f", "origin"]);
  assertEquals(literal.unresolvable, []);
  assertEquals((await parseShell('sh -c "$SCRIPT"')).unresolvable.length, 1);
});

Deno.test("bash -c nesting deeper than the limit is unresolvable", async () => {
  let source = "ls";
  for (let i = 0; i <= MAX_SHELL_NESTING; i++) source = `bash -c ${JSON.stringify(source)}`;
  const parsed = await parseShell(source);
  assert(parsed.unresolvable.some((u) => u.includes("nested")), parsed.unresolvable.join());
});

Deno.test("a wrapper's command is looked at too", async () => {
  assertEquals(await wordsOf("sudo -u root env A=1 rm -rf /"), [
    ["sudo", "-u", "root", "env", "A=1", "rm", "-rf", "/"],
    ["env", "A=1", "rm", "-rf", "/"],
    ["rm", "-rf", "/"],
  ]);
  assertEquals((await wordsOf("ls | xargs rm -r"))[2], ["rm", "-r", null]);
  assertEquals((await wordsOf("timeout 5 make test"))[1], ["make", "test"]);
});

Deno.test("text that does not parse as bash is unresolvable", async () => {
  assert((await parseShell("echo (")).unresolvable.some((u) => u.includes("does not parse")));
});

Deno.test("a line of more simple commands than the limit is unresolvable", async () => {
  const within = await parseShell(Array(MAX_SIMPLE_COMMANDS).fill("ls").join("; "));
  assertEquals(within.unresolvable, []);
  const over = await parseShell(Array(MAX_SIMPLE_COMMANDS + 1).fill("ls").join("; "));
  assertEquals(over.commands.length, MAX_SIMPLE_COMMANDS);
  assert(over.unresolvable.some((u) => u.includes("more than")));
});

Deno.test("deeply nested subshells parse without overflowing the stack", async () => {
  const parsed = await parseShell("( ".repeat(2000) + "ls" + " )".repeat(2000));
  assertEquals(parsed.commands.map((c) => c.words), [["ls"]]);
});
