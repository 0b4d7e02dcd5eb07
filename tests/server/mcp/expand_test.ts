/** `${VAR}` references in MCP settings (server/mcp/expand.ts). */
import assert from "node:assert/strict";
import { expandMap, expandReferences } from "../../../server/mcp/expand.ts";

const env = (n: string) => ({ A: "1", TOKEN: "s3cret" } as Record<string, string>)[n];

Deno.test("every ${NAME} in a value is replaced, other text and a bare $ are kept", () => {
  assert.equal(expandReferences("x${A}y${A}$A", env, "url"), "x1y1$A");
});

Deno.test("an unset variable is an error naming it and where it is used, never a value", () => {
  assert.throws(
    () => expandMap({ Authorization: "Bearer ${TOKEN} ${MISSING}" }, env, "headers"),
    (e: Error) =>
      e instanceof RangeError &&
      e.message === "${MISSING} in headers.Authorization is not set in scv's environment" &&
      !e.message.includes("s3cret"),
  );
});
