import assert from "node:assert/strict";
import { toolContext, withDirs } from "./support.ts";
import { editFileTool } from "../../../server/tools/edit_file.ts";
import type { ToolContext, ToolLimits } from "../../../server/tools/tool.ts";

function context(cwd: string, limits: Partial<ToolLimits> = {}): ToolContext {
  return toolContext(cwd, { limits });
}

const SOURCE = [
  "function greet(name) {",
  "  const greeting = 'hello';",
  "  const target = name;",
  "  const punctuation = '!';",
  "  return greeting + ' ' + target + punctuation;",
  "}",
  "",
  "export { greet };",
  "",
].join("\n");

Deno.test("edit_file summary and risk follow the contract", async () => {
  const args = { path: "src/a.ts", old_string: "a", new_string: "b" };
  assert.equal(editFileTool.summary(args), "Edit file: src/a.ts");
  assert.equal(await editFileTool.risk(args, { cwd: "/" }), "write");
});

Deno.test("edit_file replaces a unique string and shows a unified diff", async () => {
  await withDirs(async (ws) => {
    await Deno.mkdir(`${ws}/src`);
    await Deno.writeTextFile(`${ws}/src/greet.js`, SOURCE);
    const r = await editFileTool.run(
      { path: "src/greet.js", old_string: "'hello'", new_string: "'hi'" },
      context(ws),
    );
    assert.deepEqual(r, {
      success: true,
      output: [
        `Edited "src/greet.js": replaced 1 occurrence`,
        "",
        "--- a/src/greet.js",
        "+++ b/src/greet.js",
        "@@ -1,5 +1,5 @@",
        " function greet(name) {",
        "-  const greeting = 'hello';",
        "+  const greeting = 'hi';",
        "   const target = name;",
        "   const punctuation = '!';",
        "   return greeting + ' ' + target + punctuation;",
        "",
      ].join("\n"),
      truncated: false,
    });
    assert.equal(
      await Deno.readTextFile(`${ws}/src/greet.js`),
      SOURCE.replace("'hello'", "'hi'"),
    );
  });
});

Deno.test("edit_file inserts replacement text literally, $ patterns included", async () => {
  await withDirs(async (ws) => {
    await Deno.writeTextFile(`${ws}/a.txt`, "price: X\n");
    const r = await editFileTool.run(
      { path: "a.txt", old_string: "X", new_string: "$& $1 $$" },
      context(ws),
    );
    assert.equal(r.success, true, r.output);
    assert.equal(await Deno.readTextFile(`${ws}/a.txt`), "price: $& $1 $$\n");
  });
});

Deno.test("edit_file fails when old_string is not found", async () => {
  await withDirs(async (ws) => {
    await Deno.writeTextFile(`${ws}/a.txt`, SOURCE);
    const r = await editFileTool.run(
      { path: "a.txt", old_string: "goodbye", new_string: "x" },
      context(ws),
    );
    assert.deepEqual(r, {
      success: false,
      output: `old_string not found in "a.txt"; read the file again and copy the text ` +
        `exactly, including whitespace and indentation`,
      truncated: false,
    });
    assert.equal(await Deno.readTextFile(`${ws}/a.txt`), SOURCE);
  });
});

Deno.test("edit_file fails on several matches without replace_all, naming the count", async () => {
  await withDirs(async (ws) => {
    await Deno.writeTextFile(`${ws}/a.txt`, SOURCE);
    const r = await editFileTool.run(
      { path: "a.txt", old_string: "const", new_string: "let" },
      context(ws),
    );
    assert.deepEqual(r, {
      success: false,
      output: `old_string occurs 3 times in "a.txt"; include more surrounding text to make it ` +
        `unique, or set replace_all to replace every occurrence`,
      truncated: false,
    });
    assert.equal(await Deno.readTextFile(`${ws}/a.txt`), SOURCE);
  });
});

Deno.test("edit_file replaces every occurrence with replace_all", async () => {
  await withDirs(async (ws) => {
    await Deno.writeTextFile(`${ws}/a.txt`, SOURCE);
    const r = await editFileTool.run(
      { path: "a.txt", old_string: "const", new_string: "let", replace_all: true },
      context(ws),
    );
    assert.equal(r.success, true);
    assert.ok(r.output.startsWith(`Edited "a.txt": replaced 3 occurrences\n\n--- a/a.txt\n`));
    assert.equal(await Deno.readTextFile(`${ws}/a.txt`), SOURCE.replaceAll("const", "let"));
  });
});

Deno.test("edit_file refuses identical old_string and new_string", async () => {
  await withDirs(async (ws) => {
    await Deno.writeTextFile(`${ws}/a.txt`, SOURCE);
    const r = await editFileTool.run(
      { path: "a.txt", old_string: "greet", new_string: "greet" },
      context(ws),
    );
    assert.deepEqual(r, {
      success: false,
      output: `Cannot edit "a.txt": old_string and new_string are identical, nothing would change`,
      truncated: false,
    });
  });
});

