/**
 * End-to-end: the model's plan in the TUI, in tmux against the real server (docs/plan_mode.md).
 * While the turn runs the plan is a checklist right above the composer; the transcript gets it
 * once per change (the same plan sent again is not repeated); when the turn ends the checklist
 * leaves, and a resumed session shows the plan again.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { text, textChunk, toolCalls } from "../support/mock_openai.ts";
import { count, E2E_OPTS as opts, withTui } from "./e2e_support.ts";

/** The model sets a plan of two steps with these states. */
const plan = (id: string, first: string, second: string) =>
  toolCalls([{
    id,
    name: "update_plan",
    arguments: {
      steps: [{ text: "Read the code", status: first }, { text: "Fix the bug", status: second }],
    },
  }]);

/** The lines right above the composer's top rule. */
function aboveComposer(pane: string, n: number): string[] {
  const lines = pane.split("\n");
  const rules = lines.flatMap((l, i) => (/^─{10,}\s*$/.test(l) ? [i] : []));
  const top = rules.at(-2) ?? 0;
  return lines.slice(Math.max(0, top - n), top).map((l) => l.trimEnd());
}

Deno.test(
  "e2e: the plan is a checklist above the composer while the turn runs, and once per change in the transcript",
  opts,
  async () => {
    await withTui({
      script: [
        plan("p1", "in_progress", "pending"),
        plan("p2", "in_progress", "pending"),
        plan("p3", "done", "in_progress"),
        // The turn then streams a little and waits, so the live checklist can be seen.
        { kind: "stream", events: [textChunk("Working")], hang: true },
      ],
      config: { approval_policy: "always" },
    }, async (s) => {
      s.type("fix the bug");
      s.keys("Enter");
      const pane = await s.waitFor("Working");
      assertEquals(aboveComposer(pane, 3), [
        "☰ Plan · 1 of 2 done",
        "  ✓ Read the code",
        "  ▸ Fix the bug",
      ]);
      // Never an approval, though the policy asks for everything.
      assert(!pane.includes("Approve"), pane);
      s.keys("Escape");
      const after = await s.waitFor("Turn cancelled");
      // The live checklist is gone; the transcript holds the two different plans, once each.
      const all = s.capture(true);
      assertEquals(count(all, "☰ Plan · 0 of 2 done"), 1, all);
      assertEquals(count(all, "☰ Plan · 1 of 2 done"), 1, all);
      assert(!aboveComposer(after, 3).some((l) => l.includes("Fix the bug")), after);
      // The successful update_plan calls show as the plan, not as tool results.
      assertEquals(count(all, "✓ update_plan"), 0, all);
    });
  },
);

Deno.test("e2e: a resumed session shows the plan it recorded", opts, async () => {
  await withTui({
    script: [plan("p1", "done", "in_progress"), text("Half way.")],
  }, async (s) => {
    s.type("fix the bug");
    s.keys("Enter");
    await s.waitFor("Half way.");
    s.keys("C-d");
    await s.waitFor("tui-exit-status=0");
    await s.relaunch(["-c"]);
    const pane = await s.waitFor("Resumed session");
    assert(pane.includes("☰ Plan · 1 of 2 done"), pane);
    assert(pane.includes("▸ Fix the bug"), pane);
  });
});
