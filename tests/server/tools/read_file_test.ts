import assert from "node:assert/strict";
import { toolContext, withTempDir } from "./support.ts";
import { runToolInChild } from "../../support/tool_probe.ts";
import { DEFAULT_LINE_LIMIT, readFileTool } from "../../../server/tools/read_file.ts";
import type { ToolContext, ToolLimits } from "../../../server/tools/tool.ts";

function context(cwd: string, limits: Partial<ToolLimits> = {}): ToolContext {
  return toolContext(cwd, { limits });
}

Deno.test("read_file summary shows the path as given", () => {
  assert.equal(readFileTool.summary({ path: "../x/y.ts" }), "Read file: ../x/y.ts");
});

Deno.test("read_file schema rejects offset 0 and a negative limit", () => {
  assert.equal(readFileTool.schema.safeParse({ path: "a", offset: 0 }).success, false);
  assert.equal(readFileTool.schema.safeParse({ path: "a", limit: -1 }).success, false);
  assert.equal(readFileTool.schema.safeParse({ path: "a", offset: 1, limit: 1 }).success, true);
});

Deno.test("read_file numbers every line", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/a.txt`, "alpha\n\tbeta\ngamma");
    const r = await readFileTool.run({ path: "a.txt" }, context(dir));
    assert.deepEqual(r, {
      success: true,
      output: "     1\talpha\n     2\t\tbeta\n     3\tgamma\n",
      truncated: false,
    });
  });
});

Deno.test("read_file shows the lines from offset, limit of them", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/a.txt`, "1\n2\n3\n4\n5\n");
    const r = await readFileTool.run({ path: "a.txt", offset: 2, limit: 2 }, context(dir));
    assert.deepEqual(r, { success: true, output: "     2\t2\n     3\t3\n", truncated: false });
  });
});

Deno.test("read_file fails for an offset past the end of the file", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/a.txt`, "1\n2\n");
    const r = await readFileTool.run({ path: "a.txt", offset: 5 }, context(dir));
    assert.deepEqual(r, {
      success: false,
      output: `Cannot read "a.txt" from line 5: the file has only 2 lines`,
      truncated: false,
    });
  });
});

Deno.test("read_file reports a missing file", async () => {
  await withTempDir(async (dir) => {
    const r = await readFileTool.run({ path: "nope.txt" }, context(dir));
    assert.deepEqual(r, {
      success: false,
      output: `Cannot read "nope.txt": no such file or directory`,
      truncated: false,
    });
  });
});

Deno.test("read_file refuses a directory", async () => {
  await withTempDir(async (dir) => {
    await Deno.mkdir(`${dir}/sub`);
    const r = await readFileTool.run({ path: "sub" }, context(dir));
    assert.equal(r.success, false);
    assert.equal(r.output, `Cannot read "sub": it is a directory; use glob to list files`);
  });
});

Deno.test("read_file refuses a file named with a trailing slash", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/a.txt`, "secret\n");
    for (const p of ["a.txt/", "a.txt/."]) {
      const r = await readFileTool.run({ path: p }, context(dir));
      assert.deepEqual(r, {
        success: false,
        output: `Cannot read "${p}": it is not a directory, but the path ends in "${p.slice(5)}"`,
        truncated: false,
      });
    }
  });
});

Deno.test("read_file refuses a binary file", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeFile(`${dir}/x.bin`, new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 0, 1, 2]));
    const r = await readFileTool.run({ path: "x.bin" }, context(dir));
    assert.deepEqual(r, {
      success: false,
      output: `Cannot read "x.bin": it looks like a binary file (it contains NUL bytes)`,
      truncated: false,
    });
  });
});

Deno.test("read_file refuses a file that is not valid UTF-8", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeFile(`${dir}/latin1.txt`, new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x0a]));
    const r = await readFileTool.run({ path: "latin1.txt" }, context(dir));
    assert.equal(r.success, false);
    assert.equal(r.output, `Cannot read "latin1.txt": it is not valid UTF-8 text`);
  });
});

