/**
 * `scv rules check` through the real `main.ts`: the decision and the rule for a command, with
 * the user's and the workspace's rules files, and a bad rules file as exit status 2.
 */
import { assertEquals, assertMatch } from "../support/assert.ts";
import { SERVER_FLAGS } from "../support/server_process.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;

async function check(
  words: string[],
  files: { user?: string; workspace?: string } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const dir = await Deno.makeTempDir({ prefix: "scv-rules-" });
  try {
    await Deno.mkdir(`${dir}/cfg/scv`, { recursive: true });
    await Deno.mkdir(`${dir}/ws/.scv`, { recursive: true });
    if (files.user) await Deno.writeTextFile(`${dir}/cfg/scv/rules.jsonc`, files.user);
    if (files.workspace) await Deno.writeTextFile(`${dir}/ws/.scv/rules.jsonc`, files.workspace);
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", ...SERVER_FLAGS, MAIN, "rules", "check", "--cwd", `${dir}/ws`, "--", ...words],
      env: { XDG_CONFIG_HOME: `${dir}/cfg`, XDG_STATE_HOME: `${dir}/state`, NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    return {
      code: out.code,
      stdout: new TextDecoder().decode(out.stdout),
      stderr: new TextDecoder().decode(out.stderr),
    };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("scv rules check prints the built-in rule that asks about a force push", async () => {
  const out = await check(["git", "push", "--force", "origin"]);
  assertEquals(out.code, 0, out.stderr);
  assertMatch(out.stdout, /^ask: bash git push --force \(built-in rule \d+\): a force push/);
});

Deno.test("scv rules check names the user's and the workspace's rules", async () => {
  const user = '[{"tool": "bash", "prefix": ["npm", "test"], "decision": "allow"}]';
  const workspace =
    '[{"tool": "bash", "prefix": ["npm", "publish"], "decision": "deny", "justification": "CI publishes"}]';
  const allowed = await check(["npm test"], { user, workspace });
  assertMatch(allowed.stdout, /^allow: bash npm test \(.*cfg\/scv\/rules\.jsonc rule 1\)/);
  const denied = await check(["npm test && npm publish"], { user, workspace });
  assertMatch(
    denied.stdout,
    /^deny: bash npm publish \(.*ws\/\.scv\/rules\.jsonc rule 1\): CI publishes/,
  );
  assertMatch(denied.stdout, /\n {2}allow +npm test/);
  assertMatch(denied.stdout, /\n {2}deny +npm publish/);
});

Deno.test("scv rules check says when no rule decides and the policy does", async () => {
  const out = await check(["make", "all"]);
  assertMatch(out.stdout, /^policy: no rule decides; approval_policy "on-risk" does/);
});

Deno.test("scv rules check reports an unresolvable command as asking", async () => {
  const out = await check(["eval $(cat cmd.txt)"]);
  assertMatch(out.stdout, /^ask: a command whose effect the shell parser cannot resolve/);
  assertMatch(out.stdout, /unresolvable: `eval \$\(cat cmd.txt\)` runs text as commands/);
});

Deno.test("scv rules check exits 2 naming a workspace rules file that allows", async () => {
  const out = await check(["ls"], {
    workspace: '[{"tool": "bash", "prefix": ["ls"], "decision": "allow"}]',
  });
  assertEquals(out.code, 2);
  assertMatch(
    out.stderr,
    /Cannot load rules ".*\.scv\/rules\.jsonc": rule 1: a workspace's rules may only ask or deny/,
  );
});
