import { assert, assertEquals } from "../../support/assert.ts";
import { numberLines, withClientFiles } from "../../../server/acp/client_files.ts";
import { builtinTools } from "../../../server/tools/builtin.ts";
import { MAX_LINE_CHARS } from "../../../server/tools/read_file.ts";
import { toolContext, withTempDir } from "../tools/support.ts";

Deno.test("numberLines numbers from the first line and says where to continue when more follows", () => {
  assertEquals(numberLines(["b", "c"], 2, true, 1000), {
    text: "     2\tb\n     3\tc\n[Showing lines 2-3; continue with offset=4]",
    shown: 2,
    truncated: true,
  });
});

Deno.test("numberLines stops at the output limit, footer included, on a line boundary", () => {
  const lines = Array.from({ length: 50 }, (_, i) => `line ${i}`);
  const r = numberLines(lines, 1, false, 200);
  assert(new TextEncoder().encode(r.text).length <= 200);
  assert(r.shown > 0 && r.shown < 50);
  assert(
    r.text.endsWith(
      `[Output limit reached after line ${r.shown}; continue with offset=${r.shown + 1}]`,
    ),
  );
});

Deno.test("numberLines cuts a line past the character cap and says so", () => {
  const r = numberLines(["x".repeat(MAX_LINE_CHARS + 5)], 1, false, 1 << 20);
  assert(r.text.endsWith(` [... line cut at ${MAX_LINE_CHARS} characters]\n`));
});

Deno.test("withClientFiles replaces reads when the client reads and writes and edits when it writes", () => {
  const tools = builtinTools();
  const read = withClientFiles(tools, { read: () => Promise.resolve("") });
  const write = withClientFiles(tools, { write: () => Promise.resolve() });
  const changed = (list: typeof tools) => list.filter((t, i) => t !== tools[i]).map((t) => t.name);
  assertEquals(changed(read), ["read_file"]);
  assertEquals(changed(write), ["write_file", "edit_file"]);
  // Names, schemas and summaries stay those of the disk tools.
  const [, readThrough] = read;
  assertEquals(readThrough!.summary({ path: "a" }), "Read file: a");
});

Deno.test("a write through the client still may not leave the workspace", async () => {
  await withTempDir(async (dir) => {
    const written: string[] = [];
    const tools = withClientFiles(builtinTools(), {
      write: (path) => {
        written.push(path);
        return Promise.resolve();
      },
    });
    const write = tools.find((t) => t.name === "write_file")!;
    const r = await write.run({ path: "../escape.txt", content: "x" }, toolContext(dir));
    assertEquals(r.success, false);
    assertEquals(written, []);
  });
});

Deno.test("an edit through the client of text that is not there writes nothing", async () => {
  await withTempDir(async (dir) => {
    const written: string[] = [];
    const tools = withClientFiles(builtinTools(), {
      read: () => Promise.resolve("alpha\n"),
      write: (path) => {
        written.push(path);
        return Promise.resolve();
      },
    });
    const edit = tools.find((t) => t.name === "edit_file")!;
    const r = await edit.run(
      { path: "a.txt", old_string: "beta", new_string: "gamma" },
      toolContext(dir),
    );
    assertEquals(r.success, false);
    assert(r.output.includes("old_string not found"));
    assertEquals(written, []);
  });
});