Deno.test("read_file reads multi-byte characters split across chunks", async () => {
  await withTempDir(async (dir) => {
    const line = "é".repeat(40_000); // 80 000 bytes: chunk borders fall inside characters
    await Deno.writeTextFile(`${dir}/u.txt`, `${line}\nend\n`);
    const r = await readFileTool.run({ path: "u.txt", offset: 2 }, context(dir));
    assert.deepEqual(r, { success: true, output: "     2\tend\n", truncated: false });
  });
});

Deno.test("read_file says a file is empty", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/e.txt`, "");
    const r = await readFileTool.run({ path: "e.txt" }, context(dir));
    assert.deepEqual(r, { success: true, output: `(file "e.txt" is empty)`, truncated: false });
  });
});

Deno.test("read_file stops at the default line limit and says how to go on", async () => {
  await withTempDir(async (dir) => {
    const lines = Array.from({ length: DEFAULT_LINE_LIMIT + 500 }, (_, i) => `l${i + 1}`);
    await Deno.writeTextFile(`${dir}/big.txt`, lines.join("\n"));
    const r = await readFileTool.run({ path: "big.txt" }, context(dir, { maxOutputBytes: 1e7 }));
    assert.equal(r.success, true);
    assert.equal(r.truncated, true);
    const out = r.output.split("\n");
    assert.equal(out.length, DEFAULT_LINE_LIMIT + 1);
    assert.equal(out[DEFAULT_LINE_LIMIT - 1], `  ${DEFAULT_LINE_LIMIT}\tl${DEFAULT_LINE_LIMIT}`);
    assert.equal(
      out[DEFAULT_LINE_LIMIT],
      `[Showing lines 1-${DEFAULT_LINE_LIMIT}; continue with offset=${DEFAULT_LINE_LIMIT + 1}]`,
    );
  });
});

Deno.test("read_file stops at the output limit on a line boundary", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/a.txt`, "aaaaaaaaaa\n".repeat(100));
    const r = await readFileTool.run({ path: "a.txt" }, context(dir, { maxOutputBytes: 100 }));
    assert.equal(r.success, true);
    assert.equal(r.truncated, true);
    // Each numbered line is 18 bytes and the footer 59: two lines and the footer fit in 100.
    assert.equal(
      r.output,
      "     1\taaaaaaaaaa\n     2\taaaaaaaaaa\n" +
        "[Output limit reached after line 2; continue with offset=3]",
    );
  });
});

