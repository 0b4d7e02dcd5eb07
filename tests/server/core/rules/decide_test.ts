/**
 * The rules' decision (server/core/rules/decide.ts): strictest wins, every simple command of a
 * bash line must be allowed, unresolvable parts ask, built-ins under user rules, session rules.
 */
import { assert, assertEquals } from "../../../support/assert.ts";
import { decide, type RuleVerdict } from "../../../../server/core/rules/decide.ts";
import type { Rule } from "../../../../server/core/rules/rule.ts";
import { BUILTIN_RULES } from "../../../../server/core/rules/builtin.ts";
import { SessionRules } from "../../../../server/core/rules/session_rules.ts";
import { canonicalJson } from "../../../../server/core/rules/canonical_json.ts";
import { parseShell } from "../../../../server/core/rules/shell_commands.ts";

const CWD = "/work/project";

function rule(r: Partial<Rule> & Pick<Rule, "decision">, index = 1): Rule {
  return { tool: "bash", source: "user", index, ...r };
}

async function bash(rules: readonly Rule[], command: string): Promise<RuleVerdict> {
  return decide(rules, {
    tool: "bash",
    args: { command },
    cwd: CWD,
    shell: await parseShell(command),
  });
}

const allowGit = rule({ prefix: ["git", "status"], decision: "allow" }, 1);
const allowLs = rule({ prefix: ["ls"], decision: "allow" }, 2);
const askPush = rule({ prefix: ["git", "push"], decision: "ask" }, 3);
const denyCurl = rule({ prefix: ["curl"], decision: "deny", justification: "no network" }, 4);
const RULES = [allowGit, allowLs, askPush, denyCurl];

Deno.test("a command covered by an allow rule is allowed by it", async () => {
  const v = await bash(RULES, "git status -s");
  assertEquals(v.decision, "allow");
  assertEquals(v.rule, allowGit);
});

Deno.test("a command no rule covers is left to the approval policy", async () => {
  assertEquals((await bash(RULES, "make test")).decision, undefined);
});

Deno.test("a pipeline is allowed only when every command in it is", async () => {
  assertEquals((await bash(RULES, "git status | ls")).decision, "allow");
  assertEquals((await bash(RULES, "git status | wc -l")).decision, undefined);
});

Deno.test("one denied command in a list denies the whole line with its rule", async () => {
  const v = await bash(RULES, "git status && ls; curl https://x");
  assertEquals(v.decision, "deny");
  assertEquals(v.rule?.justification, "no network");
});

Deno.test("a command inside a subshell or a substitution is decided too", async () => {
  assertEquals((await bash(RULES, "ls && (git status; curl x)")).decision, "deny");
  assertEquals((await bash(RULES, "ls $(git push)")).decision, "ask");
  assertEquals((await bash(RULES, "ls `curl x`")).decision, "deny");
});

Deno.test("the strictest matching rule wins over a broader allow", async () => {
  const rules = [
    rule({ prefix: ["git"], decision: "allow" }, 1),
    rule({ prefix: ["git", "push"], decision: "ask" }, 2),
    rule({ prefix: ["git", "push", "origin"], decision: "deny" }, 3),
  ];
  assertEquals((await bash(rules, "git log")).decision, "allow");
  assertEquals((await bash(rules, "git push")).decision, "ask");
  assertEquals((await bash(rules, "git push origin main")).decision, "deny");
});

Deno.test("an unresolvable command asks even where every known command is allowed", async () => {
  const v = await bash([rule({ decision: "allow" })], "ls; $CMD");
  assertEquals(v.decision, "ask");
  assert(v.unresolvable?.includes("command name"));
  assertEquals((await bash(RULES, "eval git status")).decision, "ask");
});

Deno.test("a deny wins over an unresolvable part", async () => {
  assertEquals((await bash(RULES, "$X; curl x")).decision, "deny");
});

Deno.test("an unknown word never satisfies an allow but may match a deny", async () => {
  const rules = [
    rule({ prefix: ["git", "status"], decision: "allow" }, 1),
    rule({ prefix: ["rm", "-rf"], decision: "deny" }, 2),
  ];
  assertEquals((await bash(rules, 'git "$SUB"')).decision, undefined);
  assertEquals((await bash(rules, 'rm "$FLAGS" x')).decision, "deny");
});

Deno.test("an allow needs the exact command name, a deny also matches its base name", async () => {
  assertEquals((await bash([allowLs], "./ls")).decision, undefined);
  assertEquals((await bash([denyCurl], "/usr/bin/curl x")).decision, "deny");
});

Deno.test("a command behind sudo or env is decided as itself too", async () => {
  assertEquals((await bash(RULES, "env A=1 curl x")).decision, "deny");
  assertEquals(
    (await bash([...RULES, rule({ prefix: ["env"], decision: "allow" })], "env ls"))
      .decision,
    "allow",
  );
});

Deno.test("an empty command is left to the policy", async () => {
  assertEquals((await bash(RULES, "")).decision, undefined);
});

Deno.test("a bash call without its parse asks", () => {
  const v = decide(RULES, { tool: "bash", args: { command: "ls" }, cwd: CWD });
  assertEquals(v.decision, "ask");
});

