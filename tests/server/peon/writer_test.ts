/**
 * FrameWriter against PEON-PROTOCOL.md ("Ordering and backpressure") and CONTRACT.md ("seq"):
 * the queue holds at most 256 frames and max(16 MiB, 2 × max frame) bytes, waiting senders are
 * interrupted by their signal or their timeout, seq numbers are taken when a frame is queued,
 * and frames reach the sink in order.
 */
import assert from "node:assert/strict";
import { FrameTooLargeError } from "../../../protocol/ndjson.ts";
import {
  BackpressureTimeoutError,
  FrameWriter,
  WriterClosedError,
} from "../../../server/peon/writer.ts";
import { SeqCounter } from "../../../server/core/seq.ts";

const MiB = 1024 * 1024;

/** A sink whose writes complete only when released; it records what it saw. */
function gatedSink() {
  const chunks: Uint8Array[] = [];
  const log: string[] = [];
  let gate = Promise.withResolvers<void>();
  let open = false;
  const stream = new WritableStream<Uint8Array>({
    async write(chunk) {
      if (!open) await gate.promise;
      chunks.push(chunk.slice());
      log.push("write");
    },
    close() {
      log.push("close");
    },
    abort() {
      log.push("abort");
    },
  });
  return {
    stream,
    chunks,
    log,
    /** Lets every pending and future write complete. */
    open() {
      open = true;
      gate.resolve();
    },
    /** Lets the pending write complete; later writes wait again. */
    step() {
      const g = gate;
      gate = Promise.withResolvers<void>();
      g.resolve();
    },
    frames(): Array<Record<string, unknown>> {
      return decodeLines(chunks);
    },
  };
}

/** A sink that accepts the first write and never finishes it. */
function stuckSink() {
  let writes = 0;
  const stream = new WritableStream<Uint8Array>({
    write: () => {
      writes++;
      return new Promise<void>(() => {});
    },
  });
  return { stream, writes: () => writes };
}

function decodeLines(chunks: Uint8Array[]): Array<Record<string, unknown>> {
  const text = chunks.map((c) => new TextDecoder().decode(c)).join("");
  assert.ok(text === "" || text.endsWith("\n"), "the sink only ever gets whole lines");
  return text.split("\n").filter((l) => l !== "").map((l) => JSON.parse(l));
}

async function ticks(n = 5): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((r) => setTimeout(r, 0));
}

type State = "pending" | "resolved" | "rejected";

/** Tracks a promise's state without leaving it unhandled. */
function track<T>(p: Promise<T>): { p: Promise<T>; state: () => State } {
  let state: State = "pending";
  p.then(() => (state = "resolved"), () => (state = "rejected"));
  return { p, state: () => state };
}

/** Fails instead of hanging when `p` takes longer than `ms`. */
async function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      p,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what} took over ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Lets pending microtasks run without waiting for a timer. */
async function microtasks(n = 50): Promise<void> {
  for (let i = 0; i < n; i++) await null;
}

/** Sends frames one at a time until a send does not complete; returns the count accepted. */
async function fillUntilBlocked(
  w: FrameWriter,
  make: (i: number) => Record<string, unknown>,
  max = 1000,
): Promise<{ accepted: number; blocked: ReturnType<typeof track> }> {
  for (let i = 0; i < max; i++) {
    const t = track(w.send(make(i)));
    await microtasks();
    if (t.state() === "pending") {
      await ticks(3);
      if (t.state() === "pending") return { accepted: i, blocked: t };
    }
    await t.p;
  }
  throw new Error(`no send blocked after ${max} frames`);
}

Deno.test("writer queues at most 256 frames: the 257th send waits", async () => {
  const sink = stuckSink();
  const w = new FrameWriter(sink.stream, { maxFrameBytes: 1024 });
  const { accepted, blocked } = await fillUntilBlocked(w, (i) => ({ type: "x", i }));
  assert.equal(accepted, 256);
  assert.equal(blocked.state(), "pending");
  await within(w.abort(), 1000, "abort");
  await assert.rejects(blocked.p, WriterClosedError);
});

