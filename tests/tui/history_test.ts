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
  assertEquals(h.previous("ignored"), "one");
  assertEquals(h.previous("ignored"), undefined);
  assertEquals(h.next(), "two");
  assertEquals(h.next(), "draft");
  assertEquals(h.walking, false);
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
