/** The plan's checklist in the TUI: its rows, bounded in the live region, and its lifetime. */
import { assert, assertEquals } from "../support/assert.ts";
import { createRenderCache, planLines, renderLive, type View } from "../../tui/render.ts";
import { applyEvent, applyKey } from "../../tui/state/mod.ts";
import { makeStyle } from "../../tui/text.ts";
import { applyAll, readyState, TurnScript } from "./fixtures.ts";

const style = makeStyle(false);
const view: View = { width: 60, height: 40, style };

/** 50 steps, the first 30 done and the 31st in progress. */
const LONG = Array.from({ length: 50 }, (_, i) => ({
  text: `step ${i + 1}`,
  status: i < 30 ? "done" as const : i === 30 ? "in_progress" as const : "pending" as const,
}));

function running() {
  const s = readyState();
  applyKey(s, { type: "text", text: "go" });
  applyKey(s, { type: "key", name: "enter", ctrl: false, alt: false, shift: false });
  const t = new TurnScript(s.turn!.requestId);
  applyAll(s, [t.started()]);
  return { s, t };
}

Deno.test("a 50-step plan takes at most 10 live rows and keeps the step in progress in view", () => {
  const { s, t } = running();
  applyEvent(s, t.plan(LONG));
  const live = renderLive(s, view, createRenderCache());
  const first = live.findIndex((l) => l.startsWith("☰ Plan"));
  assert(first !== -1, live.join("\n"));
  const rows = live.slice(first, first + 10);
  assertEquals(rows[0], "☰ Plan · 30 of 50 done");
  assert(rows.includes("  ▸ step 31"), rows.join("\n"));
  // One done step before it for context, then what comes next.
  assertEquals(rows[1], "  ✓ step 30");
  assertEquals(rows[9], "  … 29 above, 13 below");
  // The composer's rule follows the checklist: nothing of the plan past its 10 rows.
  assert(live[first + 10]!.startsWith("─"), live.join("\n"));
});

Deno.test("the transcript gets the whole plan, every step, however long", () => {
  const rows = planLines(LONG, 60, style, LONG.length + 1);
  assertEquals(rows.length, 51);
  assertEquals(rows[50], "  ○ step 50");
});

Deno.test("the checklist leaves the live region when the turn ends; the transcript keeps one copy", () => {
  const { s, t } = running();
  const steps = [{ text: "Fix", status: "in_progress" as const }];
  applyAll(s, [t.plan(steps), t.plan(steps), t.completedText("done")]);
  assertEquals(s.transcript.filter((i) => i.kind === "plan").length, 1);
  assert(renderLive(s, view, createRenderCache()).some((l) => l.includes("▸ Fix")));
  applyEvent(s, { type: "turn.completed", ...envelope(t), steps: 1 });
  assertEquals(s.plan, undefined);
  assert(!renderLive(s, view, createRenderCache()).some((l) => l.includes("▸ Fix")));
});

function envelope(t: TurnScript) {
  return { request_id: t.requestId, session_id: "s1", turn_id: t.turnId, seq: t.seq++ };
}
