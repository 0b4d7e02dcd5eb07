/**
 * PeonClient over in-memory streams: replies are matched by `request_id`, an `error` for the
 * request rejects it, and listeners see every malformed frame and the end of the input.
 */
import assert from "node:assert/strict";
import { type ClientInput, PeonClient, PeonRequestError } from "../../protocol/client.ts";
import { NdjsonDecoderStream } from "../../protocol/ndjson.ts";

const enc = new TextEncoder();

/** A client wired to a fake server that reads its messages and writes raw lines back. */
function harness(options: { maxFrameBytes?: number; validate?: boolean } = {}) {
  const toServer = new TransformStream<Uint8Array, Uint8Array>();
  const fromServer = new TransformStream<Uint8Array, Uint8Array>();
  const client = new PeonClient(fromServer.readable, toServer.writable, options);
  const inputs: ClientInput[] = [];
  client.on((i) => inputs.push(i));
  const out = fromServer.writable.getWriter();
  const messages = toServer.readable.pipeThrough(new NdjsonDecoderStream(1 << 20)).getReader();
  return {
    client,
    inputs,
    /** The next message the client sent, parsed. */
    async received(): Promise<Record<string, unknown>> {
      const { value, done } = await messages.read();
      assert.ok(!done, "the client closed its output");
      assert.equal(value.kind, "frame");
      return JSON.parse(value.kind === "frame" ? value.text : "null");
    },
    /** Writes one raw line (a newline is added) or a value as JSON. */
    async emit(line: string | Record<string, unknown> | Uint8Array): Promise<void> {
      if (line instanceof Uint8Array) await out.write(line);
      else {await out.write(
          enc.encode((typeof line === "string" ? line : JSON.stringify(line)) + "\n"),
        );}
    },
    async end(): Promise<void> {
      await out.close();
    },
    async fail(reason: Error): Promise<void> {
      await out.abort(reason);
    },
    async finish(): Promise<void> {
      await out.close().catch(() => {});
      await messages.cancel().catch(() => {});
      await client.abort();
    },
  };
}

const initialized = (request_id: string) => ({
  type: "initialized",
  request_id,
  protocol_version: 1,
  server: { name: "s", version: "0" },
});

/** Resolves with "pending" if `p` has not settled after a few macrotasks. */
async function settledState(p: Promise<unknown>): Promise<"pending" | "resolved" | "rejected"> {
  let state: "pending" | "resolved" | "rejected" = "pending";
  p.then(() => (state = "resolved"), () => (state = "rejected"));
  for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 0));
  return state;
}

Deno.test("request resolves with the reply that carries its request_id", async () => {
  const h = harness();
  const reply = h.client.request({ type: "session.start", cwd: "/w" }, ["session.started"]);
  const sent = await h.received();
  assert.equal(sent.type, "session.start");
  assert.equal(typeof sent.request_id, "string");
  const started = {
    type: "session.started",
    session_id: "s1",
    cwd: "/w",
    model: "m",
    context_max_tokens: 1,
    max_server_frame_bytes: 1,
    max_transcript_bytes: 1,
    max_transcript_items: 1,
    max_prompt_history_bytes: 1,
    max_prompt_history_items: 1,
  };
  // Same type, another request; another type, same request: neither is the reply.
  await h.emit({ ...started, request_id: "other", session_id: "wrong1" });
  await h.emit(initialized(String(sent.request_id)));
  assert.equal(await settledState(reply), "pending");
  await h.emit({ ...started, request_id: sent.request_id });
  const ev = await reply;
  assert.equal(ev.type, "session.started");
  assert.equal(ev.session_id, "s1");
  await h.finish();
});

Deno.test("request fills in a fresh request_id and keeps a given one", async () => {
  const h = harness();
  const a = h.client.request({ type: "initialize", protocol_version: 1 }, ["initialized"]);
  const first = await h.received();
  const b = h.client.request({ type: "initialize", protocol_version: 1 }, ["initialized"]);
  const second = await h.received();
  const c = h.client.request(
    { type: "initialize", protocol_version: 1, request_id: "mine" },
    ["initialized"],
  );
  const third = await h.received();
  assert.notEqual(first.request_id, second.request_id);
  assert.equal(third.request_id, "mine");
  await h.emit(initialized("mine"));
  await h.emit(initialized(String(second.request_id)));
  await h.emit(initialized(String(first.request_id)));
  assert.equal((await c).request_id, "mine");
  assert.equal((await b).request_id, second.request_id);
  assert.equal((await a).request_id, first.request_id);
  await h.finish();
});

Deno.test("request rejects with PeonRequestError on an error for its request_id", async () => {
  const h = harness();
  const reply = h.client.request({ type: "session.start", cwd: "/nope" }, ["session.started"]);
  const sent = await h.received();
  const error = {
    type: "error",
    request_id: sent.request_id,
    code: "invalid_request",
    message: "cwd is not a directory",
    fatal: false,
  };
  await h.emit(error);
  const e = await reply.then(() => undefined, (e: unknown) => e);
  assert.ok(e instanceof PeonRequestError, String(e));
  assert.deepEqual(e.event, error);
  assert.match(e.message, /invalid_request/);
  await h.finish();
});

Deno.test("request ignores a non-fatal error for another request", async () => {
  const h = harness();
  const reply = h.client.request({ type: "initialize", protocol_version: 1 }, ["initialized"]);
  const sent = await h.received();
  await h.emit({
    type: "error",
    request_id: "someone-else",
    code: "invalid_request",
    message: "x",
    fatal: false,
  });
  assert.equal(await settledState(reply), "pending");
  await h.emit(initialized(String(sent.request_id)));
  assert.equal((await reply).type, "initialized");
  await h.finish();
});

