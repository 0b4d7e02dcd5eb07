/** Approval rules for web_fetch name a host: checked when read, matched against the URL's host. */
import { assert, assertEquals } from "../../../support/assert.ts";
import { parseRulesText } from "../../../../server/core/rules/load.ts";
import { decide } from "../../../../server/core/rules/decide.ts";
import { describeRule } from "../../../../server/core/rules/rule.ts";

async function loadError(text: string): Promise<string> {
  try {
    await parseRulesText(text, "/u/rules.jsonc", "user");
  } catch (e) {
    return (e as Error).message;
  }
  return "";
}

Deno.test("a web_fetch host rule decides by the URL's host", async () => {
  const rules = await parseRulesText(
    '[{ "tool": "web_fetch", "host": "*.deno.com", "decision": "allow", ' +
      '"match": ["https://docs.deno.com/x"], "not_match": ["https://deno.com/"] }]',
    "/u/rules.jsonc",
    "user",
  );
  const on = (url: string) => decide(rules, { tool: "web_fetch", args: { url }, cwd: "/w" });
  assertEquals(on("https://docs.deno.com/runtime/").decision, "allow");
  assertEquals(on("https://example.com/").decision, undefined);
  assertEquals(describeRule(rules[0]!), "web_fetch on host *.deno.com");
});

Deno.test("a host rule's bad shape is a startup error naming the rule", async () => {
  assert(
    (await loadError('[{ "tool": "bash", "host": "x.com", "decision": "ask" }]'))
      .endsWith('rule 1: "host" is for web_fetch rules'),
  );
  assert(
    (await loadError('[{ "tool": "web_fetch", "host": "http://x.com/", "decision": "ask" }]'))
      .includes('rule 1: "host" must be a host name'),
  );
  assert(
    (await loadError(
      '[{ "tool": "web_fetch", "host": "x.com", "decision": "ask", "match": ["https://y.com/"] }]',
    )).includes('does not match its "match" example "https://y.com/"'),
  );
});

Deno.test("a workspace's rules file may not allow a host", async () => {
  let message = "";
  try {
    await parseRulesText(
      '[{ "tool": "web_fetch", "host": "x.com", "decision": "allow" }]',
      "/w/.scv/rules.jsonc",
      "workspace",
    );
  } catch (e) {
    message = (e as Error).message;
  }
  assert(/allow/.test(message), message);
});
