import { assertEquals } from "../support/assert.ts";
import {
  loadHistoryFile,
  parseHistory,
  PromptHistory,
  saveHistoryFile,
  stateDir,
} from "../../tui/history.ts";

Deno.test("prompt history walks back and forward and returns the draft", () => {
  const h = new PromptHistory({ maxItems: 10, maxBytes: 1000 }, ["one", "two"]);
  assertEquals(h.previous("draft"), "two");
  assertEquals(h.previous("two"), "one");
  assertEquals(h.previous("one"), undefined);
  assertEquals(h.next("one"), "two");
  assertEquals(h.next("two"), "draft");
  assertEquals(h.walking, false);
  assertEquals(h.next("draft"), undefined, "Down past the draft does nothing");
});

Deno.test("prompt history keeps an entry edited while walking, and the draft", () => {
  const h = new PromptHistory({ maxItems: 10, maxBytes: 1000 }, ["one", "two"]);
  assertEquals(h.previous("my precious draft"), "two");
  assertEquals(h.next("two!"), "my precious draft", "Down past the newest gives the draft");
  assertEquals(h.previous("my precious draft"), "two!", "the edit is kept while walking");
  assertEquals(h.previous("two!"), "one");
  assertEquals(h.next("one"), "two!");
  assertEquals([...h.entries], ["one", "two"], "the entries themselves are not changed");
  h.add("two!");
  assertEquals(h.previous(""), "two!");
  assertEquals(h.previous("two!"), "two", "sending a prompt forgets the edits");
});

Deno.test("prompt history reset forgets the walk and its edits", () => {
  const h = new PromptHistory({ maxItems: 10, maxBytes: 1000 }, ["one", "two"]);
  h.previous("draft");
  h.previous("two edited");
  h.reset();
  assertEquals(h.walking, false);
  assertEquals(h.previous(""), "two");
});

Deno.test("prompt history drops the oldest entries beyond max items", () => {
  const h = new PromptHistory({ maxItems: 3, maxBytes: 1000 });
  for (const p of ["a", "b", "c", "d"]) h.add(p);
  assertEquals([...h.entries], ["b", "c", "d"]);
});

Deno.test("prompt history drops the oldest entries beyond max bytes", () => {
  const h = new PromptHistory({ maxItems: 100, maxBytes: 20 });
  h.add("x".repeat(10)); // 13 bytes as a JSON line
  h.add("y".repeat(5)); // 8 bytes
  assertEquals([...h.entries], ["yyyyy"]);
  assertEquals(h.bytes <= 20, true);
});

Deno.test("prompt history skips blank prompts and an immediate repeat", () => {
  const h = new PromptHistory({ maxItems: 10, maxBytes: 1000 });
  h.add("a");
  h.add("a");
  h.add("   ");
  assertEquals([...h.entries], ["a"]);
});

Deno.test("prompt history shrinks when session.started gives smaller limits", () => {
  const h = new PromptHistory({ maxItems: 10, maxBytes: 1000 }, ["a", "b", "c"]);
  h.setLimits({ maxItems: 1, maxBytes: 1000 });
  assertEquals([...h.entries], ["c"]);
});

Deno.test("prompt history file round-trips multi-line prompts and skips damaged lines", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/scv/history.jsonl`;
    const h = new PromptHistory({ maxItems: 10, maxBytes: 1000 }, ["first\nsecond", "x"]);
    await saveHistoryFile(path, h);
    await Deno.writeTextFile(path, "garbage\n", { append: true });
    assertEquals(await loadHistoryFile(path), ["first\nsecond", "x"]);
    assertEquals(parseHistory('42\n"ok"\n'), ["ok"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("prompt history lives under XDG_STATE_HOME/scv, else ~/.local/state/scv", () => {
  assertEquals(
    stateDir((k) => ({ XDG_STATE_HOME: "/s", HOME: "/h" } as Record<string, string>)[k]),
    "/s/scv",
  );
  assertEquals(stateDir((k) => (k === "HOME" ? "/h" : undefined)), "/h/.local/state/scv");
  assertEquals(
    stateDir((k) => ({ XDG_STATE_HOME: "rel", HOME: "/h" } as Record<string, string>)[k]),
    "/h/.local/state/scv",
    "a relative XDG_STATE_HOME is ignored, as the XDG spec says",
  );
});