Deno.test("writer queues at most 256 frames when they are sent all at once", async () => {
  const sink = gatedSink();
  const w = new FrameWriter(sink.stream, { maxFrameBytes: 1024 });
  const sends = Array.from({ length: 300 }, (_, i) => track(w.send({ type: "x", i })));
  await ticks();
  assert.equal(sends.filter((s) => s.state() === "resolved").length, 256);
  sink.open();
  await Promise.all(sends.map((s) => s.p));
  await w.close();
  assert.deepEqual(sink.frames().map((f) => f.i), Array.from({ length: 300 }, (_, i) => i));
});

Deno.test("writer byte bound is max(16 MiB, 2 x maxFrameBytes)", async () => {
  const small = new FrameWriter(new WritableStream(), { maxFrameBytes: 4096 });
  assert.equal(small.maxBytes, 16 * MiB);
  assert.equal(small.maxFrames, 256);
  const default8 = new FrameWriter(new WritableStream(), { maxFrameBytes: 8 * MiB });
  assert.equal(default8.maxBytes, 16 * MiB);
  const large = new FrameWriter(new WritableStream(), { maxFrameBytes: 10 * MiB });
  assert.equal(large.maxBytes, 20 * MiB);
  await Promise.all([small.close(), default8.close(), large.close()]);
});

Deno.test("writer never queues more bytes than its byte bound", async () => {
  const sink = stuckSink();
  const w = new FrameWriter(sink.stream, { maxFrameBytes: MiB });
  const pad = "x".repeat(700 * 1024);
  const { accepted, blocked } = await fillUntilBlocked(w, (i) => ({ type: "x", i, pad }));
  const frameBytes = JSON.stringify({ type: "x", i: 10, pad }).length + 1;
  assert.ok(accepted < 256, "the byte bound, not the frame bound, stopped the sender");
  assert.ok(w.queuedBytes <= w.maxBytes, `${w.queuedBytes} > ${w.maxBytes}`);
  assert.ok(accepted * frameBytes <= 16 * MiB);
  // Not needlessly early either: everything but room for one more frame is usable.
  assert.ok(accepted * frameBytes >= 16 * MiB - MiB - frameBytes, `only ${accepted} accepted`);
  assert.equal(blocked.state(), "pending");
  await within(w.abort(), 1000, "abort");
  await blocked.p.catch(() => {});
});

Deno.test("writer byte bound waits for the sink to take frames, then lets senders on", async () => {
  const sink = gatedSink();
  const w = new FrameWriter(sink.stream, { maxFrameBytes: MiB });
  const pad = "y".repeat(900 * 1024);
  const { accepted, blocked } = await fillUntilBlocked(w, (i) => ({ type: "x", i, pad }));
  sink.open();
  await within(blocked.p, 2000, "the blocked send");
  await w.close();
  assert.deepEqual(
    sink.frames().map((f) => f.i),
    Array.from({ length: accepted + 1 }, (_, i) => i),
  );
});

Deno.test("a waiting send is interrupted by its abort signal", async () => {
  const sink = gatedSink();
  const w = new FrameWriter(sink.stream, { maxFrameBytes: 1024 });
  const seq = new SeqCounter();
  const { accepted } = await fillUntilBlocked(w, () => ({ type: "x" }));
  // The probe send of fillUntilBlocked is still waiting; it is frame `accepted`.
  const controller = new AbortController();
  const waiting = track(w.send({ type: "turn.started", session_id: "s", turn_id: "t" }, {
    seq,
    signal: controller.signal,
  }));
  await ticks();
  assert.equal(waiting.state(), "pending");
  const frames = w.queuedFrames;
  const reason = new DOMException("turn cancelled", "AbortError");
  controller.abort(reason);
  await assert.rejects(waiting.p, (e) => e === reason);
  assert.equal(w.queuedFrames, frames, "nothing was queued");
  assert.equal(seq.last, 0, "no seq was consumed");
  sink.open();
  const n = await w.send({ type: "turn.cancelled", session_id: "s", turn_id: "t" }, { seq });
  assert.equal(n, 1);
  await w.close();
  const out = sink.frames();
  assert.equal(out.length, accepted + 2);
  assert.deepEqual(out.filter((f) => "seq" in f).map((f) => [f.type, f.seq]), [
    ["turn.cancelled", 1],
  ]);
});