Deno.test("a path rule covers the tool on paths its glob matches, relative to the workspace", () => {
  const docs = rule({ tool: "write_file", path: "docs/**", decision: "allow" });
  const call = (path: string) =>
    decide([docs], { tool: "write_file", args: { path, content: "" }, cwd: CWD });
  assertEquals(call("docs/a/b.md").decision, "allow");
  assertEquals(call("./docs/../docs/x.md").decision, "allow");
  assertEquals(call(`${CWD}/docs/x.md`).decision, "allow");
  assertEquals(call("src/x.ts").decision, undefined);
  assertEquals(call("../other/docs/x.md").decision, undefined);
  assertEquals(
    decide([docs], { tool: "edit_file", args: { path: "docs/a" }, cwd: CWD }).decision,
    undefined,
  );
});

Deno.test("an absolute path glob matches the absolute path", () => {
  const etc = rule({ tool: "read_file", path: "/etc/**", decision: "deny" });
  assertEquals(
    decide([etc], { tool: "read_file", args: { path: "../../../etc/passwd" }, cwd: CWD }).decision,
    "deny",
  );
});

Deno.test("a tool pattern with * covers every tool of an MCP server", () => {
  const gh = rule({ tool: "mcp__github__*", decision: "ask" });
  assertEquals(
    decide([gh], { tool: "mcp__github__create_issue", args: {}, cwd: CWD }).decision,
    "ask",
  );
  assertEquals(decide([gh], { tool: "mcp__gitlab__x", args: {}, cwd: CWD }).decision, undefined);
  const exact = rule({ tool: "mcp__github__create_issue", decision: "deny" });
  assertEquals(
    decide([exact], { tool: "mcp__github__create_issue", args: {}, cwd: CWD }).decision,
    "deny",
  );
});

Deno.test("a built-in rule asks for a destructive command no user rule covers", async () => {
  const v = await bash([...RULES, ...BUILTIN_RULES], "git status && git reset --hard HEAD~1");
  assertEquals(v.decision, "ask");
  assertEquals(v.rule?.source, "builtin");
  assertEquals(v.rule?.prefix, ["git", "reset", "--hard"]);
});

Deno.test("a user rule as specific as a built-in overrides it, a broader one does not", async () => {
  const broad = rule({ prefix: ["git"], decision: "allow" });
  const exact = rule({ prefix: ["git", "push", "--force"], decision: "allow" });
  assertEquals((await bash([broad, ...BUILTIN_RULES], "git push --force")).decision, "ask");
  assertEquals((await bash([exact, ...BUILTIN_RULES], "git push --force")).decision, "allow");
});

Deno.test("a session rule allows that exact command over an ask, never over a deny", async () => {
  const session = new SessionRules();
  session.remember({ tool: "bash", args: { command: "git push" }, cwd: CWD });
  session.remember({ tool: "bash", args: { command: "curl x" }, cwd: CWD });
  const rules = [...RULES, ...session.list];
  const pushed = await bash(rules, "git push");
  assertEquals(pushed.decision, "allow");
  assertEquals(pushed.rule?.source, "session");
  assertEquals((await bash(rules, "git push origin")).decision, "ask");
  assertEquals((await bash(rules, "curl x")).decision, "deny");
});

Deno.test("a session rule allows the tool on that path, or on those exact arguments", () => {
  const session = new SessionRules();
  session.remember({ tool: "write_file", args: { path: "a.txt", content: "1" }, cwd: CWD });
  session.remember({ tool: "mcp__x__y", args: { b: 1, a: 2 }, cwd: CWD });
  const rules = session.list;
  const v = (tool: string, args: unknown) => decide(rules, { tool, args, cwd: CWD }).decision;
  assertEquals(v("write_file", { path: "./a.txt", content: "2" }), "allow");
  assertEquals(v("write_file", { path: "b.txt", content: "2" }), undefined);
  assertEquals(v("edit_file", { path: "a.txt" }), undefined);
  assertEquals(v("mcp__x__y", { a: 2, b: 1 }), "allow");
  assertEquals(v("mcp__x__y", { a: 3, b: 1 }), undefined);
});

Deno.test("session rules keep at most their limit, forgetting the oldest", () => {
  const session = new SessionRules(2);
  for (const command of ["a", "b", "c"]) {
    session.remember({ tool: "bash", args: { command }, cwd: CWD });
  }
  assertEquals(session.list.map((r) => r.exact?.command), ["b", "c"]);
});

Deno.test("a call too long to remember is not remembered", () => {
  const session = new SessionRules();
  assertEquals(
    session.remember({ tool: "bash", args: { command: "x".repeat(16 * 1024 + 1) }, cwd: CWD }),
    undefined,
  );
  assert(session.remember({ tool: "bash", args: { command: "x".repeat(16 * 1024) }, cwd: CWD }));
});

Deno.test("canonical JSON sorts keys at every depth", () => {
  assertEquals(
    canonicalJson({ b: 1, a: { d: [2, { z: 0, y: 1 }], c: null } }),
    canonicalJson({ a: { c: null, d: [2, { y: 1, z: 0 }] }, b: 1 }),
  );
  assertEquals(canonicalJson({ b: 1, a: 2 }), '{"a":2,"b":1}');
});
