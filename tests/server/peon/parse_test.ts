/**
 * Request parsing and validation in process (server/peon/parse.ts): each kind of bad
 * frame earns its specific error, and a good one its typed message.
 */
import { assertEquals, assertMatch } from "../../support/assert.ts";
import { parseFrame } from "../../../server/peon/parse.ts";

const text = (value: unknown) => ({
  kind: "frame" as const,
  text: typeof value === "string" ? value : JSON.stringify(value),
});

Deno.test("an oversize frame is invalid_request naming its size and the limit", async () => {
  assertEquals(await parseFrame({ kind: "oversize", bytes: 2000, limit: 1000 }, true), {
    kind: "rejected",
    code: "invalid_request",
    message: "frame of 2000 bytes exceeds max_client_frame_bytes (1000)",
  });
});

Deno.test("a frame that is not UTF-8 or not JSON is invalid_json", async () => {
  const utf8 = await parseFrame({ kind: "invalid_utf8" }, true);
  assertEquals([utf8.kind, utf8.kind === "rejected" && utf8.code], ["rejected", "invalid_json"]);
  const json = await parseFrame(text("{nope"), true);
  assertEquals(json.kind === "rejected" && json.code, "invalid_json");
  assertMatch(json.kind === "rejected" ? json.message : "", /^frame is not valid JSON: /);
});

Deno.test("a JSON value that is not an object is invalid_request", async () => {
  for (const v of ["[1]", "3", "null", '"s"']) {
    const r = await parseFrame(text(v), true);
    assertEquals(r.kind === "rejected" && r.message, "a message must be a JSON object", v);
  }
});

Deno.test("an object with a kind field is still parsed as a message", async () => {
  const r = await parseFrame(
    text({ kind: "rejected", type: "initialize", request_id: "1", protocol_version: 1 }),
    false,
  );
  assertEquals(r.kind, "message");
});

Deno.test("a request_id over the limit is refused without echoing it", async () => {
  const r = await parseFrame(text({ type: "turn.start", request_id: "x".repeat(300) }), true);
  assertEquals(r.kind === "rejected" && [r.code, r.requestId], ["invalid_request", undefined]);
});

Deno.test("an unknown or missing type is invalid_request with the request_id", async () => {
  const unknown = await parseFrame(text({ type: "turn.stop", request_id: "7" }), true);
  assertEquals(unknown, {
    kind: "rejected",
    requestId: "7",
    code: "invalid_request",
    message: 'unknown message type "turn.stop"',
  });
  const missing = await parseFrame(text({ request_id: "8" }), true);
  assertEquals(
    missing.kind === "rejected" && missing.message,
    '"type" must be a string naming a message type',
  );
});

Deno.test("anything but initialize before the handshake is not_initialized", async () => {
  const r = await parseFrame(text({ type: "session.start", request_id: "2", cwd: "/" }), false);
  assertEquals(r.kind === "rejected" && [r.code, r.message], [
    "not_initialized",
    'send "initialize" before "session.start"',
  ]);
});

Deno.test("a message failing its schema is invalid_request naming the field", async () => {
  const r = await parseFrame(text({ type: "turn.start", request_id: "3", prompt: "x" }), true);
  assertEquals(r.kind === "rejected" && r.code, "invalid_request");
  assertMatch(r.kind === "rejected" ? r.message : "", /^invalid "turn.start": "session_id": /);
  const init = await parseFrame(text({ type: "initialize", request_id: "1" }), false);
  assertMatch(init.kind === "rejected" ? init.message : "", /^invalid "initialize": /);
});

Deno.test("a valid message comes back typed, unknown fields dropped", async () => {
  const r = await parseFrame(
    text({ type: "turn.cancel", request_id: "4", session_id: "s", turn_id: "t", extra: 1 }),
    true,
  );
  assertEquals(r, {
    kind: "message",
    message: { type: "turn.cancel", request_id: "4", session_id: "s", turn_id: "t" },
  });
});

Deno.test("a trusted client's request is taken as it is; its frame must still be an object of a known type", async () => {
  // No session_id: zod refuses it from any client but the trusted one (scv exec's own).
  const frame = text({ type: "turn.start", request_id: "t", prompt: "hi" });
  const checked = await parseFrame(frame, true);
  assertEquals(checked.kind === "rejected" && checked.code, "invalid_request");
  assertEquals(await parseFrame(frame, true, true), {
    kind: "message",
    message: { type: "turn.start", request_id: "t", prompt: "hi" } as never,
  });
  const unknown = await parseFrame(text({ type: "nope", request_id: "u" }), true, true);
  assertEquals(unknown.kind === "rejected" && unknown.code, "invalid_request");
  const notObject = await parseFrame(text("[1]"), true, true);
  assertEquals(notObject.kind === "rejected" && notObject.code, "invalid_request");
  const early = await parseFrame(text({ type: "session.list", request_id: "e" }), false, true);
  assertEquals(early.kind === "rejected" && early.code, "not_initialized");
});