Deno.test("a send with an already aborted signal rejects without queueing", async () => {
  const sink = gatedSink();
  const w = new FrameWriter(sink.stream, { maxFrameBytes: 1024 });
  const seq = new SeqCounter();
  const reason = new Error("gone");
  await assert.rejects(
    w.send({ type: "x", session_id: "s" }, { seq, signal: AbortSignal.abort(reason) }),
    (e) => e === reason,
  );
  assert.equal(seq.last, 0);
  assert.equal(w.queuedFrames, 0);
  sink.open();
  await w.close();
  assert.deepEqual(sink.frames(), []);
});

Deno.test("a send with timeoutMs rejects with BackpressureTimeoutError after the timeout", async () => {
  const sink = stuckSink();
  const w = new FrameWriter(sink.stream, { maxFrameBytes: 1024 });
  const seq = new SeqCounter();
  await fillUntilBlocked(w, () => ({ type: "x" }));
  const frames = w.queuedFrames;
  const started = performance.now();
  await assert.rejects(
    w.send({ type: "error", session_id: "s" }, { timeoutMs: 100, seq }),
    BackpressureTimeoutError,
  );
  const elapsed = performance.now() - started;
  assert.ok(elapsed >= 90, `rejected after ${elapsed} ms`);
  assert.ok(elapsed < 1000, `rejected after ${elapsed} ms`);
  assert.equal(w.queuedFrames, frames);
  assert.equal(seq.last, 0);
  await within(w.abort(), 1000, "abort");
});

Deno.test("a send with timeoutMs succeeds when room appears in time", async () => {
  const sink = gatedSink();
  const w = new FrameWriter(sink.stream, { maxFrameBytes: 1024 });
  await fillUntilBlocked(w, () => ({ type: "x" }));
  const late = track(w.send({ type: "late" }, { timeoutMs: 2000 }));
  setTimeout(() => sink.open(), 20);
  await within(late.p, 2000, "the send");
  await w.close();
  assert.equal(sink.frames().at(-1)!.type, "late");
});

Deno.test("seq numbers are assigned at queue time, from 1, strictly increasing", async () => {
  const sink = gatedSink();
  sink.open();
  const w = new FrameWriter(sink.stream, { maxFrameBytes: 1024 });
  const seq = new SeqCounter();
  const returned: Array<number | undefined> = [];
  for (let i = 0; i < 5; i++) {
    returned.push(
      await w.send({ type: "assistant.delta", session_id: "s", turn_id: "t" }, { seq }),
    );
    assert.equal(seq.last, i + 1, "taken as soon as the frame is queued");
  }
  await w.send({ type: "initialized" }); // no seq: takes none
  await w.send({ type: "session.cleared", session_id: "s" }, { seq });
  await w.close();
  assert.deepEqual(returned, [1, 2, 3, 4, 5]);
  const seqs = sink.frames().filter((f) => "seq" in f).map((f) => f.seq);
  assert.deepEqual(seqs, [1, 2, 3, 4, 5, 6]);
  assert.ok(!("seq" in sink.frames()[5]!));
});

Deno.test("seq numbers of concurrent senders follow the order frames reach the sink", async () => {
  const sink = gatedSink();
  const w = new FrameWriter(sink.stream, { maxFrameBytes: 1024 });
  const seq = new SeqCounter();
  const sends = Array.from(
    { length: 400 },
    (_, i) => w.send({ type: "assistant.delta", session_id: "s", turn_id: "t", i }, { seq }),
  );
  await ticks();
  sink.open();
  await Promise.all(sends);
  await w.close();
  const out = sink.frames();
  assert.deepEqual(out.map((f) => f.seq), Array.from({ length: 400 }, (_, i) => i + 1));
});

