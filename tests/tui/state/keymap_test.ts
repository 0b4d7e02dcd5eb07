import { assertEquals } from "../../support/assert.ts";
import { applyKey } from "../../../tui/state/mod.ts";
import { enter, readyState, typeText } from "../fixtures.ts";

Deno.test("an Alt+character with no binding types the character, so nothing typed is lost", () => {
  // Esc pressed just before "/" reaches the TUI as ESC "/" in one read, which is Alt+/.
  const s = readyState();
  typeText(s, "a");
  applyKey(s, { type: "text", text: "/", alt: true });
  typeText(s, "clear");
  assertEquals(s.composer.text, "a/clear");
});

Deno.test("a bound Alt+character still runs its action and types nothing", () => {
  const s = readyState();
  typeText(s, "one two");
  applyKey(s, { type: "text", text: "b", alt: true });
  assertEquals(s.composer.text, "one two");
  assertEquals(s.composer.cursor, 4);
});

Deno.test("an unbound Alt+character in the session picker goes into its filter", () => {
  const s = readyState();
  enter(s, "/resume");
  applyKey(s, { type: "text", text: "x", alt: true });
  assertEquals(s.picker?.filter, "x");
  assertEquals(s.composer.text, "");
});
