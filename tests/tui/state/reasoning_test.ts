import { assert, assertEquals } from "../../support/assert.ts";
import type { ServerEvent } from "../../../protocol/schema.ts";
import { createRenderCache, renderItem, renderLive, type View } from "../../../tui/render.ts";
import { applyKey, drainOutbox, MAX_REASONING_BYTES } from "../../../tui/state/mod.ts";
import { makeStyle } from "../../../tui/text.ts";
import { applyAll, enter, key, notices, readyState, TurnScript } from "../fixtures.ts";
import { assertSnapshot } from "../snapshot.ts";

const view: View = { width: 72, height: 16, style: makeStyle(false), home: "/work" };

function reasoning(t: TurnScript, content: string): ServerEvent {
  const e = t.delta(content) as Extract<ServerEvent, { type: "assistant.delta" }>;
  return { ...e, type: "assistant.reasoning.delta" };
}

function thinking() {
  const s = readyState();
  const [start] = enter(s, "why?");
  const t = new TurnScript(start!.request_id!);
  applyAll(s, [
    t.started(),
    reasoning(t, "First I read the lexer.\n"),
    reasoning(t, "Then the pars"),
  ]);
  drainOutbox(s);
  return { s, t };
}

Deno.test("streaming reasoning shows only its last line, dimmed, in the live region", async () => {
  const { s } = thinking();
  const lines = renderLive(s, view, createRenderCache());
  await assertSnapshot("reasoning_streaming", lines);
  assert(lines.some((l) => l.includes("✻ Then the pars")));
  assert(!lines.some((l) => l.includes("First I read")), "earlier lines are collapsed");
});

Deno.test("reasoning collapses to one line above the answer, never into the answer", async () => {
  const { s, t } = thinking();
  applyAll(s, [t.delta("The parser drops a token."), t.completedText("The parser drops a token.")]);
  const items = drainOutbox(s);
  assertEquals(items[0], { kind: "reasoning", text: "Then the pars", full: false });
  assertEquals(items[1], { kind: "assistant", text: "The parser drops a token." });
  await assertSnapshot("reasoning_collapsed", items.flatMap((i) => renderItem(i, view)));
});

Deno.test("Ctrl+O writes the whole of the last reasoning to the transcript", () => {
  const { s, t } = thinking();
  applyAll(s, [t.completedText("ok"), t.completed()]);
  drainOutbox(s);
  applyKey(s, key("o", { ctrl: true }));
  assertEquals(drainOutbox(s), [{
    kind: "reasoning",
    text: "First I read the lexer.\nThen the pars",
    full: true,
  }]);
});

Deno.test("Ctrl+O with no reasoning yet says so", () => {
  const s = readyState();
  applyKey(s, key("o", { ctrl: true }));
  assert(notices(s)[0]!.startsWith("No reasoning to show yet"));
});

Deno.test("reasoning one byte over the bound is cut, its last line still live, and Ctrl+O says so", () => {
  const s = readyState();
  const [start] = enter(s, "think");
  const t = new TurnScript(start!.request_id!);
  applyAll(s, [
    t.started(),
    reasoning(t, "x".repeat(MAX_REASONING_BYTES)),
    reasoning(t, "\nlast y"),
  ]);
  assertEquals(s.reasoning.bytes, MAX_REASONING_BYTES);
  assert(s.reasoning.cut);
  const live = renderLive(s, view, createRenderCache());
  assert(live.some((l) => l.includes("✻ last y")), live.join("\n"));
  applyKey(s, key("o", { ctrl: true }));
  assert(notices(s).some((n) => n.includes("only its first 256 KiB are kept")));
});

Deno.test("a turn.notice is shown as a warning", () => {
  const s = readyState();
  const [start] = enter(s, "hi");
  const t = new TurnScript(start!.request_id!);
  applyAll(s, [t.started()]);
  const { content: _c, ...env } = t.delta("") as Extract<ServerEvent, { type: "assistant.delta" }>;
  applyAll(s, [{ ...env, type: "turn.notice", message: "The model cannot use tools" }]);
  assert(notices(s).includes("The model cannot use tools"));
});

Deno.test("Ctrl+O while the reasoning streams writes it so far and says that it goes on", () => {
  const { s } = thinking();
  applyKey(s, key("o", { ctrl: true }));
  const items = drainOutbox(s);
  assertEquals(items[0], {
    kind: "reasoning",
    text: "First I read the lexer.\nThen the pars",
    full: true,
  });
  assert(
    items[1]?.kind === "notice" && items[1].text.startsWith("That is the reasoning so far"),
    JSON.stringify(items),
  );
});
