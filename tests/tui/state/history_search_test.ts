import { assert, assertEquals } from "../../support/assert.ts";
import { applyKey, createState } from "../../../tui/state/mod.ts";
import { key, sent, typeText } from "../fixtures.ts";

function withHistory(entries: string[]) {
  return createState({
    model: "m",
    cwd: "/w",
    historyLimits: { maxItems: 50, maxBytes: 10000 },
    historyEntries: entries,
  });
}

const ctrlR = key("r", { ctrl: true });

Deno.test("Ctrl+R finds the newest prompt containing what is typed, and Enter keeps it", () => {
  const s = withHistory(["run the tests", "fix the lexer", "run the linter"]);
  typeText(s, "draft");
  applyKey(s, ctrlR);
  typeText(s, "run");
  assertEquals(s.composer.text, "run the linter");
  assert(s.hint?.startsWith("search: run_"), s.hint);
  assertEquals(sent(applyKey(s, key("enter"))), [], "Enter keeps the match, it does not send");
  assertEquals(s.search, undefined);
  assertEquals(s.composer.text, "run the linter");
});

Deno.test("Ctrl+R again finds an older match; past the oldest it stays", () => {
  const s = withHistory(["run the tests", "fix the lexer", "run the linter"]);
  applyKey(s, ctrlR);
  typeText(s, "RUN");
  applyKey(s, ctrlR);
  assertEquals(s.composer.text, "run the tests");
  applyKey(s, ctrlR);
  assertEquals(s.composer.text, "run the tests");
});

Deno.test("Esc ends the search and gives back the draft", () => {
  const s = withHistory(["run the tests"]);
  typeText(s, "my draft");
  applyKey(s, ctrlR);
  typeText(s, "run");
  applyKey(s, key("escape"));
  assertEquals(s.composer.text, "my draft");
  assertEquals(s.search, undefined);
  assertEquals(s.hint, undefined);
});

Deno.test("a query that matches nothing says so and shows the draft", () => {
  const s = withHistory(["run the tests"]);
  typeText(s, "draft");
  applyKey(s, ctrlR);
  typeText(s, "zebra");
  assertEquals(s.composer.text, "draft");
  assert(s.hint?.startsWith("no match: zebra_"), s.hint);
  applyKey(s, key("backspace"));
  assertEquals(s.search?.query, "zebr");
});

Deno.test("another key ends the search with the match and then does its work", () => {
  const s = withHistory(["run the tests"]);
  applyKey(s, ctrlR);
  typeText(s, "tests");
  applyKey(s, key("left"));
  assertEquals(s.search, undefined);
  assertEquals(s.composer.text, "run the tests");
  assertEquals(s.composer.cursor, "run the tests".length - 1);
});

Deno.test("a paste during a search goes into the query, not the composer", () => {
  const s = withHistory(["run the tests", "fix the lexer"]);
  applyKey(s, ctrlR);
  applyKey(s, { type: "paste", text: "the\nlex" });
  assertEquals(s.search?.query, "the lex");
  assertEquals(s.composer.text, "fix the lexer");
});

Deno.test("Ctrl+R past the oldest match says there is no older one", () => {
  const s = withHistory(["run the tests", "run the linter"]);
  applyKey(s, ctrlR);
  typeText(s, "run");
  applyKey(s, ctrlR);
  assert(s.hint?.startsWith("search: run_"), s.hint);
  applyKey(s, ctrlR);
  assertEquals(s.composer.text, "run the tests");
  assert(s.hint?.startsWith("no older match: run_"), s.hint);
});

Deno.test("Ctrl+R skips older entries that read the same as the match shown", () => {
  const s = withHistory(["run the tests", "run the linter", "run the linter"]);
  applyKey(s, ctrlR);
  typeText(s, "run");
  assertEquals(s.composer.text, "run the linter");
  applyKey(s, ctrlR);
  assertEquals(s.composer.text, "run the tests");
});

Deno.test("Ctrl+R with nothing typed walks back to the oldest entry and stays there", () => {
  const s = withHistory(["one", "two"]);
  applyKey(s, ctrlR);
  applyKey(s, ctrlR);
  assertEquals(s.composer.text, "two");
  applyKey(s, ctrlR);
  assertEquals(s.composer.text, "one");
  applyKey(s, ctrlR);
  assertEquals(s.composer.text, "one");
  assert(s.hint?.startsWith("no older match"), s.hint);
});
