/**
 * The built-in destructive-command rules (server/core/rules/builtin.ts): what each asks about,
 * and the near misses it leaves alone.
 */
import { assertEquals } from "../../../support/assert.ts";
import { decide } from "../../../../server/core/rules/decide.ts";
import { BUILTIN_RULES } from "../../../../server/core/rules/builtin.ts";
import { parseShell } from "../../../../server/core/rules/shell_commands.ts";

const CWD = "/work/project";

async function asks(command: string): Promise<boolean> {
  const shell = await parseShell(command);
  return decide(BUILTIN_RULES, { tool: "bash", args: { command }, cwd: CWD, shell }).decision ===
    "ask";
}

const TABLE: Array<[string, string[], string[]]> = [
  ["git reset --hard", ["git reset --hard", "git -C x reset --hard HEAD~2"], [
    "git reset HEAD~1",
    "git reset --soft x",
  ]],
  ["git clean -f", ["git clean -fd", "git clean --force", "git clean -xdf"], [
    "git clean -n",
    "git clean",
  ]],
  [
    "git checkout -- and git restore",
    ["git checkout -- a.txt", "git checkout .", "git restore a"],
    [
      "git checkout main",
      "git checkout -b new",
    ],
  ],
  ["git push --force", [
    "git push -f",
    "git push --force origin",
    "git push origin +main",
    "git push --force-with-lease",
  ], [
    "git push",
    "git push origin main",
  ]],
  ["git branch -D", ["git branch -D x", "git branch --delete --force x"], [
    "git branch -d x",
    "git branch new",
  ]],
  ["rm -r of the workspace, a home or /", [
    "rm -rf /",
    "rm -r ~",
    "rm -rf .",
    "rm -fr ~/",
    "sudo rm -rf /",
    "rm -R *",
    "rm -rf $HOME",
    "rm -rf $DIR",
  ], [
    "rm -rf build",
    "rm ./x",
    "rm -f /tmp/x",
  ]],
];

for (const [name, asked, left] of TABLE) {
  Deno.test(`the built-in rule for ${name} asks about its commands and no others`, async () => {
    for (const c of asked) assertEquals(await asks(c), true, c);
    for (const c of left) assertEquals(await asks(c), false, c);
  });
}

Deno.test("a write under .git/ through a file tool asks", () => {
  const v = (tool: string, path: string) =>
    decide(BUILTIN_RULES, { tool, args: { path, content: "" }, cwd: CWD }).decision;
  assertEquals(v("write_file", ".git/config"), "ask");
  assertEquals(v("edit_file", "sub/.git/hooks/pre-commit"), "ask");
  assertEquals(v("write_file", `${CWD}/.git/HEAD`), "ask");
  assertEquals(v("write_file", ".gitignore"), undefined);
  assertEquals(v("read_file", ".git/config"), undefined);
});
