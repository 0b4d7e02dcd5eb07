/** The bounded stderr tail (server/mcp/tail_buffer.ts). */
import assert from "node:assert/strict";
import { TailBuffer } from "../../../server/mcp/tail_buffer.ts";

const enc = (s: string) => new TextEncoder().encode(s);

Deno.test("the tail keeps the last bytes over many small pushes and counts what it dropped", () => {
  const t = new TailBuffer(8);
  for (const c of "abcdefghijkl") t.push(enc(c));
  assert.equal(t.text(), "efghijkl");
  assert.equal(t.dropped, 4);
});

Deno.test("one push larger than the limit keeps only its end", () => {
  const t = new TailBuffer(4096);
  t.push(enc("x".repeat(10000) + "END"));
  assert.equal(t.text().length, 4096);
  assert.ok(t.text().endsWith("END"));
  assert.equal(t.dropped, 10003 - 4096);
});

Deno.test("pushes under the limit are kept whole", () => {
  const t = new TailBuffer(16);
  t.push(enc("ab"));
  t.push(enc("cd"));
  assert.equal(t.text(), "abcd");
  assert.equal(t.dropped, 0);
});
