import { assert, assertEquals, assertMatch } from "../../support/assert.ts";
import { boundedStream, fitsFrame } from "../../../server/acp/transport.ts";
import type { AnyMessage } from "@agentclientprotocol/sdk";

const enc = new TextEncoder();

/** Feeds `input` lines through the transport; returns what it passed on and what it wrote. */
async function run(input: string, limits = { client: 1024, server: 1024 }) {
  const written: string[] = [];
  const logs: string[] = [];
  const stream = boundedStream(
    ReadableStream.from([enc.encode(input)]),
    new WritableStream({ write: (b) => void written.push(new TextDecoder().decode(b)) }),
    {
      maxClientFrameBytes: limits.client,
      maxServerFrameBytes: limits.server,
      log: (l) => void logs.push(l),
    },
  );
  const messages = await Array.fromAsync(stream.readable);
  return {
    stream,
    messages,
    written: () => written.join("").split("\n").filter((l) => l).map((l) => JSON.parse(l)),
    logs,
  };
}

Deno.test("transport passes JSON-RPC objects on, one per line", async () => {
  const r = await run(
    '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}\n\n{"jsonrpc":"2.0","method":"x"}',
  );
  assertEquals(r.messages.length, 2);
  assertEquals(r.written(), []);
});

Deno.test("transport answers a line that is not JSON with -32700 and goes on", async () => {
  const r = await run('{oops\n{"jsonrpc":"2.0","method":"x"}\n');
  assertEquals(r.messages.length, 1);
  assertEquals(r.written(), [{
    jsonrpc: "2.0",
    id: null,
    error: { code: -32700, message: "Parse error: frame is not valid JSON" },
  }]);
});

Deno.test("transport answers a batch or a bare value with -32600", async () => {
  const r = await run('[{"jsonrpc":"2.0","id":1,"method":"x"}]\n42\nnull\n');
  assertEquals(r.messages.length, 0);
  const codes = r.written().map((m) => m.error.code);
  assertEquals(codes, [-32600, -32600, -32600]);
  assertMatch(r.written()[0].error.message, /batch/);
});

Deno.test("transport answers a client frame one byte over the limit with -32600 and goes on", async () => {
  const exact = JSON.stringify({ jsonrpc: "2.0", method: "m", params: { p: "" } });
  const limit = exact.length + 5;
  const fits = JSON.stringify({ jsonrpc: "2.0", method: "m", params: { p: "12345" } });
  const over = JSON.stringify({ jsonrpc: "2.0", method: "m", params: { p: "123456" } });
  assertEquals(fits.length, limit);
  const r = await run(`${over}\n${fits}\n`, { client: limit, server: 1024 });
  assertEquals(r.messages.length, 1);
  const [err] = r.written();
  assertEquals(err.error.code, -32600);
  assertMatch(
    err.error.message,
    new RegExp(`frame of ${limit + 1} bytes exceeds max_client_frame_bytes \\(${limit}\\)`),
  );
});

Deno.test("transport answers a line that is not UTF-8 with -32700", async () => {
  const written: string[] = [];
  const stream = boundedStream(
    ReadableStream.from([new Uint8Array([0xff, 0xfe, 0x0a])]),
    new WritableStream({ write: (b) => void written.push(new TextDecoder().decode(b)) }),
    { maxClientFrameBytes: 64, maxServerFrameBytes: 1024, log: () => {} },
  );
  assertEquals((await Array.fromAsync(stream.readable)).length, 0);
  assertEquals(JSON.parse(written[0]!).error.code, -32700);
});

async function send(messages: AnyMessage[], server: number) {
  const written: string[] = [];
  const logs: string[] = [];
  const stream = boundedStream(
    ReadableStream.from<Uint8Array>([]),
    new WritableStream({ write: (b) => void written.push(new TextDecoder().decode(b)) }),
    { maxClientFrameBytes: 64, maxServerFrameBytes: server, log: (l) => void logs.push(l) },
  );
  const w = stream.writable.getWriter();
  for (const m of messages) await w.write(m);
  await w.close();
  return { lines: written.join("").split("\n").filter((l) => l), logs };
}

Deno.test("an outgoing frame exactly at the server limit is written whole", async () => {
  const m: AnyMessage = { jsonrpc: "2.0", method: "session/update", params: { t: "abc" } };
  const size = JSON.stringify(m).length;
  const r = await send([m], size);
  assertEquals(r.lines, [JSON.stringify(m)]);
});

Deno.test("an outgoing response over the server limit becomes an internal error naming its size", async () => {
  const m: AnyMessage = { jsonrpc: "2.0", id: 7, result: { text: "x".repeat(500) } };
  const r = await send([m], 200);
  const reply = JSON.parse(r.lines[0]!);
  assertEquals(reply.id, 7);
  assertEquals(reply.error.code, -32603);
  assertMatch(reply.error.message, /response of \d+ bytes exceeds max_server_frame_bytes \(200\)/);
});

Deno.test("an outgoing notification over the server limit is dropped and logged without its content", async () => {
  const secret = "s3cr3t".repeat(100);
  const r = await send([
    { jsonrpc: "2.0", method: "session/update", params: { t: secret } },
    { jsonrpc: "2.0", method: "session/update", params: { t: "ok" } },
  ], 100);
  assertEquals(r.lines.length, 1);
  assertEquals(JSON.parse(r.lines[0]!).params.t, "ok");
  assert(
    r.logs.length === 1 && r.logs[0]!.includes('"session/update"') &&
      !r.logs[0]!.includes("s3cr3t"),
  );
});

Deno.test("fitsFrame measures the encoded message in UTF-8 bytes", () => {
  assert(fitsFrame({ t: "é" }, 10)); // {"t":"é"} is 10 bytes
  assert(!fitsFrame({ t: "é" }, 9));
});

Deno.test("transport stops reading input while the client owes more than the write bound, and resumes as it drains", async () => {
  const lines = Array.from(
    { length: 10 },
    (_, i) => JSON.stringify({ jsonrpc: "2.0", id: i, method: "m" }),
  ).join("\n");
  // Writes complete only when the test releases them: a client that does not read.
  const stalled: Array<() => void> = [];
  const stream = boundedStream(
    ReadableStream.from([enc.encode(lines + "\n")]),
    new WritableStream({ write: () => new Promise<void>((resolve) => void stalled.push(resolve)) }),
    { maxClientFrameBytes: 1024, maxServerFrameBytes: 1024, log: () => {}, maxPendingWrites: 3 },
  );
  const reader = stream.readable.getReader();
  const writer = stream.writable.getWriter();
  // The SDK's part: answer each message without waiting for the answer to be written.
  for (let i = 0; i < 3; i++) {
    const { value } = await reader.read();
    void writer.write({ jsonrpc: "2.0", id: (value as { id: number }).id, result: {} });
  }
  let fourth: unknown;
  const next = reader.read().then((r) => fourth = r.value);
  // Nothing can resolve the read but a finished write: let every pending task run first.
  for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 0));
  assertEquals(fourth, undefined);
  while (stalled.length > 0) stalled.shift()!();
  await next;
  assertEquals((fourth as { id: number }).id, 3);
});
