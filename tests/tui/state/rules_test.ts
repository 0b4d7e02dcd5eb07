/**
 * The TUI's side of approval rules: `a` asks the server to remember the call, a call a rule
 * let run says so, the approval box names the rule that asks, and `/rules` lists the rules.
 */
import { assert, assertEquals } from "../../support/assert.ts";
import type { ServerEvent } from "../../../protocol/schema.ts";
import { applyEvent, applyKey } from "../../../tui/state/mod.ts";
import { createRenderCache, renderLive, type View } from "../../../tui/render.ts";
import { makeStyle } from "../../../tui/text.ts";
import {
  applyAll,
  enter,
  key,
  notices,
  readyState,
  sent,
  TurnScript,
  typeText,
} from "../fixtures.ts";
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

function awaitingEdit(preview: string) {
  const s = readyState();
  const [start] = enter(s, "go");
  const t = new TurnScript(start!.request_id!);
  applyAll(s, [
    t.started(),
    t.proposed("e1", "edit_file", { path: "notes.txt", old_string: "a", new_string: "b" }),
    {
      ...t.approval("e1", "edit_file", "Edit file: notes.txt"),
      risk: "write",
      preview,
    } as ServerEvent,
  ]);
  return s;
}

const SHORT_DIFF = "--- a/notes.txt\n+++ b/notes.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n";
const LONG_DIFF = "--- a/big.txt\n+++ b/big.txt\n@@ -0,0 +1,40 @@\n" +
  Array.from({ length: 40 }, (_, i) => `+line ${i + 1}`).join("\n") + "\n";

Deno.test("an edit's approval box shows the diff it would make", async () => {
  const s = awaitingEdit(SHORT_DIFF);
  await assertSnapshot("approval_preview", renderLive(s, view, createRenderCache()));
});

Deno.test("a long preview scrolls with PgDn and PgUp, the choices always in view", async () => {
  const s = awaitingEdit(LONG_DIFF);
  const first = renderLive(s, view, createRenderCache());
  await assertSnapshot("approval_preview_long", first);
  applyKey(s, key("pagedown"));
  const scrolled = renderLive(s, view, createRenderCache());
  await assertSnapshot("approval_preview_scrolled", scrolled);
  for (const lines of [first, scrolled]) {
    assert(lines.some((l) => l.includes("[y] approve")), lines.join("\n"));
    assert(lines.length <= view.height - 1);
  }
  for (let i = 0; i < 10; i++) applyKey(s, key("pagedown"));
  const last = renderLive(s, view, createRenderCache()).join("\n");
  assert(last.includes("+line 40") && last.includes("of 41"), last);
  applyKey(s, key("pageup"));
  applyKey(s, key("pageup"));
  assert(!renderLive(s, view, createRenderCache()).join("\n").includes("+line 40"));
});

Deno.test("in a short window the choices stay and the preview gives way", () => {
  const s = awaitingEdit(LONG_DIFF);
  const lines = renderLive(s, { ...view, height: 8 }, createRenderCache());
  assert(lines.some((l) => l.includes("[y] approve")), lines.join("\n"));
  assert(lines.length <= 7);
});

Deno.test("without the provider's usage the status line shows scv's own context count", () => {
  const s = readyState();
  const [start] = enter(s, "hi");
  const t = new TurnScript(start!.request_id!);
  const started = t.started();
  const completed = t.completed() as Extract<ServerEvent, { type: "turn.completed" }>;
  const { usage: _, ...withoutUsage } = completed;
  applyAll(s, [started, { ...withoutUsage, context_tokens: 4200 }]);
  assertEquals(s.contextTokens, 4200);
  const status = renderLive(s, view, createRenderCache()).at(-1)!;
  assert(status.includes("ctx 4.2k/128k (3%)"), status);
});

Deno.test("the provider's usage still wins over scv's own count", () => {
  const s = readyState();
  const [start] = enter(s, "hi");
  const t = new TurnScript(start!.request_id!);
  applyAll(s, [t.started(), { ...t.completed(1000, 200), context_tokens: 4200 } as ServerEvent]);
  assertEquals(s.contextTokens, 1200);
});