Deno.test("a frame over the limit throws FrameTooLargeError and consumes no seq", async () => {
  const sink = gatedSink();
  sink.open();
  const w = new FrameWriter(sink.stream, { maxFrameBytes: 200 });
  const seq = new SeqCounter();
  await w.send({ type: "a", session_id: "s" }, { seq });
  await assert.rejects(
    w.send({ type: "b", session_id: "s", content: "x".repeat(300) }, { seq }),
    FrameTooLargeError,
  );
  assert.equal(seq.last, 1);
  await w.send({ type: "c", session_id: "s" }, { seq });
  await w.close();
  assert.deepEqual(sink.frames().map((f) => [f.type, f.seq]), [["a", 1], ["c", 2]]);
});

Deno.test("a frame of exactly maxFrameBytes, seq included, is written", async () => {
  const sink = gatedSink();
  sink.open();
  const w = new FrameWriter(sink.stream, { maxFrameBytes: 100 });
  const seq = new SeqCounter();
  const base = { type: "d", session_id: "s", seq: 1, c: "" };
  const pad = 100 - JSON.stringify(base).length;
  const n = await w.send({ type: "d", session_id: "s", c: "z".repeat(pad) }, { seq });
  assert.equal(n, 1);
  await assert.rejects(
    w.send({ type: "d", session_id: "s", c: "z".repeat(pad + 1) }, { seq }),
    FrameTooLargeError,
  );
  await w.close();
  assert.equal(sink.chunks.reduce((s, c) => s + c.length, 0), 101);
});

Deno.test("frames reach the sink in the order they were sent", async () => {
  let writes = 0;
  const chunks: Uint8Array[] = [];
  const slow = new WritableStream<Uint8Array>({
    async write(c) {
      writes++;
      await new Promise((r) => setTimeout(r, writes % 3));
      chunks.push(c.slice());
    },
  });
  const w = new FrameWriter(slow, { maxFrameBytes: 4096 });
  for (let i = 0; i < 50; i++) await w.send({ type: "x", i });
  const concurrent = Array.from({ length: 600 }, (_, i) => w.send({ type: "x", i: 50 + i }));
  await Promise.all(concurrent);
  await w.close();
  assert.deepEqual(decodeLines(chunks).map((f) => f.i), Array.from({ length: 650 }, (_, i) => i));
});

Deno.test("a failing sink resolves failed and later sends reject with WriterClosedError", async () => {
  const broken = new WritableStream<Uint8Array>({
    write() {
      throw new Error("EPIPE");
    },
  });
  const w = new FrameWriter(broken, { maxFrameBytes: 1024 });
  await w.send({ type: "x" }).catch(() => {});
  const reason = await within(w.failed, 1000, "failed");
  assert.match(reason, /EPIPE/);
  await assert.rejects(w.send({ type: "y" }), WriterClosedError);
  await w.close();
});

Deno.test("senders waiting for room reject with WriterClosedError when the sink fails", async () => {
  let fail!: (e: Error) => void;
  const sink = new WritableStream<Uint8Array>({
    write: () => new Promise<void>((_, reject) => (fail = reject)),
  });
  const w = new FrameWriter(sink, { maxFrameBytes: 1024 });
  const { blocked } = await fillUntilBlocked(w, () => ({ type: "x" }));
  fail(new Error("EPIPE"));
  await assert.rejects(within(blocked.p, 1000, "the blocked send"), WriterClosedError);
  assert.match(await w.failed, /EPIPE/);
  await w.close();
});

Deno.test("close drains every queued frame, then closes the sink", async () => {
  const sink = gatedSink();
  const w = new FrameWriter(sink.stream, { maxFrameBytes: 1024 });
  for (let i = 0; i < 10; i++) await w.send({ type: "x", i });
  const closing = track(w.close());
  await ticks();
  assert.equal(closing.state(), "pending", "close waits for the queue to drain");
  assert.ok(!sink.log.includes("close"));
  sink.open();
  await within(closing.p, 1000, "close");
  assert.deepEqual(sink.frames().map((f) => f.i), Array.from({ length: 10 }, (_, i) => i));
  assert.equal(sink.log.at(-1), "close");
  assert.equal(sink.log.filter((l) => l === "close").length, 1);
});

