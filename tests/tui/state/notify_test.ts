/** Notifications from the TUI's state: only when unfocused, only with notify on. */
import { assertEquals } from "../../support/assert.ts";
import { applyAll, readyState, TurnScript } from "../fixtures.ts";
import { applyEvent, applyKey } from "../../../tui/state/mod.ts";

function turnThatEnds(focused: boolean, notify = true) {
  const s = readyState();
  s.notify = notify;
  applyKey(s, { type: "focus", focused });
  applyKey(s, { type: "text", text: "go" });
  applyKey(s, { type: "key", name: "enter", ctrl: false, alt: false, shift: false });
  const t = new TurnScript(s.turn!.requestId);
  applyAll(s, [t.started(), t.completedText("ok")]);
  return applyEvent(s, t.completed(10, 2));
}

Deno.test("a turn that ends while unfocused asks for a notification", () => {
  assertEquals(turnThatEnds(false), [{ kind: "notify", message: "scv: the turn is done" }]);
});

Deno.test("a turn that ends while focused asks for none", () => {
  assertEquals(turnThatEnds(true), []);
});

Deno.test("notify off asks for none even when unfocused", () => {
  assertEquals(turnThatEnds(false, false), []);
});

Deno.test("a focus report changes nothing on screen", () => {
  const s = readyState();
  const version = s.version;
  assertEquals(applyKey(s, { type: "focus", focused: false }), []);
  assertEquals([s.focused, s.version], [false, version]);
});
