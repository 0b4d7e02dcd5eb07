/**
 * `parseShell`'s shortcut for a line of plain words gives exactly what the tree-sitter grammar
 * gives, for any such line and for lines just outside what the shortcut takes.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { parseShell, parseShellTree } from "../../../../server/core/rules/shell_commands.ts";

const CHARS = "abcxyzABZ019_./:,+@=%-";
const word = fc.string({ unit: fc.constantFrom(...CHARS), minLength: 1, maxLength: 8 });
const names = ["ls", "git", "echo", "cat", "rm", "make", "deno", "-x", ".", "a.b", "x:y"];
const line = fc.tuple(
  fc.oneof(fc.constantFrom(...names), word),
  fc.array(word, { maxLength: 6 }),
  fc.constantFrom(" ", "  ", "   "),
  fc.constantFrom("", " ", "  "),
).map(([name, args, sep, pad]) => pad + [name, ...args].join(sep) + pad);

Deno.test("parseShell of a line of plain words equals the grammar's parse", async () => {
  await fc.assert(
    fc.asyncProperty(line, async (source) => {
      assert.deepEqual(await parseShell(source), await parseShellTree(source), source);
    }),
    { numRuns: 5000 },
  );
});

Deno.test("parseShell of lines the shortcut leaves alone equals the grammar's parse", async () => {
  for (
    const source of [
      "A=1 ls",
      "export A=1",
      "sudo rm -rf x",
      "bash -c ls",
      "eval ls",
      "for x in a; do ls; done",
      "time ls",
      "echo 'a b'",
      "ls *.ts",
      "echo ~",
      "echo a#b",
      "ls\tsrc",
      "%1",
      "",
    ]
  ) {
    assert.deepEqual(await parseShell(source), await parseShellTree(source), source);
  }
});
