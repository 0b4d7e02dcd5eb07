/**
 * Reading rules files (server/core/rules/load.ts): where they are, their shape, their examples
 * checked at startup, and a workspace's `allow` refused.
 */
import { assert, assertEquals, assertRejects } from "../../../support/assert.ts";
import {
  loadRules,
  loadRulesFile,
  MAX_RULES_FILE_BYTES,
  MAX_RULES_PER_FILE,
  parseRulesText,
  userRulesPath,
  workspaceRulesPath,
} from "../../../../server/core/rules/load.ts";
import { RuleFileError } from "../../../../server/core/rules/rule.ts";
import { BUILTIN_RULES } from "../../../../server/core/rules/builtin.ts";

const env = (vars: Record<string, string>) => (name: string) => vars[name];

Deno.test("the user's rules file is under XDG_CONFIG_HOME when set, else ~/.config", () => {
  assertEquals(userRulesPath(env({ XDG_CONFIG_HOME: "/x", HOME: "/h" })), "/x/scv/rules.jsonc");
  assertEquals(
    userRulesPath(env({ XDG_CONFIG_HOME: "rel", HOME: "/h" })),
    "/h/.config/scv/rules.jsonc",
  );
  assertEquals(userRulesPath(env({})), undefined);
  assertEquals(workspaceRulesPath("/w/"), "/w/.scv/rules.jsonc");
});

Deno.test("the rules in force are the user's, then the workspace's, then the built-ins", async () => {
  const files: Record<string, string> = {
    "/h/.config/scv/rules.jsonc": '[{"tool": "bash", "prefix": ["ls"], "decision": "allow"}]',
    "/w/.scv/rules.jsonc":
      '// comments are fine\n[{"tool": "bash", "prefix": ["rm"], "decision": "deny",},]',
  };
  const rules = await loadRules("/w", {
    env: env({ HOME: "/h" }),
    read: (p) => Promise.resolve(files[p]),
  });
  assertEquals(rules.map((r) => r.source).slice(0, 2), ["user", "workspace"]);
  assertEquals(rules[1]?.file, "/w/.scv/rules.jsonc");
  assertEquals(rules.slice(2), [...BUILTIN_RULES]);
});

Deno.test("no rules files leaves the built-in rules", async () => {
  const rules = await loadRules("/w", {
    env: env({ HOME: "/h" }),
    read: () => Promise.resolve(undefined),
  });
  assertEquals(rules, [...BUILTIN_RULES]);
});

async function refusal(text: string, source: "user" | "workspace" = "user"): Promise<string> {
  const e = await assertRejects(
    () => parseRulesText(text, "/f/rules.jsonc", source),
    RuleFileError,
  );
  return e.message;
}

Deno.test("an allow in a workspace's rules file is an error naming the file and the rule", async () => {
  const m = await refusal(
    '[{"tool": "bash", "prefix": ["ls"], "decision": "ask"}, {"tool": "bash", "prefix": ["ls"], "decision": "allow"}]',
    "workspace",
  );
  assert(m.includes('"/f/rules.jsonc": rule 2') && m.includes("only ask or deny"), m);
});

Deno.test("a rule that misses one of its match examples is an error naming it", async () => {
  const m = await refusal(
    '[{"tool": "bash", "prefix": ["git", "status"], "decision": "allow", "match": ["git status -s", "git stat"]}]',
  );
  assert(m.includes("rule 1") && m.includes('"git stat"'), m);
});

Deno.test("a rule that matches one of its not_match examples is an error naming it", async () => {
  const m = await refusal(
    '[{"tool": "bash", "prefix": ["git"], "decision": "ask", "not_match": ["ls && git stash"]}]',
  );
  assert(m.includes("not_match") && m.includes("git stash"), m);
});

Deno.test("a path rule's examples are paths", async () => {
  const ok = await parseRulesText(
    '[{"tool": "write_file", "path": "docs/**", "decision": "ask", "match": ["docs/a.md", "./docs/x/y"], "not_match": ["src/docs.md"]}]',
    "/f",
    "user",
  );
  assertEquals(ok.length, 1);
  assert(
    (await refusal(
      '[{"tool": "write_file", "path": "docs/**", "decision": "ask", "match": ["src/a"]}]',
    )).includes('"src/a"'),
  );
});

Deno.test("each malformed rule is an error that says what is wrong", async () => {
  const cases: Array<[string, string]> = [
    ['{"tool": "bash"}', "list of rules"],
    ["[1]", "rule 1: must be an object"],
    ['[{"tool": "bash", "decision": "maybe"}]', '"decision" must be'],
    ['[{"decision": "ask"}]', '"tool" must be'],
    ['[{"tool": "bash", "decision": "ask", "prefix": []}]', "at least one word"],
    ['[{"tool": "bash", "decision": "ask", "prefix": "git"}]', '"prefix" must be a list'],
    ['[{"tool": "bash", "decision": "ask", "path": "x"}]', '"path" is not for bash'],
    ['[{"tool": "grep", "decision": "ask", "prefix": ["x"]}]', '"prefix" is for bash'],
    ['[{"tool": "grep", "decision": "ask", "path": "[z-a]"}]', "not a glob"],
    ['[{"tool": "grep", "decision": "ask", "color": "red"}]', 'unknown key "color"'],
    ["[{", "Cannot load rules"],
  ];
  for (const [text, want] of cases) {
    const m = await refusal(text);
    assert(m.startsWith('Cannot load rules "/f/rules.jsonc"') && m.includes(want), `${text}: ${m}`);
  }
});

Deno.test("a file of more rules than the limit is refused, the limit itself is not", async () => {
  const rule = '{"tool": "bash", "prefix": ["ls"], "decision": "ask"}';
  const within = await parseRulesText(
    `[${Array(MAX_RULES_PER_FILE).fill(rule).join(",")}]`,
    "/f",
    "user",
  );
  assertEquals(within.length, MAX_RULES_PER_FILE);
  assert(
    (await refusal(`[${Array(MAX_RULES_PER_FILE + 1).fill(rule).join(",")}]`)).includes(
      "more than",
    ),
  );
});

Deno.test("a rules file over the size limit is refused without being parsed", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/rules.jsonc`;
    await Deno.writeTextFile(path, "[" + " ".repeat(MAX_RULES_FILE_BYTES - 2) + "]");
    assertEquals(await loadRulesFile(path, "user"), []);
    await Deno.writeTextFile(path, "[" + " ".repeat(MAX_RULES_FILE_BYTES - 1) + "]");
    const e = await assertRejects(() => loadRulesFile(path, "user"), RuleFileError);
    assert(e.message.includes(path) && e.message.includes("more than"), e.message);
    assertEquals(await loadRulesFile(`${dir}/missing.jsonc`, "user"), []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
