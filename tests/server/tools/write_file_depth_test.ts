/**
 * Deep paths: a file tool accepts at most MAX_PATH_DEPTH components, says so clearly, and
 * creates nothing for a path beyond it.
 */
import assert from "node:assert/strict";
import { toolContext, withTempDir } from "./support.ts";
import { writeFileTool } from "../../../server/tools/write_file.ts";
import { readFileTool } from "../../../server/tools/read_file.ts";
import { MAX_PATH_DEPTH } from "../../../server/tools/workspace.ts";

function deep(n: number): string {
  return [...Array.from({ length: n - 1 }, () => "d"), "f.txt"].join("/");
}

Deno.test("write_file creates a path exactly MAX_PATH_DEPTH components deep", async () => {
  await withTempDir(async (dir) => {
    const r = await writeFileTool.run(
      { path: deep(MAX_PATH_DEPTH), content: "x" },
      toolContext(dir),
    );
    assert.equal(r.success, true, r.output);
    assert.equal(await Deno.readTextFile(`${dir}/${deep(MAX_PATH_DEPTH)}`), "x");
  });
});

Deno.test("write_file refuses a path one component over MAX_PATH_DEPTH and creates nothing", async () => {
  await withTempDir(async (dir) => {
    const r = await writeFileTool.run(
      { path: deep(MAX_PATH_DEPTH + 1), content: "x" },
      toolContext(dir),
    );
    assert.equal(r.success, false);
    assert.match(
      r.output,
      new RegExp(`the path has ${MAX_PATH_DEPTH + 1} components, more than the ${MAX_PATH_DEPTH}`),
    );
    assert.deepEqual(await Array.fromAsync(Deno.readDir(dir)), []);
  });
});

Deno.test("write_file refuses a path 2,000 directories deep at once, creating nothing", async () => {
  await withTempDir(async (dir) => {
    const r = await writeFileTool.run({ path: deep(2000), content: "x" }, toolContext(dir));
    assert.equal(r.success, false);
    assert.match(r.output, /the path has 2000 components/);
    // The message quotes the path cut short, not 4,000 characters of it.
    assert.ok(r.output.length < 300, r.output);
    assert.deepEqual(await Array.fromAsync(Deno.readDir(dir)), []);
  });
});

Deno.test("read_file refuses a path over MAX_PATH_DEPTH with the same clear message", async () => {
  await withTempDir(async (dir) => {
    const r = await readFileTool.run({ path: deep(MAX_PATH_DEPTH + 1) }, toolContext(dir));
    assert.equal(r.success, false);
    assert.match(r.output, /^Cannot resolve ".*": the path has 129 components/);
  });
});
