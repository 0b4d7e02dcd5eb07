/**
 * NDJSON framing against PEON-PROTOCOL.md ("Ordering and backpressure") and CONTRACT.md
 * ("Sizes"): a frame limit counts the UTF-8 bytes of the encoded JSON without the newline and is
 * inclusive; an oversized line is reported once, never buffered, and the stream resynchronises.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  type DecodedFrame,
  encodeFrame,
  FrameTooLargeError,
  NdjsonBatchDecoderStream,
  NdjsonDecoderStream,
  NdjsonEncoderStream,
} from "../../protocol/ndjson.ts";

const enc = new TextEncoder();
const MiB = 1024 * 1024;

function bytes(text: string): Uint8Array {
  return enc.encode(text);
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let off = 0;
  for (const p of parts) {
    out.set(p, off);
    off += p.length;
  }
  return out;
}

async function decode(chunks: Uint8Array[], limit: number): Promise<DecodedFrame[]> {
  return await Array.fromAsync(
    ReadableStream.from(chunks).pipeThrough(new NdjsonDecoderStream(limit)),
  );
}

/** Splits `data` at the given sorted cut points. */
function split(data: Uint8Array, cuts: number[]): Uint8Array[] {
  const out: Uint8Array[] = [];
  let prev = 0;
  for (const c of cuts) {
    out.push(data.slice(prev, c));
    prev = c;
  }
  out.push(data.slice(prev));
  return out;
}

/** A JSON line (without newline) of exactly `size` UTF-8 bytes: `{"s":"xxx"}`. */
function jsonOfSize(size: number, fill = "x"): string {
  const overhead = '{"s":""}'.length;
  assert.ok(size >= overhead);
  return `{"s":"${fill.repeat(size - overhead)}"}`;
}

const frame = (text: string): DecodedFrame => ({ kind: "frame", text });

// A model of the specification: split on LF, drop one trailing CR, skip blank lines, oversize
// when the body is over the limit, else strict UTF-8. `bytes` of an oversize report is not
// specified, so the model leaves it out.
function reference(data: Uint8Array, limit: number): Array<{ kind: string; text?: string }> {
  const out: Array<{ kind: string; text?: string }> = [];
  const utf8 = new TextDecoder("utf-8", { fatal: true });
  let start = 0;
  while (start < data.length) {
    let end = data.indexOf(0x0a, start);
    const last = end === -1;
    if (last) end = data.length;
    let body = data.subarray(start, end);
    if (body.length > 0 && body[body.length - 1] === 0x0d) body = body.subarray(0, -1);
    if (body.length > limit) out.push({ kind: "oversize" });
    else if (body.length > 0) {
      let text: string | undefined;
      try {
        text = utf8.decode(body);
      } catch {
        out.push({ kind: "invalid_utf8" });
      }
      if (text !== undefined && text.trim() !== "") out.push({ kind: "frame", text });
    }
    start = end + 1;
  }
  return out;
}

function withoutBytes(frames: DecodedFrame[]): Array<{ kind: string; text?: string }> {
  return frames.map((f) => f.kind === "frame" ? f : { kind: f.kind });
}

Deno.test("decoder yields the same frames for a stream split at every byte boundary", async () => {
  const data = bytes('{"a":"héllo €"}\n{"b":"𝄞 clef"}\r\n\n{"c":3}\n{"tail":true}');
  const expected = [
    frame('{"a":"héllo €"}'),
    frame('{"b":"𝄞 clef"}'),
    frame('{"c":3}'),
    frame('{"tail":true}'),
  ];
  assert.deepEqual(await decode([data], 64), expected);
  for (let i = 0; i <= data.length; i++) {
    assert.deepEqual(await decode(split(data, [i]), 64), expected, `split at byte ${i}`);
  }
  const single = Array.from(data, (b) => Uint8Array.of(b));
  assert.deepEqual(await decode(single, 64), expected, "one byte per chunk");
});

Deno.test("decoder accepts a frame of exactly the limit", async () => {
  const line = jsonOfSize(100);
  assert.equal(bytes(line).length, 100);
  assert.deepEqual(await decode([bytes(line + "\n")], 100), [frame(line)]);
});

