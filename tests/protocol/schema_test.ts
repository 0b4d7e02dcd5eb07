/**
 * The protocol schemas against PEON-PROTOCOL.md. The fixtures are the specification's example
 * frames, copied verbatim, so the code and the document cannot drift apart.
 */
import assert from "node:assert/strict";
import {
  CLIENT_MESSAGES,
  ClientMessage,
  ERROR_CODES,
  isClientMessageType,
  SERVER_EVENTS,
  ServerEvent,
  TURN_FAILURE_CODES,
} from "../../protocol/schema.ts";
import { encodeFrame } from "../../protocol/ndjson.ts";

const fixtures = new URL("./fixtures/", import.meta.url);

function readFixture(name: string): Array<Record<string, unknown>> {
  const text = Deno.readTextFileSync(new URL(name, fixtures));
  return text.split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l));
}

const clientExamples = readFixture("client_messages.ndjson");
const serverExamples = readFixture("server_events.ndjson");

/** Parses, re-encodes as a frame and decodes again: the value must come back unchanged. */
function roundTrip(value: unknown, schema: typeof ClientMessage | typeof ServerEvent): unknown {
  const parsed = schema.parse(value);
  const line = new TextDecoder().decode(encodeFrame(parsed, 1 << 20));
  return JSON.parse(line);
}

Deno.test("every client example frame of the specification parses and round-trips", () => {
  assert.equal(clientExamples.length, 6);
  for (const example of clientExamples) {
    const r = ClientMessage.safeParse(example);
    assert.ok(r.success, `${example.type}: ${r.error?.message}`);
    assert.deepEqual(roundTrip(example, ClientMessage), example);
  }
});

Deno.test("every server example frame of the specification parses and round-trips", () => {
  assert.equal(serverExamples.length, 17);
  for (const example of serverExamples) {
    const r = ServerEvent.safeParse(example);
    assert.ok(r.success, `${example.type}: ${r.error?.message}`);
    assert.deepEqual(roundTrip(example, ServerEvent), example);
  }
});

Deno.test("every declared message and event type has an example in the specification", () => {
  assert.deepEqual(
    [...new Set(clientExamples.map((e) => e.type))].sort(),
    Object.keys(CLIENT_MESSAGES).sort(),
  );
  assert.deepEqual(
    [...new Set(serverExamples.map((e) => e.type))].sort(),
    Object.keys(SERVER_EVENTS).sort(),
  );
});

Deno.test("client message examples are not server events and vice versa", () => {
  for (const example of clientExamples) assert.ok(!ServerEvent.safeParse(example).success);
  for (const example of serverExamples) assert.ok(!ClientMessage.safeParse(example).success);
});

Deno.test("unknown fields are ignored when parsing a client message", () => {
  for (const example of clientExamples) {
    const extended = { ...example, future_field: { nested: [1, 2] }, x: "y" };
    const r = ClientMessage.safeParse(extended);
    assert.ok(r.success, `${example.type}: ${r.error?.message}`);
    assert.deepEqual(JSON.parse(JSON.stringify(r.data)), example);
  }
});

Deno.test("unknown fields are ignored when parsing a server event", () => {
  for (const example of serverExamples) {
    const extended = { ...example, future_field: true };
    const r = ServerEvent.safeParse(extended);
    assert.ok(r.success, `${example.type}: ${r.error?.message}`);
    assert.deepEqual(JSON.parse(JSON.stringify(r.data)), example);
  }
});

// Fields the specification allows to be absent: usage when no provider call reported it, the
// request id of an error about a frame that had none, and the client's self-description.
const OPTIONAL: Record<string, string[]> = {
  "initialize": ["client"],
  "turn.completed": ["usage"],
  "error": ["request_id"],
};

Deno.test("a client message missing a required field fails to parse", () => {
  for (const example of clientExamples) {
    for (const key of Object.keys(example)) {
      if (OPTIONAL[String(example.type)]?.includes(key)) continue;
      const { [key]: _dropped, ...rest } = example;
      assert.ok(!ClientMessage.safeParse(rest).success, `${example.type} without ${key}`);
    }
  }
});

Deno.test("a server event missing a required field fails to parse", () => {
  for (const example of serverExamples) {
    for (const key of Object.keys(example)) {
      if (OPTIONAL[String(example.type)]?.includes(key)) continue;
      const { [key]: _dropped, ...rest } = example;
      assert.ok(!ServerEvent.safeParse(rest).success, `${example.type} without ${key}`);
    }
  }
});

