/**
 * The sandbox's wire additions (docs/sandbox.md): `session.started.sandbox` and
 * `approval.requested.sandboxed`. The examples are the document's own frames, so the code and
 * the document cannot drift apart.
 */
import assert from "node:assert/strict";
import { ServerEvent, SessionSandbox } from "../../protocol/schema.ts";
import { peonDocFrames } from "../support/doc_frames.ts";

const examples = peonDocFrames(["docs/sandbox.md"]).map((f) => f.value);

Deno.test("every sandbox example frame of docs/sandbox.md parses and round-trips", () => {
  assert.equal(examples.length, 3);
  for (const value of examples) {
    const r = ServerEvent.safeParse(value);
    assert.ok(r.success, `${value.type}: ${r.error?.message}`);
    assert.deepEqual(JSON.parse(JSON.stringify(r.data)), value);
  }
});

Deno.test("session.started.sandbox rejects an off mode without its reason", () => {
  assert.equal(SessionSandbox.safeParse({ mode: "off" }).success, false);
  assert.equal(SessionSandbox.safeParse({ mode: "off", reason: "x" }).success, true);
});

Deno.test("session.started.sandbox rejects an active mode without network and an unknown mode", () => {
  assert.equal(SessionSandbox.safeParse({ mode: "workspace-write" }).success, false);
  assert.equal(SessionSandbox.safeParse({ mode: "anything", network: false }).success, false);
});

Deno.test("approval.requested.sandboxed must be a boolean when present", () => {
  const value = examples.find((e) => e.type === "approval.requested")!;
  assert.equal(ServerEvent.safeParse({ ...value, sandboxed: "yes" }).success, false);
  const { sandboxed: _, ...without } = value;
  assert.equal(ServerEvent.safeParse(without).success, true);
});