Deno.test("decoder reports a frame one byte over the limit as oversize", async () => {
  const line = jsonOfSize(101);
  const out = await decode([bytes(line + '\n{"ok":1}\n')], 100);
  assert.equal(out.length, 2);
  assert.equal(out[0]!.kind, "oversize");
  if (out[0]!.kind === "oversize") {
    assert.equal(out[0]!.limit, 100);
    assert.ok(out[0]!.bytes > 100);
  }
  assert.deepEqual(out[1], frame('{"ok":1}'));
});

Deno.test("decoder counts UTF-8 bytes, not characters, against the limit", async () => {
  const line = `{"s":"${"é".repeat(20)}"}`;
  assert.equal(line.length, 28);
  assert.equal(bytes(line).length, 48);
  assert.deepEqual(await decode([bytes(line + "\n")], 48), [frame(line)]);
  const out = await decode([bytes(line + "\n")], 47);
  assert.equal(out.length, 1);
  assert.equal(out[0]!.kind, "oversize");
});

Deno.test("decoder limit excludes the CR of a CRLF line ending", async () => {
  const line = jsonOfSize(100);
  assert.deepEqual(await decode([bytes(line + "\r\n")], 100), [frame(line)]);
  const over = jsonOfSize(101);
  const out = await decode([bytes(over + "\r\n")], 100);
  assert.deepEqual(out.map((f) => f.kind), ["oversize"]);
});

Deno.test("decoder strips the CR of CRLF line endings", async () => {
  const out = await decode([bytes('{"a":1}\r\n{"b":2}\r\n{"c":3}\r')], 1024);
  assert.deepEqual(out, [frame('{"a":1}'), frame('{"b":2}'), frame('{"c":3}')]);
});

Deno.test("decoder skips blank lines", async () => {
  const out = await decode([bytes('\n\n   \n\t\r\n\r\n{"a":1}\n\n \n{"b":2}\n\n')], 1024);
  assert.deepEqual(out, [frame('{"a":1}'), frame('{"b":2}')]);
});

Deno.test("decoder reports invalid UTF-8 and goes on with the next line", async () => {
  const data = concat(
    Uint8Array.of(0x7b, 0xff, 0xfe, 0x7d, 0x0a), // stray bytes
    Uint8Array.of(0x22, 0xe2, 0x82, 0x22, 0x0a), // truncated 3-byte sequence
    Uint8Array.of(0x22, 0xc0, 0xaf, 0x22, 0x0a), // overlong encoding of "/"
    Uint8Array.of(0x22, 0xed, 0xa0, 0x80, 0x22, 0x0a), // encoded surrogate
    bytes('{"ok":1}\n'),
  );
  const out = await decode([data], 1024);
  assert.deepEqual(out, [
    { kind: "invalid_utf8" },
    { kind: "invalid_utf8" },
    { kind: "invalid_utf8" },
    { kind: "invalid_utf8" },
    frame('{"ok":1}'),
  ]);
});

Deno.test("decoder emits a final line without a newline", async () => {
  assert.deepEqual(await decode([bytes('{"a":1}\n{"b":2}')], 1024), [
    frame('{"a":1}'),
    frame('{"b":2}'),
  ]);
  assert.deepEqual(await decode([bytes('{"only":true}')], 1024), [frame('{"only":true}')]);
});

Deno.test("decoder reports a final line over the limit without a newline", async () => {
  const out = await decode([bytes('{"a":1}\n' + jsonOfSize(50))], 49);
  assert.deepEqual(out.map((f) => f.kind), ["frame", "oversize"]);
});

Deno.test("decoder joins multi-byte characters split across chunks", async () => {
  for (const ch of ["é", "€", "𝄞", "😀"]) {
    const data = bytes(`"${ch}"\n`);
    for (let i = 1; i < data.length - 1; i++) {
      for (let j = i; j < data.length - 1; j++) {
        const out = await decode(split(data, i === j ? [i] : [i, j]), 16);
        assert.deepEqual(out, [frame(`"${ch}"`)], `${ch} cut at ${i},${j}`);
      }
    }
  }
});

Deno.test("decoder rejects a limit that is not a positive integer", () => {
  for (const bad of [0, -1, 1.5, NaN]) {
    assert.throws(() => new NdjsonDecoderStream(bad), RangeError);
  }
});

