/**
 * truncateText (as capText) against CONTRACT.md (`max_tool_output_bytes`: "tool output kept (head and tail)
 * before `truncated: true`"): the result fits the UTF-8 budget, keeps both ends, and never cuts
 * a character in half.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { truncateText as capText } from "../../../server/tools/output.ts";

const utf8 = (s: string) => new TextEncoder().encode(s).length;
const replacements = (s: string) => [...s].filter((c) => c === "\uFFFD").length;

Deno.test("a string within the cap is returned unchanged", () => {
  for (const text of ["", "short", "é€😀", "x".repeat(100)]) {
    assert.deepEqual(capText(text, 100), { text, truncated: false });
  }
});

Deno.test("a string of exactly the cap in UTF-8 bytes is returned unchanged", () => {
  const text = "€".repeat(10); // 30 bytes, 10 characters
  assert.deepEqual(capText(text, 30), { text, truncated: false });
  assert.equal(capText(text, 29).truncated, true);
});

Deno.test("the cap counts UTF-8 bytes, not characters", () => {
  const text = "é".repeat(60); // 60 characters, 120 bytes
  const r = capText(text, 100);
  assert.equal(r.truncated, true);
  assert.ok(utf8(r.text) <= 100, `${utf8(r.text)} bytes`);
});

Deno.test("a string over the cap keeps its head and its tail within the budget", () => {
  const text = "HEAD-START " + "middle ".repeat(5000) + " TAIL-END";
  const r = capText(text, 200);
  assert.equal(r.truncated, true);
  assert.ok(utf8(r.text) <= 200, `${utf8(r.text)} bytes`);
  assert.ok(r.text.startsWith("HEAD-START"), r.text);
  assert.ok(r.text.endsWith("TAIL-END"), r.text);
  assert.ok(r.text.length < text.length);
});

Deno.test("a capped string never splits a multi-byte character", () => {
  for (const ch of ["é", "€", "😀", "👩‍👩‍👧"]) {
    const text = ch.repeat(500);
    for (let max = 1; max <= 120; max++) {
      const r = capText(text, max);
      assert.ok(utf8(r.text) <= max, `${ch} @ ${max}: ${utf8(r.text)} bytes`);
      assert.equal(replacements(r.text), 0, `${ch} @ ${max}: ${JSON.stringify(r.text)}`);
      assert.ok(!/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/.test(r.text), "no lone high surrogate");
      assert.ok(!/(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(r.text), "no lone low surrogate");
    }
  }
});

Deno.test("every cap down to one byte is respected", () => {
  const text = "abc€def😀".repeat(50);
  for (let max = 1; max < utf8(text); max += 1) {
    const r = capText(text, max);
    assert.equal(r.truncated, true);
    assert.ok(utf8(r.text) <= max, `cap ${max}: ${utf8(r.text)} bytes`);
  }
});

Deno.test("capped output is a prefix, a marker and a suffix of the input", () => {
  fc.assert(
    fc.property(
      fc.string({ unit: "binary", maxLength: 400 }),
      fc.integer({ min: 1, max: 600 }),
      (text, max) => {
        const r = capText(text, max);
        if (utf8(text) <= max) {
          assert.deepEqual(r, { text, truncated: false });
          return;
        }
        assert.equal(r.truncated, true);
        assert.ok(utf8(r.text) <= max, `${utf8(r.text)} > ${max}`);
        assert.ok(replacements(r.text) <= replacements(text), "no U+FFFD introduced");
        // Some split into head + marker + tail where head starts the input and tail ends it.
        const chars = [...text];
        let found = false;
        for (let h = 0; h <= chars.length && !found; h++) {
          const head = chars.slice(0, h).join("");
          if (!r.text.startsWith(head)) break;
          for (let t = 0; t <= chars.length - h && !found; t++) {
            const tail = chars.slice(chars.length - t).join("");
            if (!r.text.endsWith(tail)) break;
            if (head.length + tail.length <= r.text.length) found = true;
          }
        }
        assert.ok(found);
      },
    ),
    { numRuns: 500 },
  );
});

Deno.test("capped output keeps roughly half the budget for each end", () => {
  const text = "h".repeat(10_000) + "t".repeat(10_000);
  const r = capText(text, 1000);
  const head = r.text.match(/^h*/)![0].length;
  const tail = r.text.match(/t*$/)![0].length;
  assert.ok(head > 300 && tail > 300, `head ${head}, tail ${tail}`);
  assert.ok(utf8(r.text) <= 1000);
});