Deno.test("edit_file refuses an empty old_string", async () => {
  await withDirs(async (ws) => {
    await Deno.writeTextFile(`${ws}/a.txt`, SOURCE);
    const r = await editFileTool.run(
      { path: "a.txt", old_string: "", new_string: "x" },
      context(ws),
    );
    assert.equal(r.success, false);
    assert.equal(
      r.output,
      `Cannot edit "a.txt": old_string is empty; to write a whole file use write_file`,
    );
  });
});

Deno.test("edit_file reports a missing file", async () => {
  await withDirs(async (ws) => {
    const r = await editFileTool.run(
      { path: "nope.txt", old_string: "a", new_string: "b" },
      context(ws),
    );
    assert.deepEqual(r, {
      success: false,
      output: `Cannot edit "nope.txt": no such file or directory`,
      truncated: false,
    });
  });
});

Deno.test("edit_file refuses a file path ending in a slash and changes nothing", async () => {
  await withDirs(async (ws) => {
    await Deno.writeTextFile(`${ws}/a.txt`, "old\n");
    for (const p of ["a.txt/", "a.txt/."]) {
      const r = await editFileTool.run(
        { path: p, old_string: "old", new_string: "new" },
        context(ws),
      );
      assert.deepEqual(r, {
        success: false,
        output: `Cannot edit "${p}": it ends in "${p.slice(5)}", so it names a directory; ` +
          `give the path of a file`,
        truncated: false,
      });
      assert.equal(await Deno.readTextFile(`${ws}/a.txt`), "old\n");
    }
  });
});

Deno.test("edit_file refuses a binary file", async () => {
  await withDirs(async (ws) => {
    await Deno.writeFile(`${ws}/x.bin`, new Uint8Array([0x61, 0, 0x62]));
    const r = await editFileTool.run(
      { path: "x.bin", old_string: "a", new_string: "b" },
      context(ws),
    );
    assert.equal(r.success, false);
    assert.equal(
      r.output,
      `Cannot edit "x.bin": it looks like a binary file (it contains NUL bytes)`,
    );
  });
});

Deno.test("edit_file writes atomically and leaves no temporary file", async () => {
  await withDirs(async (ws) => {
    await Deno.writeTextFile(`${ws}/a.txt`, SOURCE);
    const r = await editFileTool.run(
      { path: "a.txt", old_string: "greet(name)", new_string: "greet(who)" },
      context(ws),
    );
    assert.equal(r.success, true);
    assert.deepEqual([...Deno.readDirSync(ws)].map((e) => e.name), ["a.txt"]);
  });
});

Deno.test("edit_file bounds a large diff by the output limit", async () => {
  await withDirs(async (ws) => {
    await Deno.writeTextFile(`${ws}/a.txt`, "x\n".repeat(5000));
    const r = await editFileTool.run(
      { path: "a.txt", old_string: "x", new_string: "y", replace_all: true },
      context(ws, { maxOutputBytes: 2000 }),
    );
    assert.equal(r.success, true);
    assert.equal(r.truncated, true);
    assert.ok(new TextEncoder().encode(r.output).length <= 2000);
    assert.ok(r.output.startsWith(`Edited "a.txt": replaced 5000 occurrences`));
    assert.equal(await Deno.readTextFile(`${ws}/a.txt`), "y\n".repeat(5000));
  });
});

Deno.test("edit_file refuses ../ and changes nothing outside", async () => {
  await withDirs(async (ws, outside) => {
    await Deno.writeTextFile(`${outside}/t.txt`, "keep");
    const r = await editFileTool.run(
      { path: "../outside/t.txt", old_string: "keep", new_string: "lost" },
      context(ws),
    );
    assert.equal(r.success, false);
    assert.equal(
      r.output,
      `Cannot edit "../outside/t.txt": it resolves to "${outside}/t.txt", outside the ` +
        `workspace "${ws}"; write tools may only change files inside it`,
    );
    assert.equal(await Deno.readTextFile(`${outside}/t.txt`), "keep");
  });
});

Deno.test("edit_file refuses an absolute path outside and changes nothing", async () => {
  await withDirs(async (ws, outside) => {
    await Deno.writeTextFile(`${outside}/t.txt`, "keep");
    const r = await editFileTool.run(
      { path: `${outside}/t.txt`, old_string: "keep", new_string: "lost" },
      context(ws),
    );
    assert.equal(r.success, false);
    assert.match(r.output, /outside the workspace/);
    assert.equal(await Deno.readTextFile(`${outside}/t.txt`), "keep");
  });
});

Deno.test("edit_file refuses a symlink pointing outside and changes nothing", async () => {
  await withDirs(async (ws, outside) => {
    await Deno.writeTextFile(`${outside}/t.txt`, "keep");
    await Deno.symlink(`${outside}/t.txt`, `${ws}/t.txt`);
    const r = await editFileTool.run(
      { path: "t.txt", old_string: "keep", new_string: "lost" },
      context(ws),
    );
    assert.equal(r.success, false);
    assert.match(r.output, /outside the workspace/);
    assert.equal(await Deno.readTextFile(`${outside}/t.txt`), "keep");
    assert.ok((await Deno.lstat(`${ws}/t.txt`)).isSymlink);
  });
});
