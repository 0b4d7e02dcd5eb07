import assert from "node:assert/strict";
import fc from "fast-check";
import { omissionMarker, OutputBuffer, truncateText } from "../../../server/tools/output.ts";

const encoder = new TextEncoder();
const size = (s: string) => encoder.encode(s).length;

Deno.test("truncateText leaves text within the limit unchanged", () => {
  assert.deepEqual(truncateText("hello", 5), { text: "hello", truncated: false });
});

Deno.test("truncateText keeps head and tail around a marker within the limit", () => {
  const text = Array.from({ length: 1000 }, (_, i) => `line ${i}`).join("\n");
  const r = truncateText(text, 200);
  assert.equal(r.truncated, true);
  assert.ok(size(r.text) <= 200);
  assert.ok(r.text.startsWith("line 0\nline 1\n"));
  assert.ok(r.text.endsWith("line 998\nline 999"));
  const omitted = Number(/\[\.\.\. (\d+) bytes omitted \.\.\.\]/.exec(r.text)![1]);
  assert.equal(size(r.text) - size(omissionMarker(omitted)) + omitted, size(text));
});

Deno.test("truncateText never splits a multi-byte character", () => {
  const r = truncateText("é".repeat(500) + "🙂".repeat(500), 301);
  assert.ok(!r.text.includes("\uFFFD"));
  assert.ok(r.text.startsWith("é") && r.text.endsWith("🙂"));
});

Deno.test("OutputBuffer renders output that fits whole", () => {
  const b = new OutputBuffer(100);
  b.push(encoder.encode("abc"));
  b.push(encoder.encode("def"));
  assert.deepEqual(b.render(), { text: "abcdef", truncated: false });
});

Deno.test("OutputBuffer keeps the first and the latest bytes of a long stream", () => {
  const b = new OutputBuffer(100);
  for (let i = 0; i < 10_000; i++) b.push(encoder.encode(`${i}\n`));
  const r = b.render();
  assert.equal(r.truncated, true);
  assert.ok(size(r.text) <= 100);
  assert.ok(r.text.startsWith("0\n1\n2\n"));
  assert.ok(r.text.endsWith("9998\n9999\n"));
  assert.equal(b.totalBytes, 48890);
});

Deno.test("OutputBuffer memory stays bounded however much is pushed", () => {
  // One reused chunk, so that the test itself makes no garbage: growth is the buffer's own.
  const chunk = new Uint8Array(1024 * 1024).fill(0x79);
  const b = new OutputBuffer(65536);
  const before = Deno.memoryUsage().rss;
  for (let i = 0; i < 256; i++) b.push(chunk);
  const grown = Deno.memoryUsage().rss - before;
  assert.equal(b.totalBytes, 256 * 1024 * 1024);
  assert.ok(grown < 32 * 1024 * 1024, `memory grew by ${grown} bytes`);
  assert.ok(size(b.render().text) <= 65536);
});

Deno.test("OutputBuffer handles a single chunk larger than its whole capacity", () => {
  const b = new OutputBuffer(10);
  b.push(encoder.encode("0123456789abcdefghijklmnopqrstuvwxyz"));
  const r = b.render();
  assert.equal(r.truncated, true);
  assert.equal(r.text, "01234");
});

Deno.test("OutputBuffer replaces invalid UTF-8 and stays within the limit", () => {
  const b = new OutputBuffer(16);
  b.push(new Uint8Array(Array(16).fill(0xff)));
  const r = b.render();
  assert.ok(r.text.includes("\uFFFD"));
  assert.ok(size(r.text) <= 16);
});

Deno.test("OutputBuffer leaves room for a status line when asked", () => {
  const b = new OutputBuffer(100);
  b.push(encoder.encode("x".repeat(1000)));
  assert.ok(size(b.render(20).text) <= 80);
});

Deno.test("OutputBuffer matches truncating the whole text, for any chunking", () => {
  fc.assert(
    fc.property(
      fc.array(fc.string({ unit: "binary", maxLength: 40 }), { maxLength: 30 }),
      fc.integer({ min: 40, max: 300 }),
      (chunks, max) => {
        const b = new OutputBuffer(max);
        for (const c of chunks) b.push(encoder.encode(c));
        const whole = chunks.join("");
        const r = b.render();
        assert.ok(size(r.text) <= max, `${size(r.text)} > ${max}`);
        assert.equal(r.truncated, size(whole) > max);
        if (!r.truncated) assert.equal(r.text, whole);
        else {
          const [head, tail] = r.text.split(/\n\[\.\.\. \d+ bytes omitted \.\.\.\]\n/);
          assert.ok(whole.startsWith(head!) && whole.endsWith(tail!));
        }
      },
    ),
    { numRuns: 500 },
  );
});