Deno.test("decoder reports a 100 MiB line once, holds no chunk and resynchronises", async () => {
  const chunkSize = 64 * 1024;
  const chunks = (100 * MiB) / chunkSize;
  // The source reuses two buffers and allocates nothing, so resident memory only grows by what
  // the decoder itself keeps: a decoder that copied the line would grow by 100 MiB.
  const pool = [new Uint8Array(chunkSize).fill(0x61), new Uint8Array(chunkSize).fill(0x61)];
  const before = Deno.memoryUsage().rss;
  let peak = before;
  let pulled = 0;
  const source = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pulled % 64 === 0) peak = Math.max(peak, Deno.memoryUsage().rss);
      if (pulled < chunks) controller.enqueue(pool[pulled % 2]!);
      else if (pulled === chunks) controller.enqueue(bytes('\n{"after":"resync"}\n'));
      else controller.close();
      pulled++;
    },
  }, { highWaterMark: 0 });
  const out = await Array.fromAsync(source.pipeThrough(new NdjsonDecoderStream(MiB)));
  peak = Math.max(peak, Deno.memoryUsage().rss);
  assert.equal(out.length, 2, JSON.stringify(out.map((f) => f.kind)));
  assert.equal(out[0]!.kind, "oversize");
  if (out[0]!.kind === "oversize") {
    assert.equal(out[0]!.limit, MiB);
    assert.equal(out[0]!.bytes, 100 * MiB);
  }
  assert.deepEqual(out[1], frame('{"after":"resync"}'));
  assert.ok(peak - before < 50 * MiB, `rss grew by ${((peak - before) / MiB).toFixed(1)} MiB`);
});

Deno.test("decoder reports a huge line that never ends exactly once", async () => {
  const chunkSize = 64 * 1024;
  const chunks = (16 * MiB) / chunkSize;
  let pulled = 0;
  const source = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pulled++ < chunks) controller.enqueue(new Uint8Array(chunkSize).fill(0x62));
      else controller.close();
    },
  }, { highWaterMark: 0 });
  const out = await Array.fromAsync(source.pipeThrough(new NdjsonDecoderStream(MiB)));
  assert.deepEqual(out, [{ kind: "oversize", bytes: 16 * MiB, limit: MiB }]);
});

// Bytes built from pieces that hit every branch: frames near the limit, CRLF, blank lines,
// invalid UTF-8, multi-byte characters.
const LIMIT = 12;
const piece = fc.oneof(
  fc.string({ unit: "binary", maxLength: 8 }).map((s) => bytes(JSON.stringify(s))),
  fc.integer({ min: LIMIT - 2, max: LIMIT + 3 }).map((n) => bytes("x".repeat(n))),
  fc.constantFrom(
    bytes("\n"),
    bytes("\r\n"),
    bytes("\r"),
    bytes(" "),
    bytes("€"),
    bytes("😀"),
    Uint8Array.of(0xff),
    Uint8Array.of(0xe2, 0x82),
    Uint8Array.of(0x80),
  ),
);
const byteStream = fc.array(piece, { maxLength: 30 }).map((ps) => concat(...ps));

Deno.test("decoder output does not depend on how the bytes are chunked", async () => {
  await fc.assert(
    fc.asyncProperty(
      byteStream.chain((data) =>
        fc.tuple(
          fc.constant(data),
          fc.uniqueArray(fc.integer({ min: 0, max: data.length }), { maxLength: 20 })
            .map((cuts) => cuts.sort((a, b) => a - b)),
        )
      ),
      async ([data, cuts]) => {
        const whole = await decode([data], LIMIT);
        const chunked = await decode(split(data, cuts), LIMIT);
        assert.deepEqual(chunked, whole);
        const single = await decode(Array.from(data, (b) => Uint8Array.of(b)), LIMIT);
        assert.deepEqual(single, whole);
      },
    ),
    { numRuns: 300 },
  );
});

Deno.test("decoder output matches the specification's line model", async () => {
  await fc.assert(
    fc.asyncProperty(byteStream, async (data) => {
      const out = await decode([data], LIMIT);
      assert.deepEqual(withoutBytes(out), reference(data, LIMIT));
      for (const f of out) {
        if (f.kind === "oversize") {
          assert.equal(f.limit, LIMIT);
          assert.ok(f.bytes > LIMIT);
        }
      }
    }),
    { numRuns: 300 },
  );
});

