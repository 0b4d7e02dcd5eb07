import assert from "node:assert/strict";
import { builtinTools } from "../../../server/tools/builtin.ts";
import { ToolRegistry } from "../../../server/tools/registry.ts";
import { describeIssues } from "../../../protocol/schema.ts";

Deno.test("builtinTools offers the six contract tools in order, then web_fetch and update_plan", () => {
  assert.deepEqual(builtinTools().map((t) => t.name), [
    "bash",
    "read_file",
    "write_file",
    "edit_file",
    "glob",
    "grep",
    "web_fetch",
    "update_plan",
  ]);
});

Deno.test("builtinTools register and produce JSON Schemas with the contract's arguments", () => {
  const specs = new ToolRegistry(builtinTools()).specs();
  const props = Object.fromEntries(
    specs.map((s) => [
      s.function.name,
      {
        properties: Object.keys(s.function.parameters.properties as object),
        required: s.function.parameters.required,
      },
    ]),
  );
  assert.deepEqual(props, {
    bash: { properties: ["command", "timeout_ms"], required: ["command"] },
    read_file: { properties: ["path", "offset", "limit"], required: ["path"] },
    write_file: { properties: ["path", "content"], required: ["path", "content"] },
    edit_file: {
      properties: ["path", "old_string", "new_string", "replace_all"],
      required: ["path", "old_string", "new_string"],
    },
    glob: { properties: ["pattern"], required: ["pattern"] },
    update_plan: { properties: ["steps"], required: ["steps"] },
    grep: { properties: ["pattern", "path", "glob"], required: ["pattern"] },
    web_fetch: { properties: ["url", "max_bytes"], required: ["url"] },
  });
});

Deno.test("builtin tools reject arguments of the wrong type", () => {
  for (const tool of builtinTools()) {
    assert.equal(tool.schema.safeParse({ path: 1, command: 1, pattern: 1 }).success, false);
  }
});

Deno.test("every built-in tool's arguments that are not an object are described as such", () => {
  for (const tool of builtinTools()) {
    for (const [value, got] of [[[], "an array"], [null, "null"]] as const) {
      const r = tool.schema.safeParse(value);
      assert.ok(!r.success, tool.name);
      assert.equal(
        describeIssues(r.error, "arguments"),
        `the arguments must be a JSON object, got ${got}`,
        tool.name,
      );
    }
  }
});
