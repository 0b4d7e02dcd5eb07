/**
 * The protocol's text is the one the code speaks: every Peon frame the documentation shows
 * (docs/*.md and the README's sample session) is read from the Markdown and must parse on its
 * side and come back unchanged (a misspelt or unknown field is stripped, so it fails); every
 * type of the wire's table has an example; docs/protocol.md's table names exactly those types.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { ClientMessage, ServerEvent } from "../../protocol/schema.ts";
import {
  CLIENT_MESSAGE_TYPES,
  SERVER_EVENT_KINDS,
  SERVER_EVENT_TYPES,
} from "../../protocol/wire.ts";
import { framesOf, peonDocFrames } from "../support/doc_frames.ts";

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** The sides a frame reads as, unchanged. */
function sidesOf(value: Record<string, unknown>): Array<"client" | "server"> {
  const sides: Array<"client" | "server"> = [];
  const c = ClientMessage.safeParse(value);
  if (c.success && same(c.data, value)) sides.push("client");
  const s = ServerEvent.safeParse(value);
  if (s.success && same(s.data, value)) sides.push("server");
  return sides;
}

Deno.test("every Peon frame of the documentation parses on its side and round-trips unchanged", () => {
  const frames = peonDocFrames();
  assert(frames.length > 50, `only ${frames.length} frames found`);
  const protocolPage = frames.filter((f) => f.page === "docs/protocol.md");
  assertEquals(protocolPage.length, 31);
  for (const f of frames) {
    const sides = sidesOf(f.value);
    const where = `${f.page}:${f.line} ${JSON.stringify(f.value).slice(0, 120)}`;
    assert(sides.length > 0, `${where} does not match its schema`);
    if (f.from) assert(sides.includes(f.from), `${where} is not a ${f.from} frame`);
  }
});

Deno.test("every message and event type of the wire's table has an example frame in the docs", () => {
  const frames = peonDocFrames();
  const client = new Set(
    frames.filter((f) => sidesOf(f.value).includes("client")).map((f) => f.value.type),
  );
  const server = new Set(
    frames.filter((f) => sidesOf(f.value).includes("server")).map((f) => f.value.type),
  );
  assertEquals(CLIENT_MESSAGE_TYPES.filter((t) => !client.has(t)), []);
  assertEquals(SERVER_EVENT_TYPES.filter((t) => !server.has(t)), []);
});

Deno.test("docs/protocol.md's table names exactly the wire's types, with their kinds", async () => {
  const text = await Deno.readTextFile(new URL("../../docs/protocol.md", import.meta.url));
  const table = text.slice(text.indexOf("| client message"), text.indexOf("## Opening"));
  const messages = new Set<string>();
  const events = new Map<string, string>();
  for (const row of table.split("\n").slice(2)) {
    const cells = row.split("|").map((c) => c.trim());
    if (cells.length < 5) continue;
    const [, message, event, kind] = cells as [string, string, string, string];
    if (message) messages.add(message.replaceAll("`", ""));
    if (event) events.set(event.replaceAll("`", ""), kind);
  }
  assertEquals([...messages].sort(), [...CLIENT_MESSAGE_TYPES].sort());
  assertEquals([...events.keys()].sort(), [...SERVER_EVENT_TYPES].sort());
  for (const t of SERVER_EVENT_TYPES) assertEquals(events.get(t), SERVER_EVENT_KINDS[t], t);
});

Deno.test("the doc reader takes json blocks, ndjson lines and sample-session lines, nothing else", () => {
  const md = [
    'Text {"type":"turn.start"} outside a block.',
    "```json",
    '{ "type": "initialize",',
    '  "request_id": "1" }',
    "```",
    "```ndjson",
    '{"type":"turn.cancel","request_id":"2"}',
    '{"type":"turn.cancelled","request_id":"2"}',
    "```",
    "```",
    '> {"type":"session.clear","request_id":"3"}',
    '< {"type":"session.cleared","request_id":"3"}',
    "plain text line",
    "```",
    "```jsonc",
    '{ "type": "initialize" } // a config, not a frame',
    "```",
  ].join("\n");
  const frames = framesOf(md, "x.md");
  assertEquals(frames.map((f) => [f.value.type, f.from ?? "", f.line]), [
    ["initialize", "", 2],
    ["turn.cancel", "", 6],
    ["turn.cancelled", "", 6],
    ["session.clear", "client", 10],
    ["session.cleared", "server", 10],
  ]);
});