Deno.test("batch decoder yields the per-frame decoder's frames, one non-empty batch per chunk at most", async () => {
  await fc.assert(
    fc.asyncProperty(
      byteStream.chain((data) =>
        fc.tuple(
          fc.constant(data),
          fc.uniqueArray(fc.integer({ min: 0, max: data.length }), { maxLength: 20 })
            .map((cuts) => cuts.sort((a, b) => a - b)),
        )
      ),
      async ([data, cuts]) => {
        const chunks = split(data, cuts);
        const batches = await Array.fromAsync(
          ReadableStream.from(chunks).pipeThrough(new NdjsonBatchDecoderStream(LIMIT)),
        );
        assert.ok(batches.length <= chunks.length + 1);
        assert.ok(batches.every((b) => b.length > 0));
        assert.deepEqual(batches.flat(), await decode(chunks, LIMIT));
      },
    ),
    { numRuns: 300 },
  );
});

// ---------------------------------------------------------------------------------------------
// Encoder

Deno.test("encodeFrame accepts a frame of exactly the limit, newline excluded", () => {
  const value = { s: "x".repeat(92) };
  const line = encodeFrame(value, 100);
  assert.equal(line.length, 101);
  assert.equal(line[100], 0x0a);
  assert.deepEqual(JSON.parse(new TextDecoder().decode(line)), value);
});

Deno.test("encodeFrame throws FrameTooLargeError one byte over the limit", () => {
  const value = { type: "assistant.completed", s: "x".repeat(93) };
  const size = bytes(JSON.stringify(value)).length;
  assert.doesNotThrow(() => encodeFrame(value, size));
  let error: unknown;
  try {
    encodeFrame(value, size - 1);
  } catch (e) {
    error = e;
  }
  assert.ok(error instanceof FrameTooLargeError, String(error));
  assert.ok(error instanceof RangeError);
  assert.equal(error.bytes, size);
  assert.equal(error.limit, size - 1);
  assert.match(error.message, /assistant\.completed/);
});

Deno.test("encodeFrame counts multi-byte characters and escapes in bytes", () => {
  // 8 bytes of envelope + 10 × 2 bytes of "é" = 28 bytes, in 18 UTF-16 units.
  const accented = { s: "é".repeat(10) };
  assert.equal(encodeFrame(accented, 28).length, 29);
  assert.throws(() => encodeFrame(accented, 27), FrameTooLargeError);
  // 8 + 4 bytes for one astral character.
  const astral = { s: "😀" };
  assert.equal(encodeFrame(astral, 12).length, 13);
  assert.throws(() => encodeFrame(astral, 11), FrameTooLargeError);
  // A newline in a string is escaped to two bytes; a control character to six.
  const escaped = { s: "\n\u0001" };
  assert.equal(encodeFrame(escaped, 16).length, 17);
  assert.throws(() => encodeFrame(escaped, 15), FrameTooLargeError);
});

Deno.test("encodeFrame output is one line the decoder accepts at the same limit", async () => {
  await fc.assert(
    fc.asyncProperty(fc.jsonValue(), fc.integer({ min: 1, max: 200 }), async (value, limit) => {
      let line: Uint8Array;
      try {
        line = encodeFrame(value, limit);
      } catch (e) {
        assert.ok(e instanceof FrameTooLargeError);
        assert.ok(bytes(JSON.stringify(value)).length > limit);
        return;
      }
      assert.equal(line.indexOf(0x0a), line.length - 1);
      const out = await decode([line], limit);
      assert.equal(out.length, 1);
      assert.equal(out[0]!.kind, "frame");
      if (out[0]!.kind === "frame") {
        assert.deepEqual(JSON.parse(out[0]!.text), JSON.parse(JSON.stringify(value)));
      }
    }),
    { numRuns: 300 },
  );
});

Deno.test("encoder stream writes one line per value", async () => {
  const out = await Array.fromAsync(
    ReadableStream.from([{ a: 1 }, { b: "é" }]).pipeThrough(new NdjsonEncoderStream(100)),
  );
  assert.deepEqual(out.map((b) => new TextDecoder().decode(b)), ['{"a":1}\n', '{"b":"é"}\n']);
});

Deno.test("encoder stream errors on a frame over the limit", async () => {
  const out = ReadableStream.from([{ a: 1 }, { s: "x".repeat(100) }])
    .pipeThrough(new NdjsonEncoderStream(50));
  await assert.rejects(Array.fromAsync(out), FrameTooLargeError);
});
