/**
 * The README's rules.jsonc example is a valid rules file, and decides as the README says.
 */
import { assert, assertEquals } from "../../../support/assert.ts";
import { parseRulesText } from "../../../../server/core/rules/load.ts";
import { decide } from "../../../../server/core/rules/decide.ts";
import { BUILTIN_RULES } from "../../../../server/core/rules/builtin.ts";
import { parseShell } from "../../../../server/core/rules/shell_commands.ts";

async function readmeExample(): Promise<string> {
  const readme = await Deno.readTextFile(new URL("../../../../README.md", import.meta.url));
  const marker = readme.indexOf("<!-- rules-example:");
  assert(marker >= 0, "the README's rules example marker is gone");
  const start = readme.indexOf("```jsonc\n", marker) + "```jsonc\n".length;
  return readme.slice(start, readme.indexOf("```", start));
}

Deno.test("the README's rules example loads as a user rules file", async () => {
  const rules = await parseRulesText(await readmeExample(), "README.md", "user");
  assertEquals(rules.length, 6);
});

Deno.test("the README's rules example decides as the README says", async () => {
  const rules = [
    ...await parseRulesText(await readmeExample(), "README.md", "user"),
    ...BUILTIN_RULES,
  ];
  const bash = async (command: string) =>
    decide(rules, { tool: "bash", args: { command }, cwd: "/w", shell: await parseShell(command) });
  assertEquals((await bash("git status -s && npm test")).decision, "allow");
  const publish = await bash("npm test && npm publish");
  assertEquals(publish.decision, "deny");
  assertEquals(publish.rule?.justification, "releases are published by CI");
  assertEquals((await bash("git push --force")).decision, "ask");
  assertEquals(
    decide(rules, { tool: "write_file", args: { path: "docs/a.md" }, cwd: "/w" }).decision,
    "allow",
  );
  assertEquals(
    decide(rules, { tool: "mcp__github__create_issue", args: {}, cwd: "/w" }).rule?.justification,
    "it acts on GitHub as you",
  );
});
