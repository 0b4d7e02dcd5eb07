/**
 * The JSON Schema of the Peon wire, generated from the zod tables (`scv protocol schema` prints
 * it): one document whose `$defs` hold every client message (`client.<type>`) and every server
 * event (`server.<type>`), with `ClientMessage` and `ServerEvent` as the unions of each side.
 * Schemas describe what a reader accepts: unknown fields are allowed, as the protocol says.
 *
 * @module
 */
import * as z from "zod";
import { PROTOCOL_VERSION, SCV_VERSION } from "./constants.ts";
import { CLIENT_MESSAGES, SERVER_EVENTS } from "./schema.ts";

/** A JSON Schema document (draft 2020-12), as plain JSON. */
export type JsonSchema = Record<string, unknown>;

/** The `$defs` name of a client message type (`client.turn.start`). */
export function clientDef(type: string): string {
  return `client.${type}`;
}

/** The `$defs` name of a server event type (`server.turn.failed`). */
export function serverDef(type: string): string {
  return `server.${type}`;
}

/** One schema without its own `$schema` key (the document carries it once). */
function bare(schema: z.ZodType): JsonSchema {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, { io: "input" }) as JsonSchema;
  return rest;
}

/**
 * The whole wire as one JSON Schema document. A frame is valid when it matches `ClientMessage`
 * (client to server) or `ServerEvent` (server to client).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { protocolJsonSchema } from "./json_schema.ts";
 * const doc = protocolJsonSchema();
 * const defs = doc.$defs as Record<string, { required?: string[] }>;
 * assert.deepEqual(defs["client.turn.cancel"]?.required, ["type", "request_id", "session_id", "turn_id"]);
 * ```
 */
export function protocolJsonSchema(): JsonSchema {
  const defs: Record<string, JsonSchema> = {};
  for (const [type, schema] of Object.entries(CLIENT_MESSAGES)) {
    defs[clientDef(type)] = bare(schema);
  }
  for (const [type, schema] of Object.entries(SERVER_EVENTS)) defs[serverDef(type)] = bare(schema);
  const refs = (names: string[]) => names.map((n) => ({ $ref: `#/$defs/${n}` }));
  defs.ClientMessage = { oneOf: refs(Object.keys(CLIENT_MESSAGES).map(clientDef)) };
  defs.ServerEvent = { oneOf: refs(Object.keys(SERVER_EVENTS).map(serverDef)) };
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    title: `Peon protocol ${PROTOCOL_VERSION} (scv ${SCV_VERSION})`,
    description: "One NDJSON frame of the Peon protocol: a client message or a server event.",
    // Either side: a client message and an event may share a type name (`session.list`).
    anyOf: refs(["ClientMessage", "ServerEvent"]),
    $defs: defs,
  };
}
