/**
 * `scv protocol schema` prints one JSON Schema document (draft 2020-12) generated from the zod
 * tables: a definition for every client message and server event type of the wire's table, that
 * a standard validator (ajv) compiles strictly, accepting the documentation's example frames and
 * refusing broken ones.
 */
import { Ajv2020 } from "ajv/dist/2020";
import { assert, assertEquals } from "../support/assert.ts";
import { CLIENT_MESSAGE_TYPES, SERVER_EVENT_TYPES } from "../../protocol/wire.ts";
import { ClientMessage } from "../../protocol/schema.ts";
import { peonDocFrames } from "../support/doc_frames.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;

async function printedSchema(): Promise<Record<string, unknown>> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-prompt", "--allow-read", "--allow-env", MAIN, "protocol", "schema"],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  assertEquals([out.code, new TextDecoder().decode(out.stderr)], [0, ""]);
  return JSON.parse(new TextDecoder().decode(out.stdout));
}

/** The documentation's example frames, each with the side it is sent from. */
function exampleFrames(): Array<{ frame: unknown; client: boolean }> {
  return peonDocFrames().map((f) => {
    const r = ClientMessage.safeParse(f.value);
    const client = f.from === "client" ||
      (f.from === undefined && r.success && JSON.stringify(r.data) === JSON.stringify(f.value));
    return { frame: f.value, client };
  });
}

Deno.test("scv protocol schema defines every message and event type of the wire's table", async () => {
  const doc = await printedSchema();
  assertEquals(doc.$schema, "https://json-schema.org/draft/2020-12/schema");
  const defs = Object.keys(doc.$defs as Record<string, unknown>).sort();
  const want = [
    ...CLIENT_MESSAGE_TYPES.map((t) => `client.${t}`),
    ...SERVER_EVENT_TYPES.map((t) => `server.${t}`),
    "ClientMessage",
    "ServerEvent",
  ].sort();
  assertEquals(defs, want);
});

Deno.test("the printed schema accepts the example frames and refuses broken ones", async () => {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  ajv.addSchema(await printedSchema(), "peon");
  const validate = ajv.getSchema("peon")!;
  const message = ajv.getSchema("peon#/$defs/ClientMessage")!;
  const event = ajv.getSchema("peon#/$defs/ServerEvent")!;
  const frames = exampleFrames();
  assert(frames.length > 20, `only ${frames.length} example frames`);
  for (const { frame, client } of frames) {
    const side = client ? message : event;
    assert(side(frame), `${JSON.stringify(frame)}: ${JSON.stringify(side.errors)}`);
  }
  const broken = [
    { type: "turn.start", request_id: "1", session_id: "s" }, // no prompt
    { type: "turn.stop", request_id: "1" }, // no such type
    { type: "turn.failed", request_id: "1", session_id: "s", turn_id: "t", seq: 0, code: "x" },
    { type: "approval.resolve", request_id: "", session_id: "s", approval_id: "a", approved: 1 },
  ];
  for (const frame of broken) assertEquals(validate(frame), false, JSON.stringify(frame));
});
