/** scv's built-in tools under Claude Code's names and input fields, as hooks see them. */
import { assertEquals } from "../../support/assert.ts";
import { hookToolCall, hookToolResponse } from "../../../server/hooks/tool_names.ts";

Deno.test("each built-in tool gets Claude Code's name and input fields, paths absolute", () => {
  const cwd = "/w";
  assertEquals(hookToolCall("bash", { command: "ls", timeout_ms: 5 }, cwd), {
    tool_name: "Bash",
    tool_input: { command: "ls", timeout: 5 },
  });
  assertEquals(hookToolCall("read_file", { path: "a/b.ts", offset: 2, limit: 3 }, cwd), {
    tool_name: "Read",
    tool_input: { file_path: "/w/a/b.ts", offset: 2, limit: 3 },
  });
  assertEquals(
    hookToolCall("edit_file", { path: "/abs/x", old_string: "a", new_string: "b" }, cwd),
    { tool_name: "Edit", tool_input: { file_path: "/abs/x", old_string: "a", new_string: "b" } },
  );
  assertEquals(hookToolCall("glob", { pattern: "**/*.ts" }, cwd), {
    tool_name: "Glob",
    tool_input: { pattern: "**/*.ts" },
  });
  assertEquals(hookToolCall("grep", { pattern: "x", path: "src", glob: "*.ts" }, cwd), {
    tool_name: "Grep",
    tool_input: { pattern: "x", path: "/w/src", glob: "*.ts" },
  });
});

Deno.test("an MCP tool keeps its name and arguments", () => {
  assertEquals(hookToolCall("mcp__gh__issue", { title: "t" }, "/w"), {
    tool_name: "mcp__gh__issue",
    tool_input: { title: "t" },
  });
});

Deno.test("Bash's tool_response has Claude Code's stdout, stderr and interrupted", () => {
  assertEquals(hookToolResponse("Bash", { command: "ls" }, true, "a\n"), {
    success: true,
    output: "a\n",
    stdout: "a\n",
    stderr: "",
    interrupted: false,
    isImage: false,
  });
});