Deno.test("read_file cuts an overlong line", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/min.js`, "x".repeat(100_000) + "\nnext\n");
    const r = await readFileTool.run({ path: "min.js" }, context(dir));
    assert.equal(r.success, true);
    const [first, second] = r.output.split("\n");
    assert.equal(first, `     1\t${"x".repeat(2000)} [... line cut at 2000 characters]`);
    assert.equal(second, "     2\tnext");
  });
});

Deno.test("read_file risk is read inside the workspace", async () => {
  await withTempDir(async (dir) => {
    assert.equal(await readFileTool.risk({ path: "src/a.ts" }, { cwd: dir }), "read");
  });
});

Deno.test("read_file risk is write for ../, an absolute path or a symlink outside", async () => {
  await withTempDir(async (top) => {
    await Deno.mkdir(`${top}/ws`);
    await Deno.writeTextFile(`${top}/secret.txt`, "s");
    await Deno.symlink(`${top}/secret.txt`, `${top}/ws/link.txt`);
    const cwd = `${top}/ws`;
    assert.equal(await readFileTool.risk({ path: "../secret.txt" }, { cwd }), "write");
    assert.equal(await readFileTool.risk({ path: `${top}/secret.txt` }, { cwd }), "write");
    assert.equal(await readFileTool.risk({ path: "link.txt" }, { cwd }), "write");
  });
});

Deno.test("read_file reads an approved file outside the workspace", async () => {
  await withTempDir(async (top) => {
    await Deno.mkdir(`${top}/ws`);
    await Deno.writeTextFile(`${top}/notes.txt`, "outside\n");
    const r = await readFileTool.run({ path: "../notes.txt" }, context(`${top}/ws`));
    assert.deepEqual(r, { success: true, output: "     1\toutside\n", truncated: false });
  });
});

Deno.test("read_file without --allow-read names the missing permission", async () => {
  await withTempDir(async (dir) => {
    const r = await runToolInChild(
      "server/tools/read_file.ts",
      "readFileTool",
      { path: "a.txt" },
      dir,
      [],
    );
    assert.deepEqual(r, {
      success: false,
      output: `Permission denied: scv was started without --allow-read, so it cannot read "a.txt"`,
      truncated: false,
    });
  });
});

/** Checks a read_file output cut by the output limit: within it, whole lines, a true footer. */
function assertWithinLimit(output: string, lines: string[], limit: number): void {
  assert.ok(
    new TextEncoder().encode(output).length <= limit,
    `${new TextEncoder().encode(output).length} bytes, over the ${limit}-byte limit`,
  );
  const out = output.split("\n");
  const footer = out.pop()!;
  const m = footer.match(/^\[Output limit reached after line (\d+); continue with offset=(\d+)\]$/);
  assert.ok(m, `footer: ${footer}`);
  const last = Number(m[1]);
  assert.equal(Number(m[2]), last + 1);
  assert.equal(out.length, last, "the footer names the last line shown");
  out.forEach((l, i) => assert.equal(l, `${String(i + 1).padStart(6)}\t${lines[i]}`));
}

Deno.test("read_file output, footer included, stays within the output limit", async () => {
  await withTempDir(async (dir) => {
    // The audit's file: 1899 lines of 46 characters.
    const lines = Array.from(
      { length: 1899 },
      (_, i) => `${String(i).padStart(5, "0")} ${"x".repeat(40)}`,
    );
    await Deno.writeTextFile(`${dir}/big.txt`, lines.join("\n") + "\n");
    for (const limit of [200, 400, 1000, 4096, 65536]) {
      const r = await readFileTool.run(
        { path: "big.txt" },
        context(dir, { maxOutputBytes: limit }),
      );
      assert.equal(r.success, true);
      assert.equal(r.truncated, true);
      assertWithinLimit(r.output, lines, limit);
    }
  });
});

Deno.test("read_file keeps multi-byte lines and the footer within the output limit", async () => {
  await withTempDir(async (dir) => {
    const lines = Array.from({ length: 500 }, (_, i) => `${i} ${"é✓".repeat(i % 7)}`);
    await Deno.writeTextFile(`${dir}/u.txt`, lines.join("\n"));
    for (let limit = 100; limit <= 2000; limit += 37) {
      const r = await readFileTool.run({ path: "u.txt" }, context(dir, { maxOutputBytes: limit }));
      assert.equal(r.truncated, true);
      assertWithinLimit(r.output, lines, limit);
    }
  });
});

Deno.test("read_file paging footer stays within the output limit too", async () => {
  await withTempDir(async (dir) => {
    // Exactly the default line limit's worth of lines would fill the limit to the byte.
    const lines = Array.from({ length: DEFAULT_LINE_LIMIT + 10 }, () => "y".repeat(10));
    await Deno.writeTextFile(`${dir}/p.txt`, lines.join("\n"));
    const limit = DEFAULT_LINE_LIMIT * 18; // "     1\tyyyyyyyyyy\n" is 18 bytes
    const r = await readFileTool.run({ path: "p.txt" }, context(dir, { maxOutputBytes: limit }));
    assert.equal(r.truncated, true);
    assert.ok(new TextEncoder().encode(r.output).length <= limit);
    const out = r.output.split("\n");
    const footer = out.pop()!;
    const m = footer.match(/continue with offset=(\d+)\]$/);
    assert.ok(m, `footer: ${footer}`);
    assert.equal(out.length, Number(m[1]) - 1);
  });
});

Deno.test("read_file refuses when not even one line fits with its footer", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/a.txt`, "aaaaaaaaaa\n".repeat(100));
    const r = await readFileTool.run({ path: "a.txt" }, context(dir, { maxOutputBytes: 60 }));
    assert.deepEqual(r, {
      success: false,
      output: `Cannot show line 1 of "a.txt": it does not fit in the 60-byte output limit`,
      truncated: true,
    });
  });
});
