/**
 * The TUI's side of approval rules: `a` asks the server to remember the call, a call a rule
 * let run says so, the approval box names the rule that asks, and `/rules` lists the rules.
 */
import { assert, assertEquals } from "../../support/assert.ts";
import type { ServerEvent } from "../../../protocol/schema.ts";
import { applyEvent } from "../../../tui/state/mod.ts";
import { createRenderCache, renderLive, type View } from "../../../tui/render.ts";
import { makeStyle } from "../../../tui/text.ts";
import { applyAll, enter, notices, readyState, sent, TurnScript, typeText } from "../fixtures.ts";
import { assertSnapshot } from "../snapshot.ts";

const view: View = { width: 72, height: 20, style: makeStyle(false), home: "/work" };

function awaiting(extra: Partial<Extract<ServerEvent, { type: "approval.requested" }>> = {}) {
  const s = readyState();
  const [start] = enter(s, "go");
  const t = new TurnScript(start!.request_id!);
  applyAll(s, [
    t.started(),
    t.proposed("c1", "bash", { command: "git push --force" }),
    { ...t.approval("c1", "bash", "Run shell command: git push --force"), ...extra } as ServerEvent,
  ]);
  return { s, t };
}

const BUILTIN_RULE = {
  source: "builtin" as const,
  description: "bash git push --force",
  decision: "ask" as const,
  index: 5,
  justification: "a force push overwrites the remote's history",
};

Deno.test("a: asks the server to remember the call for the session", () => {
  const { s } = awaiting();
  const answer = sent(typeText(s, "a"))[0];
  assert(answer?.type === "approval.resolve", JSON.stringify(answer));
  assertEquals(answer.approved, true);
  assertEquals(answer.remember, "session");
  assert(notices(s).includes("Always allowing bash `git push --force` in this session"));
});

Deno.test("y answers once, without remember", () => {
  const { s } = awaiting();
  const answer = sent(typeText(s, "y"))[0];
  assert(answer?.type === "approval.resolve" && answer.remember === undefined);
});

Deno.test("a call a session rule let run says so in the transcript", () => {
  const s = readyState();
  const [start] = enter(s, "go");
  const t = new TurnScript(start!.request_id!);
  applyAll(s, [
    t.started(),
    t.proposed("c2", "bash", { command: "make test" }),
    { ...t.toolStarted("c2", "bash"), auto_approved: "session rule" } as ServerEvent,
  ]);
  assert(notices(s).includes("Allowed without asking (always allow bash `make test`)"));
});

Deno.test("the approval box says which rule asked", async () => {
  const { s } = awaiting({ rule: BUILTIN_RULE });
  assertEquals(s.approval?.rule, BUILTIN_RULE);
  const lines = renderLive(s, view, createRenderCache());
  await assertSnapshot("approval_rule", lines);
});

Deno.test("/rules asks for the rules in force and shows the answer", () => {
  const s = readyState();
  const [ask] = enter(s, "/rules");
  assert(ask?.type === "rules.list", JSON.stringify(ask));
  applyEvent(s, {
    type: "rules.list",
    request_id: ask.request_id!,
    session_id: ask.session_id,
    rules: [
      {
        source: "user",
        description: "bash git status",
        decision: "allow",
        file: "/home/u/.config/scv/rules.jsonc",
        index: 1,
      },
      BUILTIN_RULE,
    ],
    omitted: 2,
  });
  const text = notices(s).at(-1)!;
  assert(text.includes("allow bash git status (/home/u/.config/scv/rules.jsonc rule 1)"), text);
  assert(
    text.includes("ask   bash git push --force (built-in rule 5): a force push overwrites"),
    text,
  );
  assert(text.includes("2 more not shown"), text);
});
