/**
 * The registry's JSON Schemas (server/tools/registry.ts): precomputed `parameters` are sent as
 * they are; a zod schema states its own; anything else is refused by name.
 */
import assert from "node:assert/strict";
import * as z from "zod";
import { ToolRegistry } from "../../../server/tools/registry.ts";
import { defineTool } from "../../../server/tools/tool.ts";

const base = {
  description: "A test tool",
  risk: () => "read" as const,
  summary: () => "test",
  run: () => Promise.resolve({ success: true, output: "", truncated: false }),
};

Deno.test("a tool without parameters gets the JSON Schema zod derives from its schema", () => {
  const schema = z.object({ path: z.string().min(1), limit: z.number().int().optional() });
  const [spec] = new ToolRegistry([defineTool({ ...base, name: "zodded", schema })]).specs();
  const { $schema: _, ...want } = z.toJSONSchema(schema, { io: "input" });
  assert.deepEqual(spec!.function.parameters, want);
  assert.equal("$schema" in spec!.function.parameters, false);
});

Deno.test("precomputed parameters are sent as they are", () => {
  const parameters = { type: "object", properties: { q: { type: "string" } } };
  const [spec] = new ToolRegistry([
    {
      ...base,
      name: "json",
      schema: { safeParse: () => ({ success: false, error: { issues: [] } }) },
      parameters,
    },
  ]).specs();
  assert.deepEqual(spec!.function.parameters, parameters);
});

Deno.test("a tool with neither parameters nor a zod schema is refused, by name", () => {
  const registry = new ToolRegistry([{
    ...base,
    name: "bare",
    schema: { safeParse: (v: unknown) => ({ success: true as const, data: v }) },
  }]);
  assert.throws(
    () => registry.specs(),
    (e: Error) => e instanceof TypeError && e.message.includes('Tool "bare" has no "parameters"'),
  );
});
