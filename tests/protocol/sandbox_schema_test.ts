/**
 * The sandbox's wire additions (docs/sandbox.md): `session.started.sandbox` and
 * `approval.requested.sandboxed`. The fixtures are the document's example frames, copied
 * verbatim, so the code and the document cannot drift apart.
 */
import assert from "node:assert/strict";
import { ServerEvent, SessionSandbox } from "../../protocol/schema.ts";

const examples = Deno.readTextFileSync(new URL("./fixtures/sandbox_events.ndjson", import.meta.url))
  .split("\n").filter((l) => l.trim() !== "");
const doc = Deno.readTextFileSync(new URL("../../docs/sandbox.md", import.meta.url));
/** The document's example frames: its JSON code blocks (deno fmt may wrap them). */
const docFrames = [...doc.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => JSON.parse(m[1]!));

Deno.test("every sandbox example frame parses, round-trips and appears in docs/sandbox.md", () => {
  assert.equal(examples.length, 3);
  for (const line of examples) {
    const value = JSON.parse(line);
    const r = ServerEvent.safeParse(value);
    assert.ok(r.success, `${value.type}: ${r.error?.message}`);
    assert.deepEqual(JSON.parse(JSON.stringify(r.data)), value);
    assert.ok(
      docFrames.some((f) => JSON.stringify(f) === JSON.stringify(value)),
      `docs/sandbox.md lacks ${line.slice(0, 80)}...`,
    );
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
  const value = JSON.parse(examples[2]!);
  assert.equal(ServerEvent.safeParse({ ...value, sandboxed: "yes" }).success, false);
  const { sandboxed: _, ...without } = value;
  assert.equal(ServerEvent.safeParse(without).success, true);
});
