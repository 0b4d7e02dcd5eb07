import { assertEquals } from "../../support/assert.ts";
import {
  cursorOffset,
  LIST_PAGE_SIZE,
  listPage,
  MAX_LIST_OFFSET,
} from "../../../server/acp/session_list.ts";

const summary = (i: number) => ({
  session_id: `s${i}`,
  cwd: "/ws",
  model: "m",
  created_at: "t0",
  updated_at: `t${i}`,
  turns: 1,
  title: i === 0 ? "" : `prompt ${i}`,
});

Deno.test("a session list page maps summaries to SessionInfo, with no title before the first prompt", () => {
  assertEquals(listPage([summary(0), summary(1)], 2, 0), {
    sessions: [
      { sessionId: "s0", cwd: "/ws", updatedAt: "t0" },
      { sessionId: "s1", cwd: "/ws", title: "prompt 1", updatedAt: "t1" },
    ],
  });
});

Deno.test("a page has a next cursor exactly when more sessions matched than it shows", () => {
  const all = Array.from({ length: 5 }, (_, i) => summary(i + 1));
  assertEquals(listPage(all, 5, 0, 2).nextCursor, "2");
  assertEquals(listPage(all, 5, 2, 2).sessions.map((s) => s.sessionId), ["s3", "s4"]);
  assertEquals(listPage(all, 4, 2, 2).nextCursor, undefined);
});

Deno.test("a cursor is a page offset scv handed out; anything else is refused", () => {
  assertEquals(cursorOffset(null), 0);
  assertEquals(cursorOffset(String(LIST_PAGE_SIZE)), LIST_PAGE_SIZE);
  for (
    const bad of ["", "abc", "1.5", "7", String(MAX_LIST_OFFSET + LIST_PAGE_SIZE), "9".repeat(30)]
  ) {
    assertEquals(cursorOffset(bad), undefined, bad);
  }
});
