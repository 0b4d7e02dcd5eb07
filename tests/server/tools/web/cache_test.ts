/** web_fetch's cache: per session, 15 minutes, bounded in entries and bytes. */
import { assert, assertEquals } from "../../../support/assert.ts";
import { WebCache } from "../../../../server/tools/web/cache.ts";

const page = (output: string) => ({ output, truncated: false });

Deno.test("the web cache serves an entry for 15 minutes to its own session only", () => {
  let now = 0;
  const cache = new WebCache({ now: () => now });
  cache.set("a", "k", page("x"));
  now = 15 * 60 * 1000 - 1;
  assertEquals(cache.get("a", "k")?.output, "x");
  assertEquals(cache.get("b", "k"), undefined);
  now = 15 * 60 * 1000;
  assertEquals(cache.get("a", "k"), undefined);
  assertEquals(cache.size, 0);
});

Deno.test("the web cache drops the least recently used entry past its entry bound", () => {
  const cache = new WebCache({ maxEntries: 2 });
  cache.set("s", "1", page("one"));
  cache.set("s", "2", page("two"));
  cache.get("s", "1"); // 1 is now the most recently used
  cache.set("s", "3", page("three"));
  assertEquals(cache.size, 2);
  assertEquals(cache.get("s", "2"), undefined);
  assertEquals(cache.get("s", "1")?.output, "one");
  assertEquals(cache.get("s", "3")?.output, "three");
});

Deno.test("the web cache stays within its byte bound and skips an entry larger than it", () => {
  const cache = new WebCache({ maxBytes: 100 });
  cache.set("s", "a", page("a".repeat(30))); // 60 bytes
  cache.set("s", "b", page("b".repeat(20))); // 40 bytes: exactly the bound
  assertEquals(cache.bytes, 100);
  cache.set("s", "c", page("c")); // one byte over: the oldest goes
  assertEquals(cache.get("s", "a"), undefined);
  assert(cache.bytes <= 100);
  cache.set("s", "huge", page("h".repeat(51)));
  assertEquals(cache.get("s", "huge"), undefined);
  assert(cache.bytes <= 100);
});
