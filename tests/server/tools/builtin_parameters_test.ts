/**
 * The built-in tools' precomputed JSON Schemas (server/tools/builtin_parameters.json) are what
 * zod derives from their schemas; `UPDATE=1 deno test -A` on this file rewrites them.
 */
import assert from "node:assert/strict";
import { z } from "zod";
import { builtinTools } from "../../../server/tools/builtin.ts";

const FILE = new URL("../../../server/tools/builtin_parameters.json", import.meta.url);

/** Each built-in tool's JSON Schema as the registry would derive it without the file. */
function derived(): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const tool of builtinTools()) {
    const { $schema: _, ...parameters } = z.toJSONSchema(
      tool.schema as unknown as z.ZodType,
      { io: "input" },
    ) as Record<string, unknown>;
    out[tool.name] = parameters;
  }
  return out;
}

Deno.test("the built-in tools' precomputed JSON Schemas equal the ones zod derives", async () => {
  const want = derived();
  if (Deno.env.get("UPDATE") === "1") {
    await Deno.writeTextFile(FILE, JSON.stringify(want, null, 2) + "\n");
  }
  assert.deepEqual(JSON.parse(await Deno.readTextFile(FILE)), want);
  for (const tool of builtinTools()) assert.deepEqual(tool.parameters, want[tool.name], tool.name);
});
