/**
 * Checkpoints' wire additions (docs/checkpoints.md): `session.checkpoints`, `session.rewind`,
 * `session.rewound` and `session.started.checkpoints`. The fixtures are the document's example
 * frames, copied verbatim, so the code and the document cannot drift apart.
 */
import assert from "node:assert/strict";
import { ClientMessage, ServerEvent } from "../../protocol/schema.ts";

const read = (name: string) =>
  Deno.readTextFileSync(new URL(`./fixtures/${name}`, import.meta.url))
    .split("\n").filter((l) => l.trim() !== "");
const doc = Deno.readTextFileSync(new URL("../../docs/checkpoints.md", import.meta.url));
/** The document's example frames: its JSON code blocks (deno fmt may wrap them). */
const docFrames = [...doc.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => JSON.parse(m[1]!));

Deno.test("every checkpoints example frame parses, round-trips and appears in docs/checkpoints.md", () => {
  const cases = [
    ...read("checkpoints_client_messages.ndjson").map((l) => [l, ClientMessage] as const),
    ...read("checkpoints_server_events.ndjson").map((l) => [l, ServerEvent] as const),
  ];
  assert.equal(cases.length, 7);
  for (const [line, schema] of cases) {
    const value = JSON.parse(line);
    const r = schema.safeParse(value);
    assert.ok(r.success, `${value.type}: ${r.error?.message}`);
    assert.deepEqual(JSON.parse(JSON.stringify(r.data)), value);
    assert.ok(
      docFrames.some((f) => JSON.stringify(f) === JSON.stringify(value)),
      `docs/checkpoints.md lacks ${line.slice(0, 80)}...`,
    );
  }
});

Deno.test("session.rewind needs files and conversation as booleans", () => {
  const ok = { type: "session.rewind", request_id: "1", session_id: "s", turn_id: "t" };
  assert.equal(ClientMessage.safeParse({ ...ok, files: true }).success, false);
  assert.equal(
    ClientMessage.safeParse({ ...ok, files: "yes", conversation: false }).success,
    false,
  );
  assert.equal(ClientMessage.safeParse({ ...ok, files: true, conversation: false }).success, true);
});
