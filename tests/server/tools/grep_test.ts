import assert from "node:assert/strict";
import { toolContext } from "./support.ts";
import { grepTool, MAX_GREP_LINE_CHARS, MAX_GREP_MATCHES } from "../../../server/tools/grep.ts";
import { type ToolContext, type ToolLimits, ToolTimeoutError } from "../../../server/tools/tool.ts";

function context(
  cwd: string,
  limits: Partial<ToolLimits> = {},
  signal = new AbortController().signal,
): ToolContext {
  return toolContext(cwd, { limits, signal });
}

/** A temporary directory holding `files` (path → content). */
async function withTree(
  files: Record<string, string | Uint8Array>,
  fn: (dir: string) => Promise<void>,
): Promise<void> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "scv_grep_test_" }));
  try {
    for (const [p, content] of Object.entries(files)) {
      const full = `${dir}/${p}`;
      await Deno.mkdir(full.slice(0, full.lastIndexOf("/")), { recursive: true });
      if (typeof content === "string") await Deno.writeTextFile(full, content);
      else await Deno.writeFile(full, content);
    }
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const TREE = {
  "a.ts": "const x = 1;\n// TODO: fix\nexport { x };\n",
  "src/b.ts": "function f() {}\n\n// TODO later\n",
  "src/c.md": "TODO in docs\n",
  "crlf.txt": "first\r\nTODO crlf\r\n",
};

Deno.test("grep summary and risk follow the contract", async () => {
  assert.equal(grepTool.summary({ pattern: "TODO" }), "Search: TODO");
  assert.equal(await grepTool.risk({ pattern: "x" }, { cwd: "/tmp" }), "read");
});

Deno.test("grep prints path:line:text for every matching line", async () => {
  await withTree(TREE, async (dir) => {
    const r = await grepTool.run({ pattern: "TODO" }, context(dir));
    assert.deepEqual(r, {
      success: true,
      output: [
        "a.ts:2:// TODO: fix",
        "crlf.txt:2:TODO crlf",
        "src/b.ts:3:// TODO later",
        "src/c.md:1:TODO in docs",
      ].join("\n"),
      truncated: false,
    });
  });
});

Deno.test("grep uses JavaScript regular expressions", async () => {
  await withTree(TREE, async (dir) => {
    const r = await grepTool.run({ pattern: String.raw`^(const|function)\s+\w` }, context(dir));
    assert.equal(r.output, "a.ts:1:const x = 1;\nsrc/b.ts:1:function f() {}");
  });
});

Deno.test("grep reports an invalid regular expression", async () => {
  await withTree(TREE, async (dir) => {
    const r = await grepTool.run({ pattern: "(unclosed" }, context(dir));
    assert.equal(r.success, false);
    assert.equal(
      r.output,
      `Invalid regular expression "(unclosed": Invalid regular expression: /(unclosed/: ` +
        `Unterminated group`,
    );
  });
});

Deno.test("grep filters files by a glob on the name", async () => {
  await withTree(TREE, async (dir) => {
    const r = await grepTool.run({ pattern: "TODO", glob: "*.ts" }, context(dir));
    assert.equal(r.output, "a.ts:2:// TODO: fix\nsrc/b.ts:3:// TODO later");
  });
});

Deno.test("grep filters files by a glob on the path", async () => {
  await withTree(TREE, async (dir) => {
    const r = await grepTool.run({ pattern: "TODO", glob: "src/**" }, context(dir));
    assert.equal(r.output, "src/b.ts:3:// TODO later\nsrc/c.md:1:TODO in docs");
  });
});

Deno.test("grep searches only the given directory or file", async () => {
  await withTree(TREE, async (dir) => {
    const inDir = await grepTool.run({ pattern: "TODO", path: "src" }, context(dir));
    assert.equal(inDir.output, "src/b.ts:3:// TODO later\nsrc/c.md:1:TODO in docs");
    const inFile = await grepTool.run({ pattern: "TODO", path: "a.ts" }, context(dir));
    assert.equal(inFile.output, "a.ts:2:// TODO: fix");
  });
});

Deno.test("grep honours .gitignore and skips .git", async () => {
  await withTree({
    ".gitignore": "build/\n",
    "build/out.js": "needle\n",
    ".git/HEAD": "needle\n",
    "sub/.gitignore": "*.gen\n",
    "sub/x.gen": "needle\n",
    "sub/x.src": "needle\n",
  }, async (dir) => {
    const r = await grepTool.run({ pattern: "needle" }, context(dir));
    assert.equal(r.output, "sub/x.src:1:needle");
  });
});

Deno.test("grep skips binary files", async () => {
  await withTree({
    "bin.dat": new Uint8Array([0x6e, 0x65, 0x65, 0x64, 0x6c, 0x65, 0, 1]),
    "text.txt": "needle\n",
  }, async (dir) => {
    const r = await grepTool.run({ pattern: "needle" }, context(dir));
    assert.equal(r.output, "text.txt:1:needle");
  });
});

Deno.test("grep does not read through a symlink found while walking", async () => {
  await withTree({ "ws/a.txt": "needle\n", "secret.txt": "needle\n" }, async (top) => {
    await Deno.symlink(`${top}/secret.txt`, `${top}/ws/link.txt`);
    const r = await grepTool.run({ pattern: "needle" }, context(`${top}/ws`));
    assert.equal(r.output, "a.txt:1:needle");
  });
});

Deno.test("grep cuts long lines", async () => {
  await withTree({ "long.txt": `needle${"x".repeat(5000)}\n` }, async (dir) => {
    const r = await grepTool.run({ pattern: "needle" }, context(dir));
    const text = `needle${"x".repeat(MAX_GREP_LINE_CHARS - 6)} [...]`;
    assert.equal(r.output, `long.txt:1:${text}`);
  });
});

Deno.test("grep bounds its output and marks it truncated", async () => {
  await withTree({ "many.txt": "needle here\n".repeat(10_000) }, async (dir) => {
    const r = await grepTool.run({ pattern: "needle" }, context(dir, { maxOutputBytes: 1000 }));
    assert.equal(r.success, true);
    assert.equal(r.truncated, true);
    assert.ok(new TextEncoder().encode(r.output).length <= 1000);
    assert.ok(r.output.startsWith("many.txt:1:needle here\nmany.txt:2:needle here\n"));
    assert.ok(r.output.endsWith("[Output limit reached; narrow the search]"));
  });
});

Deno.test("grep shows matching lines under an output limit of 256 bytes or less", async () => {
  await withTree({ "m.txt": "match one\nno\nmatch two\n".repeat(20) }, async (dir) => {
    for (const limit of [256, 200, 128, 100]) {
      const r = await grepTool.run({ pattern: "match" }, context(dir, { maxOutputBytes: limit }));
      assert.equal(r.success, true);
      assert.equal(r.truncated, true, `limit ${limit}`);
      assert.ok(new TextEncoder().encode(r.output).length <= limit, `limit ${limit}`);
      assert.ok(r.output.startsWith("m.txt:1:match one\n"), `limit ${limit}: ${r.output}`);
      assert.ok(r.output.endsWith("[Output limit reached; narrow the search]"));
    }
  });
});

Deno.test("grep never says no matches when matching lines do not fit the output limit", async () => {
  const long = `match ${"x".repeat(300)}\n`;
  await withTree({ "a.txt": long, "b.txt": `${long}${long}` }, async (dir) => {
    const r = await grepTool.run({ pattern: "match" }, context(dir, { maxOutputBytes: 256 }));
    assert.deepEqual(r, {
      success: true,
      output: `3 lines match "match" (the first at a.txt:1), but none fits in the 256-byte ` +
        `output limit; narrow the search`,
      truncated: true,
    });
  });
});

Deno.test("grep's none-fits note fits tiny limits too, with a long pattern cut short", async () => {
  const pattern = "handleClickEvent" + "x?".repeat(100);
  await withTree({ "a.txt": `handleClickEvent ${"y".repeat(300)}\n`.repeat(5) }, async (dir) => {
    for (const limit of [40, 100, 256]) {
      const r = await grepTool.run({ pattern }, context(dir, { maxOutputBytes: limit }));
      assert.equal(r.truncated, true);
      assert.ok(new TextEncoder().encode(r.output).length <= limit, `${limit}: ${r.output}`);
      assert.ok(r.output.startsWith("5 lines match"), `${limit}: ${r.output}`);
    }
  });
});

Deno.test("grep counts at most its match limit when no matching line fits", async () => {
  await withTree({ "a.txt": `match ${"x".repeat(300)}\n`.repeat(1500) }, async (dir) => {
    const r = await grepTool.run({ pattern: "match" }, context(dir, { maxOutputBytes: 256 }));
    assert.equal(r.truncated, true);
    assert.equal(
      r.output,
      `More than ${MAX_GREP_MATCHES} lines match "match" (the first at a.txt:1), but none ` +
        `fits in the 256-byte output limit; narrow the search`,
    );
  });
});

Deno.test("grep says when nothing matches", async () => {
  await withTree(TREE, async (dir) => {
    const r = await grepTool.run({ pattern: "absent" }, context(dir));
    assert.deepEqual(r, {
      success: true,
      output: `No matches found for "absent"`,
      truncated: false,
    });
  });
});

Deno.test("grep refuses a file named with a trailing slash", async () => {
  await withTree(TREE, async (dir) => {
    const r = await grepTool.run({ pattern: "TODO", path: "a.ts/" }, context(dir));
    assert.deepEqual(r, {
      success: false,
      output: `Cannot search "a.ts/": it is not a directory, but the path ends in "/"`,
      truncated: false,
    });
    const sub = await grepTool.run({ pattern: "TODO", path: "src/" }, context(dir));
    assert.equal(sub.output, "src/b.ts:3:// TODO later\nsrc/c.md:1:TODO in docs");
  });
});

Deno.test("grep reports a missing path", async () => {
  await withTree(TREE, async (dir) => {
    const r = await grepTool.run({ pattern: "x", path: "nope" }, context(dir));
    assert.deepEqual(r, {
      success: false,
      output: `Cannot search "nope": no such file or directory`,
      truncated: false,
    });
  });
});

Deno.test("grep risk is write for a path outside the workspace", async () => {
  await withTree({ "ws/a.txt": "", "other/b.txt": "" }, async (top) => {
    const cwd = `${top}/ws`;
    await Deno.symlink(`${top}/other`, `${cwd}/other-link`);
    assert.equal(await grepTool.risk({ pattern: "x", path: "." }, { cwd }), "read");
    assert.equal(await grepTool.risk({ pattern: "x", path: "../other" }, { cwd }), "write");
    assert.equal(await grepTool.risk({ pattern: "x", path: `${top}/other` }, { cwd }), "write");
    assert.equal(await grepTool.risk({ pattern: "x", path: "other-link" }, { cwd }), "write");
  });
});

Deno.test("grep shows absolute paths for an approved search outside", async () => {
  await withTree({ "ws/a.txt": "", "other/b.txt": "needle\n" }, async (top) => {
    const r = await grepTool.run({ pattern: "needle", path: "../other" }, context(`${top}/ws`));
    assert.equal(r.output, `${top}/other/b.txt:1:needle`);
  });
});

Deno.test("grep stops when the call is cancelled", async () => {
  await withTree(TREE, async (dir) => {
    const controller = new AbortController();
    controller.abort();
    const r = await grepTool.run({ pattern: "TODO" }, context(dir, {}, controller.signal));
    assert.deepEqual(r, {
      success: false,
      output: `Searching for "TODO" was cancelled`,
      truncated: false,
    });
  });
});

Deno.test("grep with a catastrophic regular expression is cancelled within a second", async () => {
  await withTree({ "a.txt": `${"a".repeat(40)}!\n` }, async (dir) => {
    const t0 = performance.now();
    const r = await grepTool.run(
      { pattern: "^(a+)+$" },
      context(dir, {}, AbortSignal.timeout(500)),
    );
    const elapsed = performance.now() - t0;
    assert.deepEqual(r, {
      success: false,
      output: `Searching for "^(a+)+$" was cancelled`,
      truncated: false,
    });
    assert.ok(elapsed < 1500, `grep took ${elapsed} ms`);
  });
});

Deno.test("grep stopped by the call's time limit says it timed out", async () => {
  await withTree({ "a.txt": `${"a".repeat(40)}!\n` }, async (dir) => {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new ToolTimeoutError("grep", 300)), 300);
    const r = await grepTool.run({ pattern: "^(a+)+$" }, context(dir, {}, controller.signal));
    clearTimeout(timer);
    assert.deepEqual(r, {
      success: false,
      output: "grep timed out after 300 ms",
      truncated: false,
    });
  });
});

Deno.test("grep filters by a glob that makes a backtracking regex explode, fast", async () => {
  await withTree({ [`${"a".repeat(200)}`]: "needle\n", "ab": "needle\n" }, async (dir) => {
    const t0 = performance.now();
    const r = await grepTool.run(
      { pattern: "needle", glob: "*a*a*a*a*a*a*a*a*a*b" },
      context(dir, {}, AbortSignal.timeout(5000)),
    );
    assert.equal(r.output, 'No matches found for "needle"');
    assert.ok(performance.now() - t0 < 1500);
  });
});

Deno.test("grep refuses a path that is not a regular file or directory", async () => {
  await withTree({ "a.txt": "" }, async (dir) => {
    const made = await new Deno.Command("mkfifo", { args: [`${dir}/fifo`] }).output();
    assert.equal(made.code, 0);
    const r = await grepTool.run({ pattern: "x", path: "fifo" }, context(dir));
    assert.deepEqual(r, {
      success: false,
      output: `Cannot search "fifo": it is not a regular file or directory`,
      truncated: false,
    });
  });
});
