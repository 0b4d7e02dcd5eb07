import { assertEquals } from "../../support/assert.ts";
import type { ServerEvent } from "../../../protocol/schema.ts";
import { applyKey, drainOutbox, type TranscriptItem } from "../../../tui/state/mod.ts";
import { applyAll, enter, key, readyState, TurnScript } from "../fixtures.ts";

function reasoning(t: TurnScript, content: string): ServerEvent {
  const e = t.delta(content) as Extract<ServerEvent, { type: "assistant.delta" }>;
  return { ...e, type: "assistant.reasoning.delta" };
}

/** Each item as `kind: first words`, in transcript order. */
function order(items: TranscriptItem[]): string[] {
  return items.map((i) =>
    i.kind === "tool" ? `tool: ${i.output}` : `${i.kind}: ${"text" in i ? i.text : ""}`
  );
}

Deno.test("a cancel writes the unfinished tool call before saying the turn was cancelled", () => {
  const s = readyState();
  const t = new TurnScript(enter(s, "list")[0]!.request_id!);
  applyAll(s, [
    t.started(),
    t.proposed("c1", "bash", { command: "ls" }),
    t.approval("c1", "bash", "Run shell command: ls"),
  ]);
  drainOutbox(s);
  applyKey(s, key("escape"));
  applyAll(s, [t.cancelled()]);
  assertEquals(order(drainOutbox(s)), [
    "tool: (the turn was cancelled before this call completed)",
    "notice: Turn cancelled",
  ]);
});

Deno.test("a cancel while the model reasons writes its reasoning line before the notice", () => {
  const s = readyState();
  const t = new TurnScript(enter(s, "why?")[0]!.request_id!);
  applyAll(s, [t.started(), reasoning(t, "Reading the lexer")]);
  drainOutbox(s);
  applyKey(s, key("escape"));
  applyAll(s, [t.cancelled()]);
  assertEquals(order(drainOutbox(s)), ["reasoning: Reading the lexer", "notice: Turn cancelled"]);
});

Deno.test("a failed turn writes the reasoning it streamed before the error", () => {
  const s = readyState();
  const t = new TurnScript(enter(s, "go")[0]!.request_id!);
  applyAll(s, [t.started(), reasoning(t, "Plan")]);
  drainOutbox(s);
  applyAll(s, [{
    type: "turn.failed",
    request_id: t.requestId,
    session_id: "s1",
    turn_id: t.turnId,
    seq: t.seq++,
    code: "provider_error",
    message: "HTTP 500",
  }]);
  assertEquals(order(drainOutbox(s)), [
    "reasoning: Plan",
    "notice: Turn failed (provider_error): HTTP 500",
  ]);
});