Deno.test("request rejects when the input closes before its reply", async () => {
  const h = harness();
  const reply = h.client.request({ type: "initialize", protocol_version: 1 }, ["initialized"]);
  await h.received();
  await h.end();
  await assert.rejects(reply, /closed/);
  await h.finish();
});

Deno.test("request made after the input has closed rejects instead of hanging", async () => {
  const h = harness();
  await h.end();
  await h.client.closed;
  const reply = h.client.request({ type: "initialize", protocol_version: 1 }, ["initialized"]);
  void h.received().catch(() => {});
  assert.equal(await settledState(reply), "rejected");
  await reply.catch(() => {});
  await h.finish();
});

Deno.test("request rejects when its message cannot be sent", async () => {
  const fromServer = new TransformStream<Uint8Array, Uint8Array>();
  const broken = new WritableStream<Uint8Array>({
    write() {
      throw new Error("broken pipe");
    },
  });
  const client = new PeonClient(fromServer.readable, broken);
  const reply = client.request({ type: "initialize", protocol_version: 1 }, ["initialized"]);
  await assert.rejects(reply, /broken pipe/);
  // The end of the input afterwards must not surface as a second, unhandled rejection.
  await fromServer.writable.close();
  await client.closed;
  await new Promise((r) => setTimeout(r, 0));
});

Deno.test("listeners receive every server event in order", async () => {
  const h = harness();
  await h.emit(initialized("a"));
  await h.emit({ type: "session.cleared", request_id: "b", session_id: "s", seq: 1 });
  await h.end();
  await h.client.closed;
  assert.deepEqual(h.inputs.map((i) => i.kind), ["event", "event", "closed"]);
  assert.equal(h.inputs[0]!.kind === "event" && h.inputs[0]!.event.type, "initialized");
  assert.equal(h.inputs[1]!.kind === "event" && h.inputs[1]!.event.type, "session.cleared");
  await h.finish();
});

Deno.test("listeners receive malformed frames and reading goes on", async () => {
  const h = harness({ maxFrameBytes: 200 });
  await h.emit("this is not json");
  await h.emit(Uint8Array.of(0x7b, 0xff, 0x7d, 0x0a));
  await h.emit({ type: "turn.paused", request_id: "1" });
  await h.emit({ type: "initialized", request_id: "1" });
  await h.emit(JSON.stringify({ ...initialized("big"), pad: "x".repeat(300) }));
  await h.emit(initialized("ok"));
  await h.end();
  await h.client.closed;
  assert.deepEqual(h.inputs.map((i) => i.kind), [
    "malformed",
    "malformed",
    "malformed",
    "malformed",
    "malformed",
    "event",
    "closed",
  ]);
  for (const i of h.inputs.slice(0, 5)) {
    assert.ok(i.kind === "malformed" && i.reason.length > 0);
  }
  const notJson = h.inputs[0]!;
  assert.ok(notJson.kind === "malformed" && notJson.text === "this is not json");
  await h.finish();
});

Deno.test("a trusting client passes events unchecked with their frame text, several per chunk", async () => {
  const h = harness({ validate: false, maxFrameBytes: 200 });
  // Not a valid initialized (no server): a checking client would report it as malformed.
  const loose = '{"type":"initialized","request_id":"a","extra":1}';
  const next = JSON.stringify({ type: "turn.paused", request_id: "b" });
  await h.emit(enc.encode(`${loose}\n${next}\nnot json\n{"no":"type"}\n`));
  await h.emit(JSON.stringify({ type: "x", pad: "y".repeat(300) }));
  await h.end();
  await h.client.closed;
  assert.deepEqual(h.inputs.map((i) => i.kind), [
    "event",
    "event",
    "malformed",
    "malformed",
    "malformed",
    "closed",
  ]);
  const first = h.inputs[0]!;
  assert.ok(first.kind === "event" && first.text === loose);
  assert.deepEqual(first.event, JSON.parse(loose));
  const second = h.inputs[1]!;
  assert.ok(second.kind === "event" && second.text === next);
  await h.finish();
});

Deno.test("listeners receive closed exactly once when the input ends", async () => {
  const h = harness();
  await h.end();
  await h.client.closed;
  await new Promise((r) => setTimeout(r, 0));
  assert.deepEqual(h.inputs, [{ kind: "closed" }]);
  await h.finish();
  assert.equal(h.inputs.filter((i) => i.kind === "closed").length, 1);
});

Deno.test("listeners receive closed with the reason when the input fails", async () => {
  const h = harness();
  await h.fail(new Error("connection reset"));
  await h.client.closed;
  assert.equal(h.inputs.length, 1);
  const last = h.inputs[0]!;
  assert.equal(last.kind, "closed");
  assert.match(last.kind === "closed" ? String(last.error) : "", /connection reset/);
  await h.finish();
});

Deno.test("a removed listener receives nothing more", async () => {
  const h = harness();
  const seen: ClientInput[] = [];
  const off = h.client.on((i) => seen.push(i));
  await h.emit(initialized("a"));
  await settledState(Promise.resolve());
  off();
  await h.emit(initialized("b"));
  await h.end();
  await h.client.closed;
  assert.equal(seen.length, 1);
  assert.equal(h.inputs.length, 3);
  await h.finish();
});

Deno.test("close ends the output so the server sees EOF", async () => {
  const h = harness();
  const closing = h.client.close();
  await assert.rejects(h.received(), /closed its output/);
  await h.end();
  await closing;
  await assert.rejects(h.client.send({ type: "initialize", protocol_version: 1 }));
  await h.finish();
});