Deno.test("optional fields the specification allows to be omitted may be omitted", () => {
  const completed = serverExamples.find((e) => e.type === "turn.completed")!;
  const { usage: _usage, ...noUsage } = completed;
  assert.ok(ServerEvent.safeParse(noUsage).success);
  assert.ok(ServerEvent.safeParse({ ...completed, usage: {} }).success);
  assert.ok(ServerEvent.safeParse({ ...completed, usage: { output_tokens: 3 } }).success);
  const error = serverExamples.find((e) => e.type === "error")!;
  const { request_id: _id, ...noId } = error;
  assert.ok(ServerEvent.safeParse(noId).success);
});

Deno.test("a field of the wrong type fails to parse", () => {
  const turnStart = clientExamples.find((e) => e.type === "turn.start")!;
  assert.ok(!ClientMessage.safeParse({ ...turnStart, prompt: 42 }).success);
  assert.ok(!ClientMessage.safeParse({ ...turnStart, request_id: 3 }).success);
  const resolve = clientExamples.find((e) => e.type === "approval.resolve")!;
  assert.ok(!ClientMessage.safeParse({ ...resolve, approved: "yes" }).success);
  const started = serverExamples.find((e) => e.type === "turn.started")!;
  assert.ok(!ServerEvent.safeParse({ ...started, seq: "1" }).success);
  assert.ok(!ServerEvent.safeParse({ ...started, seq: 1.5 }).success);
  assert.ok(!ServerEvent.safeParse({ ...started, seq: 0 }).success, "seq starts at 1");
});

Deno.test("isClientMessageType accepts exactly the client message types", () => {
  for (
    const t of [
      "initialize",
      "session.start",
      "turn.start",
      "turn.cancel",
      "approval.resolve",
      "session.clear",
    ]
  ) {
    assert.ok(isClientMessageType(t), t);
  }
  for (
    const t of [
      "turn.stop",
      "",
      "INITIALIZE",
      "initialized",
      "turn.started",
      "constructor",
      "__proto__",
      "toString",
      "hasOwnProperty",
      1,
      null,
      undefined,
      {},
    ]
  ) {
    assert.ok(!isClientMessageType(t), String(t));
  }
});

Deno.test("a client message of an unknown type fails to parse", () => {
  assert.ok(!ClientMessage.safeParse({ type: "turn.stop", request_id: "1" }).success);
  assert.ok(!ClientMessage.safeParse({ request_id: "1" }).success);
  assert.ok(!ServerEvent.safeParse({ type: "turn.paused", request_id: "1" }).success);
});

Deno.test("error events carry exactly the stable request/server error codes", () => {
  const documented = [
    "invalid_json",
    "not_initialized",
    "version_mismatch",
    "invalid_request",
    "session_not_found",
    "turn_active",
    "turn_not_found",
    "approval_not_found",
    "internal_error",
  ];
  assert.deepEqual([...ERROR_CODES].sort(), documented.sort());
  const error = serverExamples.find((e) => e.type === "error")!;
  for (const code of documented) assert.ok(ServerEvent.safeParse({ ...error, code }).success);
  assert.ok(!ServerEvent.safeParse({ ...error, code: "provider_error" }).success);
});

Deno.test("turn.failed carries exactly the stable turn failure codes", () => {
  const documented = [
    "provider_error",
    "context_limit",
    "step_limit",
    "history_limit",
    "response_limit",
    "tool_limit",
    "internal_error",
  ];
  assert.deepEqual([...TURN_FAILURE_CODES].sort(), documented.sort());
  const failed = serverExamples.find((e) => e.type === "turn.failed")!;
  for (const code of documented) assert.ok(ServerEvent.safeParse({ ...failed, code }).success);
  assert.ok(!ServerEvent.safeParse({ ...failed, code: "not_initialized" }).success);
});

Deno.test("approval.requested accepts the three risk classes only", () => {
  const requested = serverExamples.find((e) => e.type === "approval.requested")!;
  for (const risk of ["read", "write", "process"]) {
    assert.ok(ServerEvent.safeParse({ ...requested, risk }).success, risk);
  }
  assert.ok(!ServerEvent.safeParse({ ...requested, risk: "network" }).success);
});
