/**
 * web_fetch's risk `network` in the turn: it asks under on-risk and auto, and a rule allowing
 * the host lets it run without asking.
 */
import { assert, assertEquals } from "../../support/assert.ts";
import { answer, call, callTools, eventsOf, runScripted, ScriptedApprovals } from "./support.ts";
import { Session } from "../../../server/core/session.ts";
import { BUILTIN_RULES } from "../../../server/core/rules/builtin.ts";
import { parseRulesText } from "../../../server/core/rules/load.ts";
import { createWebFetchTool } from "../../../server/tools/web_fetch.ts";
import { loopbackOnlyNet, startSite } from "../tools/web/site.ts";
import type { ApprovalPolicy } from "../../../server/config.ts";

async function fetchOnce(policy: ApprovalPolicy, rulesText?: string) {
  const site = startSite();
  try {
    const session = new Session("/workspace");
    if (rulesText !== undefined) {
      session.rules = [
        ...await parseRulesText(rulesText, "/u/rules.jsonc", "user"),
        ...BUILTIN_RULES,
      ];
    }
    const approvals = new ScriptedApprovals();
    const ran = await runScripted({
      session,
      approvals,
      config: { approval_policy: policy },
      tools: [createWebFetchTool({ allow: ["127.0.0.1"], net: loopbackOnlyNet() })],
      steps: [callTools([call("c1", "web_fetch", { url: `${site.origin}/text` })]), answer("ok")],
    });
    return { ran, approvals, paths: [...site.log.paths] };
  } finally {
    await site.close();
  }
}

Deno.test("web_fetch asks under on-risk with risk network", async () => {
  const { ran, approvals, paths } = await fetchOnce("on-risk");
  assertEquals(approvals.requests.map((r) => [r.name, r.risk]), [["web_fetch", "network"]]);
  assert(approvals.requests[0]!.summary.startsWith("Fetch web page: http://127.0.0.1:"));
  assertEquals(paths, ["/text"]);
  assert(eventsOf(ran.events, "tool.completed")[0]!.success);
});

Deno.test("web_fetch asks under auto", async () => {
  const { approvals } = await fetchOnce("auto");
  assertEquals(approvals.requests.length, 1);
});

Deno.test("a rule allowing the host lets web_fetch run without asking", async () => {
  for (const policy of ["on-risk", "auto"] as const) {
    const { ran, approvals, paths } = await fetchOnce(
      policy,
      '[{ "tool": "web_fetch", "host": "127.0.0.1", "decision": "allow", "match": ["http://127.0.0.1:1/"] }]',
    );
    assertEquals(approvals.requests.length, 0, policy);
    assertEquals(paths, ["/text"]);
    assertEquals(eventsOf(ran.events, "tool.started")[0]!.auto_approved, "rule");
  }
});

Deno.test("a rule for another host still asks", async () => {
  const { approvals } = await fetchOnce(
    "on-risk",
    '[{ "tool": "web_fetch", "host": "docs.deno.com", "decision": "allow" }]',
  );
  assertEquals(approvals.requests.length, 1);
});

Deno.test("a deny rule on the host refuses web_fetch without asking or sending", async () => {
  const { ran, approvals, paths } = await fetchOnce(
    "never",
    '[{ "tool": "web_fetch", "host": "127.0.0.1", "decision": "deny", "justification": "no" }]',
  );
  assertEquals(approvals.requests.length, 0);
  assertEquals(paths, []);
  assert(!eventsOf(ran.events, "tool.completed")[0]!.success);
});
