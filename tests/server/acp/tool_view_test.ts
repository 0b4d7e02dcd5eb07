import { assertEquals } from "../../support/assert.ts";
import { absoluteIn, toolKind, toolLocations, writesFile } from "../../../server/acp/tool_view.ts";

Deno.test("tool kinds: bash executes, file reads read, writes and edits edit, finders search", () => {
  assertEquals(
    ["bash", "read_file", "write_file", "edit_file", "glob", "grep"].map(toolKind),
    ["execute", "read", "edit", "edit", "search", "search"],
  );
});

Deno.test("tool kinds: an MCP tool or an unknown name is other, even a prototype key", () => {
  assertEquals(toolKind("mcp__everything__echo"), "other");
  assertEquals(toolKind("toString"), "other");
});

Deno.test("a relative path is joined to the workspace and normalised; .. cannot climb past /", () => {
  assertEquals(absoluteIn("/ws/p", "./src//a.ts"), "/ws/p/src/a.ts");
  assertEquals(absoluteIn("/ws", "../../../../etc"), "/etc");
  assertEquals(absoluteIn("/ws", "/abs/../x"), "/x");
});

Deno.test("file tools have their file as location, read_file with its starting line", () => {
  assertEquals(toolLocations("write_file", { path: "a.txt", content: "" }, "/ws"), [
    { path: "/ws/a.txt" },
  ]);
  assertEquals(toolLocations("read_file", { path: "/etc/hosts", offset: 3 }, "/ws"), [
    { path: "/etc/hosts", line: 3 },
  ]);
});

Deno.test("a tool without a usable path argument has no locations", () => {
  assertEquals(toolLocations("read_file", "not json", "/ws"), []);
  assertEquals(toolLocations("edit_file", { path: 7 }, "/ws"), []);
  assertEquals(toolLocations("grep", { pattern: "x", path: "src" }, "/ws"), []);
});

Deno.test("only write_file and edit_file produce diffs", () => {
  assertEquals(["write_file", "edit_file", "read_file", "bash"].map(writesFile), [
    true,
    true,
    false,
    false,
  ]);
});
