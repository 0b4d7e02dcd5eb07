/**
 * `scv protocol schema`: prints the JSON Schema of every client message and server event,
 * generated from the zod schemas in `protocol/` (see protocol/json_schema.ts).
 *
 * @module
 */
import { protocolJsonSchema } from "../protocol/json_schema.ts";

/** Writes the schema document to stdout as indented JSON; the exit status. */
export async function runProtocolSchema(): Promise<number> {
  const text = `${JSON.stringify(protocolJsonSchema(), null, 2)}\n`;
  const bytes = new TextEncoder().encode(text);
  let written = 0;
  while (written < bytes.length) written += await Deno.stdout.write(bytes.subarray(written));
  return 0;
}
