import assert from "node:assert/strict";
import { toolContext, withDirs } from "./support.ts";
import { writeFileTool } from "../../../server/tools/write_file.ts";
import type { ToolContext } from "../../../server/tools/tool.ts";

function context(cwd: string): ToolContext {
  return toolContext(cwd);
}

function names(dir: string): string[] {
  return [...Deno.readDirSync(dir)].map((e) => e.name).sort();
}

Deno.test("write_file summary counts UTF-8 bytes", () => {
  assert.equal(
    writeFileTool.summary({ path: "a/b.txt", content: "héllo ✓" }),
    "Write file: a/b.txt (10 bytes)",
  );
});

Deno.test("write_file risk is write", async () => {
  assert.equal(await writeFileTool.risk({ path: "a", content: "" }, { cwd: "/" }), "write");
});

Deno.test("write_file creates a file and its parent directories", async () => {
  await withDirs(async (ws) => {
    const r = await writeFileTool.run({ path: "a/b/c.txt", content: "héllo\n" }, context(ws));
    assert.deepEqual(r, {
      success: true,
      output: `Created "a/b/c.txt" (7 bytes written)`,
      truncated: false,
    });
    assert.equal(await Deno.readTextFile(`${ws}/a/b/c.txt`), "héllo\n");
  });
});

Deno.test("write_file replaces an existing file and leaves no temporary file", async () => {
  await withDirs(async (ws) => {
    await Deno.writeTextFile(`${ws}/a.txt`, "old content that is longer");
    const r = await writeFileTool.run({ path: "a.txt", content: "new" }, context(ws));
    assert.deepEqual(r, {
      success: true,
      output: `Overwrote "a.txt" (3 bytes written)`,
      truncated: false,
    });
    assert.equal(await Deno.readTextFile(`${ws}/a.txt`), "new");
    assert.deepEqual(names(ws), ["a.txt"]);
  });
});

Deno.test("write_file writes through a symlink that stays inside the workspace", async () => {
  await withDirs(async (ws) => {
    await Deno.writeTextFile(`${ws}/real.txt`, "old");
    await Deno.symlink(`${ws}/real.txt`, `${ws}/alias.txt`);
    const r = await writeFileTool.run({ path: "alias.txt", content: "new" }, context(ws));
    assert.equal(r.success, true, r.output);
    assert.equal(await Deno.readTextFile(`${ws}/real.txt`), "new");
    assert.ok((await Deno.lstat(`${ws}/alias.txt`)).isSymlink);
  });
});

Deno.test("write_file refuses ../ and writes nothing", async () => {
  await withDirs(async (ws, outside) => {
    const r = await writeFileTool.run({ path: "../outside/x.txt", content: "x" }, context(ws));
    assert.deepEqual(r, {
      success: false,
      output: `Cannot write "../outside/x.txt": it resolves to "${outside}/x.txt", outside the ` +
        `workspace "${ws}"; write tools may only change files inside it`,
      truncated: false,
    });
    assert.deepEqual(names(outside), []);
  });
});

Deno.test("write_file refuses an absolute path outside and writes nothing", async () => {
  await withDirs(async (ws, outside) => {
    const r = await writeFileTool.run({ path: `${outside}/x.txt`, content: "x" }, context(ws));
    assert.equal(r.success, false);
    assert.match(r.output, /outside the workspace/);
    assert.deepEqual(names(outside), []);
  });
});

Deno.test("write_file refuses a symlinked file pointing outside and leaves it alone", async () => {
  await withDirs(async (ws, outside) => {
    await Deno.writeTextFile(`${outside}/target.txt`, "original");
    await Deno.symlink(`${outside}/target.txt`, `${ws}/link.txt`);
    const r = await writeFileTool.run({ path: "link.txt", content: "pwned" }, context(ws));
    assert.equal(r.success, false);
    assert.match(r.output, /^Cannot write "link\.txt": it resolves to ".*\/outside\/target\.txt"/);
    assert.equal(await Deno.readTextFile(`${outside}/target.txt`), "original");
    assert.ok((await Deno.lstat(`${ws}/link.txt`)).isSymlink);
  });
});

Deno.test("write_file refuses a path under a symlinked directory pointing outside", async () => {
  await withDirs(async (ws, outside) => {
    await Deno.symlink(outside, `${ws}/out`);
    const r = await writeFileTool.run({ path: "out/deep/x.txt", content: "x" }, context(ws));
    assert.equal(r.success, false);
    assert.match(r.output, /outside the workspace/);
    assert.deepEqual(names(outside), []);
  });
});

Deno.test("write_file refuses a dangling symlink pointing outside", async () => {
  await withDirs(async (ws, outside) => {
    await Deno.symlink(`${outside}/later.txt`, `${ws}/later.txt`);
    const r = await writeFileTool.run({ path: "later.txt", content: "x" }, context(ws));
    assert.equal(r.success, false);
    assert.match(r.output, /outside the workspace/);
    assert.deepEqual(names(outside), []);
  });
});

Deno.test("write_file fails clearly when the path is a directory", async () => {
  await withDirs(async (ws) => {
    await Deno.mkdir(`${ws}/dir`);
    const r = await writeFileTool.run({ path: "dir", content: "x" }, context(ws));
    assert.deepEqual(r, {
      success: false,
      output: `Cannot write "dir": it is a directory`,
      truncated: false,
    });
    assert.deepEqual(names(ws), ["dir"]);
  });
});

Deno.test("write_file refuses a path ending in a slash and writes nothing", async () => {
  await withDirs(async (ws) => {
    const cases = [["newdir/", "/"], ["newdir/.", "/."], ["sub/newdir/..", "/.."], ["a.txt/", "/"]];
    for (const [p, ending] of cases) {
      const r = await writeFileTool.run({ path: p!, content: "x" }, context(ws));
      assert.deepEqual(r, {
        success: false,
        output: `Cannot write "${p}": it ends in "${ending}", so it names a directory; ` +
          `give the path of a file`,
        truncated: false,
      });
      assert.deepEqual(names(ws), [], p);
    }
  });
});

Deno.test("write_file fails clearly when a parent is a file", async () => {
  await withDirs(async (ws) => {
    await Deno.writeTextFile(`${ws}/file`, "");
    const r = await writeFileTool.run({ path: "file/x.txt", content: "x" }, context(ws));
    assert.deepEqual(r, {
      success: false,
      output: `Cannot write "file/x.txt": a parent of the path is not a directory`,
      truncated: false,
    });
  });
});

Deno.test("write_file refused through a symlink after .. creates nothing outside", async () => {
  await withDirs(async (ws, outside) => {
    await Deno.symlink(outside, `${ws}/link`);
    const r = await writeFileTool.run(
      { path: "newdir/../link/sub/x.txt", content: "x" },
      context(ws),
    );
    assert.equal(r.success, false);
    assert.match(r.output, /outside the workspace/);
    assert.deepEqual(names(outside), []);
    assert.deepEqual(names(ws), ["link"]);
  });
});

Deno.test("write_file writes a file whose name is 250 characters long", async () => {
  await withDirs(async (ws) => {
    const name = `${"x".repeat(246)}.txt`;
    const r = await writeFileTool.run({ path: name, content: "ok" }, context(ws));
    assert.equal(r.success, true, r.output);
    assert.deepEqual(names(ws), [name]);
  });
});
