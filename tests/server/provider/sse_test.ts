/** Unit tests of the bounded SSE decoder: framing, line endings, fields and the event cap. */
import { assert, assertEquals } from "../../support/assert.ts";
import { SseDecoder, type SseEvent } from "../../../server/provider/sse.ts";
import { ProviderError } from "../../../server/provider/types.ts";

const enc = new TextEncoder();

function decodeAll(chunks: string[], max = 1024): SseEvent[] {
  const d = new SseDecoder(max);
  const out: SseEvent[] = [];
  for (const c of chunks) out.push(...d.push(enc.encode(c)));
  out.push(...d.end());
  return out;
}

function overCap(fn: () => unknown): ProviderError {
  try {
    fn();
  } catch (e) {
    assert(e instanceof ProviderError, `expected a ProviderError, got ${e}`);
    return e;
  }
  throw new Error("expected the cap to be crossed");
}

Deno.test("sse decoder joins data lines and dispatches on a blank line", () => {
  assertEquals(decodeAll(["data: a\ndata: b\n\ndata: c\n\n"]), [
    { event: "message", data: "a\nb" },
    { event: "message", data: "c" },
  ]);
});

Deno.test("sse decoder accepts LF, CRLF and CR line endings, also split between chunks", () => {
  const events = decodeAll(["data: 1\r", "\n\r", "\ndata: 2\r\rdata: 3\n\n"]);
  assertEquals(events.map((e) => e.data), ["1", "2", "3"]);
});

Deno.test("sse decoder keeps an event split at every byte", () => {
  const text = 'event: delta\ndata: {"x":"\u00e9\u{1F600}"}\n\n';
  const bytes = enc.encode(text);
  const d = new SseDecoder(1024);
  const out: SseEvent[] = [];
  for (const b of bytes) out.push(...d.push(new Uint8Array([b])));
  assertEquals(out, [{ event: "delta", data: '{"x":"\u00e9\u{1F600}"}' }]);
});

Deno.test("sse decoder ignores comments, id, retry and unknown fields", () => {
  assertEquals(decodeAll([": keep-alive\nid: 7\nretry: x\nfoo: bar\ndata: ok\n\n"]), [
    { event: "message", data: "ok" },
  ]);
});

Deno.test("sse decoder reports the non-standard error field of older llama.cpp", () => {
  assertEquals(decodeAll(['error: {"message":"boom"}\n\n']), [
    { event: "message", data: "", error: '{"message":"boom"}' },
  ]);
});

Deno.test("sse decoder dispatches a last event that lacks its blank line at the end", () => {
  assertEquals(decodeAll(["data: [DONE]\n"]).map((e) => e.data), ["[DONE]"]);
  assertEquals(decodeAll(["data: [DONE]"]).map((e) => e.data), ["[DONE]"]);
});

Deno.test("sse decoder strips a byte order mark at the start", () => {
  assertEquals(decodeAll(["\uFEFFdata: x\n\n"]).map((e) => e.data), ["x"]);
});

Deno.test("sse decoder passes an event of exactly the cap and fails one byte over with response_limit", () => {
  const max = 100;
  assertEquals(decodeAll([`data: ${"a".repeat(max)}\n\n`], max)[0]!.data.length, max);
  const e = overCap(() => decodeAll([`data: ${"a".repeat(max + 1)}\n\n`], max));
  assertEquals(e.code, "response_limit");
  assertEquals(e.message, "Provider sent an SSE event over 100 bytes");
});

Deno.test("sse decoder counts the cap in UTF-8 bytes, not characters", () => {
  // 50 two-byte characters are 100 bytes: at the cap; one more byte crosses it.
  assertEquals(decodeAll([`data: ${"\u00e9".repeat(50)}\n\n`], 100).length, 1);
  assertEquals(
    overCap(() => decodeAll([`data: ${"\u00e9".repeat(50)}x\n\n`], 100)).code,
    "response_limit",
  );
});

Deno.test("sse decoder counts an event made of many data lines against the cap", () => {
  // Ten lines of 10 bytes plus the nine joining newlines: 109 bytes of data.
  const lines = Array.from({ length: 10 }, () => `data: ${"b".repeat(10)}\n`).join("");
  assertEquals(decodeAll([lines + "\n"], 109).length, 1);
  assertEquals(overCap(() => decodeAll([lines + "\n"], 108)).code, "response_limit");
});

Deno.test("sse decoder fails a line that never ends before buffering past the cap", () => {
  const d = new SseDecoder(1000);
  const piece = enc.encode("x".repeat(500));
  d.push(piece);
  d.push(piece);
  assertEquals(overCap(() => d.push(piece)).code, "response_limit");
});

Deno.test("sse decoder fails a 1 MiB event fed in small chunks with response_limit", () => {
  const max = 1024 * 1024;
  const d = new SseDecoder(max);
  const chunk = enc.encode("y".repeat(4096));
  const e = overCap(() => {
    d.push(enc.encode("data: "));
    for (let i = 0; i <= max / 4096; i++) d.push(chunk);
    d.push(enc.encode("\n\n"));
  });
  assertEquals(e.code, "response_limit");
});

Deno.test("sse decoder yields the same events however the bytes are split (fast-check)", async () => {
  const fc = (await import("fast-check")).default;
  const event = fc.record({
    name: fc.option(fc.constantFrom("message_start", "delta", "error"), { nil: undefined }),
    lines: fc.array(
      fc.string({ unit: "grapheme", maxLength: 20 }).map((s) => s.replace(/[\r\n]/g, "")),
      {
        minLength: 1,
        maxLength: 3,
      },
    ),
    eol: fc.constantFrom("\n", "\r\n", "\r"),
  });
  fc.assert(
    fc.property(
      fc.array(event, { maxLength: 6 }),
      fc.array(fc.nat(), { maxLength: 10 }),
      (events, cuts) => {
        const text = events.map((e) =>
          (e.name ? `event: ${e.name}${e.eol}` : "") + e.lines.map((l) =>
            `data: ${l}${e.eol}`
          ).join("") + e.eol
        ).join("");
        const bytes = enc.encode(text);
        const whole = new SseDecoder(1 << 20);
        const expected = [...whole.push(bytes), ...whole.end()];
        const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
        const split = new SseDecoder(1 << 20);
        const got: SseEvent[] = [];
        let at = 0;
        for (const p of [...points, bytes.length]) {
          got.push(...split.push(bytes.subarray(at, p)));
          at = p;
        }
        got.push(...split.end());
        assertEquals(got, expected);
        assertEquals(got.map((e) => e.data), events.map((e) => e.lines.join("\n")));
      },
    ),
    { numRuns: 500 },
  );
});
