/** Model-facing MCP tool names (server/mcp/names.ts). */
import assert from "node:assert/strict";
import { MAX_TOOL_NAME, toolName } from "../../../server/mcp/names.ts";

Deno.test("a tool name keeps letters, digits, _ and - and turns every other character into _", () => {
  assert.equal(toolName("gh", "create-issue_v2", new Set()), "mcp__gh__create-issue_v2");
  assert.equal(toolName("gh", "a.b/c d:é", new Set()), "mcp__gh__a_b_c_d__");
});

Deno.test("a name over 64 characters is cut and ends with a hash, so two long names stay apart", () => {
  const a = toolName("server", "x".repeat(100) + "a", new Set());
  const b = toolName("server", "x".repeat(100) + "b", new Set());
  assert.equal(a.length, MAX_TOOL_NAME);
  assert.equal(b.length, MAX_TOOL_NAME);
  assert.notEqual(a, b);
  assert.match(a, /^mcp__server__x+_[0-9a-f]{8}$/);
});

Deno.test("a name exactly 64 characters long is kept as it is", () => {
  const tool = "t".repeat(MAX_TOOL_NAME - "mcp__s__".length);
  assert.equal(toolName("s", tool, new Set()), `mcp__s__${tool}`);
});

Deno.test("names that clash after sanitizing get _2, _3, ... and stay within 64 characters", () => {
  const taken = new Set<string>();
  const names = ["a b", "a.b", "a?b"].map((t) => {
    const n = toolName("s", t, taken);
    taken.add(n);
    return n;
  });
  assert.deepEqual(names, ["mcp__s__a_b", "mcp__s__a_b_2", "mcp__s__a_b_3"]);
  const long = new Set([toolName("s", "y".repeat(90), new Set())]);
  const second = toolName("s", "y".repeat(90), long);
  assert.equal(second.length, MAX_TOOL_NAME);
  assert.ok(second.endsWith("_2"));
});
