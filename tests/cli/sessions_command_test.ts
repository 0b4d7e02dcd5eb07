/** The text lines of `scv sessions`. */
import { assertEquals } from "../support/assert.ts";
import { sessionLine } from "../../cli/sessions_command.ts";

const entry = {
  session_id: "id",
  model: "m",
  created_at: "",
  updated_at: "2026-12-01T09:40:51.000Z",
  turns: 2,
};

Deno.test("a session line shows a directory name's control characters as escapes, never raw", () => {
  const line = sessionLine({ ...entry, cwd: "/w/we\u001b[31mird\nx\u009b", title: "t" });
  assertEquals(line, "id  2026-12-01 09:40  2 turns  /w/we\\u001b[31mird\\u000ax\\u009b  t");
});

Deno.test("a session line shows a title's control characters as spaces", () => {
  const line = sessionLine({ ...entry, cwd: "/w", title: "a\u001b[2Jb\tc" });
  assertEquals(line, "id  2026-12-01 09:40  2 turns  /w  a [2Jb c");
});
