/**
 * The protocol schemas against the protocol's text. The examples are the frames of the
 * documentation itself (docs/protocol.md for v1, and the page of each later addition, read by
 * tests/support/doc_frames.ts), so the code and the text cannot drift apart.
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
import { type DocFrame, peonDocFrames } from "../support/doc_frames.ts";

type Example = Record<string, unknown>;

/**
 * Whether a documented frame is the client's: as the page says, else when it reads unchanged as
 * a client message (a reply named like its request, `session.list`, carries more fields).
 */
function fromClient(f: DocFrame): boolean {
  if (f.from) return f.from === "client";
  if (!isClientMessageType(f.value.type)) return false;
  const r = ClientMessage.safeParse(f.value);
  return r.success && JSON.stringify(r.data) === JSON.stringify(f.value);
}

function split(frames: DocFrame[]): [Example[], Example[]] {
  return [
    frames.filter(fromClient).map((f) => f.value),
    frames.filter((f) => !fromClient(f)).map((f) => f.value),
  ];
}

const [specClientExamples, specServerExamples] = split(peonDocFrames(["docs/protocol.md"]));
const [clientExamples, serverExamples] = split(peonDocFrames());

/** Parses, re-encodes as a frame and decodes again: the value must come back unchanged. */
function roundTrip(value: unknown, schema: typeof ClientMessage | typeof ServerEvent): unknown {
  const parsed = schema.parse(value);
  const line = new TextDecoder().decode(encodeFrame(parsed, 1 << 20));
  return JSON.parse(line);
}

Deno.test("every client example frame of the documentation parses and round-trips", () => {
  assert.equal(specClientExamples.length, 9);
  for (const example of clientExamples) {
    const r = ClientMessage.safeParse(example);
    assert.ok(r.success, `${example.type}: ${r.error?.message}`);
    assert.deepEqual(roundTrip(example, ClientMessage), example);
  }
});

Deno.test("every server example frame of the documentation parses and round-trips", () => {
  assert.equal(specServerExamples.length, 22);
  for (const example of serverExamples) {
    const r = ServerEvent.safeParse(example);
    assert.ok(r.success, `${example.type}: ${r.error?.message}`);
    assert.deepEqual(roundTrip(example, ServerEvent), example);
  }
});

Deno.test("every declared message and event type has an example in the documentation", () => {
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
  for (const example of serverExamples) {
    // A reply named like its request (session.list) carries more fields than the request,
    // and objects ignore unknown fields, so only the other direction can be told apart.
    if (Object.hasOwn(CLIENT_MESSAGES, String(example.type))) continue;
    assert.ok(!ClientMessage.safeParse(example).success, String(example.type));
  }
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
// scv 0.2 and 0.3 add only optional fields to v1 messages, and their new messages have optional
// parts.
const OPTIONAL: Record<string, string[]> = {
  "files.list": ["limit"],
  "files.read": ["max_bytes"],
  "models.list": ["error"],
  "approval.requested": ["rule", "sandboxed"],
  "turn.start": ["attachments", "queue"],
  "turn.steer": ["attachments"],
  "user.steered": ["images"],
  "initialize": ["client", "capabilities"],
  "turn.completed": ["usage", "cost_usd", "session_cost_usd"],
  "error": ["request_id"],
  "session.start": ["resume"],
  "session.started": [
    "resumed",
    "last_seq",
    "notice",
    "mcp_servers",
    "sandbox",
    "checkpoints",
    "hooks",
    "session_cost_usd",
    "queued",
  ],
  "context.compacted": ["turn_id"],
  "session.list": ["cwd", "limit", "truncated"],
  "session.compact": ["instructions"],
  "session.configure": ["model", "approval_policy"],
  "history.item": ["truncated", "compaction", "name", "summary", "success"],
  "mcp.status": ["truncated"],
  "session.rewind": ["dry_run"],
  "session.rewound": ["dry_run", "truncated", "restored_count", "removed_count"],
  "session.checkpoints": ["truncated"],
  // scv 0.3 (docs/steering.md)
  "turn.cancelled": ["dropped_steers"],
  "turn.failed": ["dropped_steers"],
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
      "session.list",
      "session.history",
      "session.compact",
      "session.configure",
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

Deno.test("approval.requested accepts the four risk classes only", () => {
  const requested = serverExamples.find((e) => e.type === "approval.requested")!;
  // scv 0.3 adds `network` (web_fetch).
  for (const risk of ["read", "write", "process", "network"]) {
    assert.ok(ServerEvent.safeParse({ ...requested, risk }).success, risk);
  }
  assert.ok(!ServerEvent.safeParse({ ...requested, risk: "exec" }).success);
});

Deno.test("every v1 example frame still parses unchanged with the scv 0.2 schemas", () => {
  // Backward compatibility: v1 frames need none of the 0.2 fields.
  for (const example of specClientExamples) {
    assert.deepEqual(JSON.parse(JSON.stringify(ClientMessage.parse(example))), example);
  }
  for (const example of specServerExamples) {
    assert.deepEqual(JSON.parse(JSON.stringify(ServerEvent.parse(example))), example);
  }
});

Deno.test("session.start's resume must be a non-empty string when present", () => {
  const start = { type: "session.start", request_id: "1", cwd: "/w" };
  assert.ok(ClientMessage.safeParse({ ...start, resume: "last" }).success);
  assert.ok(!ClientMessage.safeParse({ ...start, resume: "" }).success);
  assert.ok(!ClientMessage.safeParse({ ...start, resume: 7 }).success);
});

Deno.test("session.list's limit must be a positive integer of at most 1000", () => {
  const list = { type: "session.list", request_id: "1" };
  assert.ok(ClientMessage.safeParse({ ...list, limit: 1000 }).success);
  assert.ok(!ClientMessage.safeParse({ ...list, limit: 1001 }).success);
  assert.ok(!ClientMessage.safeParse({ ...list, limit: 0 }).success);
  assert.ok(!ClientMessage.safeParse({ ...list, limit: 2.5 }).success);
});

Deno.test("session.configure accepts the four approval policies and a non-blank model", () => {
  const configure = { type: "session.configure", request_id: "1", session_id: "s" };
  for (const approval_policy of ["always", "on-risk", "never", "auto"]) {
    assert.ok(ClientMessage.safeParse({ ...configure, approval_policy }).success);
  }
  assert.ok(!ClientMessage.safeParse({ ...configure, approval_policy: "sometimes" }).success);
  assert.ok(!ClientMessage.safeParse({ ...configure, model: "  " }).success);
});

Deno.test("history.item's role is user, assistant or tool", () => {
  const item = { type: "history.item", request_id: "1", session_id: "s", content: "x" };
  for (const role of ["user", "assistant", "tool"]) {
    assert.ok(ServerEvent.safeParse({ ...item, role }).success, role);
  }
  assert.ok(!ServerEvent.safeParse({ ...item, role: "system" }).success);
});