Deno.test("a send after close rejects with WriterClosedError", async () => {
  const sink = gatedSink();
  sink.open();
  const w = new FrameWriter(sink.stream, { maxFrameBytes: 1024 });
  await w.close();
  await assert.rejects(w.send({ type: "x" }), WriterClosedError);
  assert.deepEqual(sink.frames(), []);
});

Deno.test("a sender waiting for room when close is called is never silently dropped", async () => {
  const sink = gatedSink();
  const w = new FrameWriter(sink.stream, { maxFrameBytes: 1024 });
  const { accepted, blocked } = await fillUntilBlocked(w, (i) => ({ type: "x", i }));
  const closing = w.close();
  sink.open();
  await within(closing, 1000, "close");
  const outcome = await blocked.p.then(() => "resolved", (e) => e);
  const written = sink.frames().map((f) => f.i);
  if (outcome === "resolved") {
    assert.equal(written.length, accepted + 1, "a send that resolved was written");
  } else {
    assert.ok(outcome instanceof WriterClosedError, String(outcome));
    assert.equal(written.length, accepted);
  }
});

Deno.test("abort drops queued frames and aborts the sink", async () => {
  const sink = gatedSink();
  const w = new FrameWriter(sink.stream, { maxFrameBytes: 1024 });
  await w.send({ type: "x", i: 0 });
  await ticks(); // frame 0 is now being written
  for (let i = 1; i < 10; i++) await w.send({ type: "x", i });
  const aborting = w.abort("gone");
  sink.open();
  await within(aborting, 1000, "abort");
  await ticks();
  assert.ok(sink.frames().length <= 1, `${sink.frames().length} frames written after abort`);
  assert.ok(sink.log.includes("abort"));
  await assert.rejects(w.send({ type: "y" }), WriterClosedError);
});

Deno.test("close and abort return even when the sink never finishes a write", async () => {
  const sink = stuckSink();
  const w = new FrameWriter(sink.stream, { maxFrameBytes: 1024 });
  await w.send({ type: "x" });
  await w.send({ type: "y" });
  const closing = track(w.close());
  await ticks();
  assert.equal(closing.state(), "pending", "close waits for the stuck write");
  await within(w.abort("grace period over"), 1000, "abort");
  await within(closing.p, 1000, "close after abort");
});

Deno.test("abort returns even when the sink never finishes a write", async () => {
  const sink = stuckSink();
  const w = new FrameWriter(sink.stream, { maxFrameBytes: 1024 });
  await w.send({ type: "x" });
  await ticks();
  assert.equal(sink.writes(), 1);
  await within(w.abort("grace period over"), 1000, "abort");
  await assert.rejects(w.send({ type: "y" }), WriterClosedError);
});

Deno.test("frames queued one after another within a task go to the sink as one write", async () => {
  const sink = gatedSink();
  sink.open();
  const w = new FrameWriter(sink.stream, { maxFrameBytes: 1024 });
  // Each send awaits a little, as a turn's emits do; they still land in one batch.
  await Promise.all(Array.from({ length: 40 }, async (_, i) => {
    for (let k = 0; k < i % 4; k++) await null;
    await w.send({ type: "d", i });
  }));
  await w.close();
  assert.equal(sink.chunks.length, 1, "one write for the 40 frames");
  assert.deepEqual(
    sink.frames().map((f) => f.i),
    Array.from({ length: 40 }, (_, i) => i).sort(
      (a, b) => (a % 4) - (b % 4) || a - b,
    ),
  );
});

Deno.test("a batch never holds more than the queue bound: a full queue is written at once", async () => {
  const sink = gatedSink();
  sink.open();
  const w = new FrameWriter(sink.stream, { maxFrameBytes: 1024 });
  await Promise.all(Array.from({ length: 600 }, (_, i) => w.send({ type: "d", i })));
  await w.close();
  assert.ok(sink.chunks.length >= 3, `${sink.chunks.length} writes for 600 frames`);
  assert.deepEqual(sink.frames().map((f) => f.i), Array.from({ length: 600 }, (_, i) => i));
});
