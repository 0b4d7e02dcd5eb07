import assert from "node:assert/strict";
import { toolContext } from "./support.ts";
import { globTool, MAX_GLOB_RESULTS } from "../../../server/tools/glob.ts";
import { globMatcher, globScope } from "../../../server/tools/glob_pattern.ts";
import { type ToolContext, ToolTimeoutError } from "../../../server/tools/tool.ts";

function context(cwd: string, signal = new AbortController().signal): ToolContext {
  return toolContext(cwd, { signal });
}

/** A workspace holding `files` (path → content). */
async function withTree(
  files: Record<string, string>,
  fn: (dir: string) => Promise<void>,
): Promise<void> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "scv_glob_test_" }));
  try {
    for (const [p, content] of Object.entries(files)) {
      const full = `${dir}/${p}`;
      await Deno.mkdir(full.slice(0, full.lastIndexOf("/")), { recursive: true });
      await Deno.writeTextFile(full, content);
    }
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const TREE = {
  "a.ts": "",
  "b.js": "",
  "README.md": "",
  "src/main.ts": "",
  "src/util/strings.ts": "",
  "src/util/strings.test.tsx": "",
  "src/x1.ts": "",
  "src/x22.ts": "",
  ".github/ci.yml": "",
};

Deno.test("globMatcher keeps * and ? within one path segment", () => {
  const m = globMatcher("src/*.t?");
  assert.ok(m("src/a.ts"));
  assert.ok(!m("src/x/a.ts"));
  assert.ok(!m("src/a.tsx"));
});

Deno.test("globMatcher matches ** across any number of directories", () => {
  const m = globMatcher("**/util/**");
  assert.ok(m("util/a"));
  assert.ok(m("x/y/util/z/w.ts"));
  assert.ok(!m("x/utils/a"));
});

Deno.test("globMatcher expands braces and character classes", () => {
  const m = globMatcher("{src,lib}/[a-c]*.{ts,js}");
  assert.ok(m("src/a.ts") && m("lib/cat.js"));
  assert.ok(!m("src/d.ts") && !m("test/a.ts") && !m("src/a.md"));
  assert.ok(globMatcher("[!a]")("b") && !globMatcher("[!a]")("a"));
});

Deno.test("globMatcher treats regex characters literally", () => {
  assert.ok(globMatcher("a+b(1).ts")("a+b(1).ts"));
  assert.ok(!globMatcher("a.ts")("abts"));
});

Deno.test("globMatcher handles nested braces, escapes and unclosed brackets", () => {
  const m = globMatcher("a.{ts,{m,c}js}");
  assert.ok(m("a.ts") && m("a.mjs") && m("a.cjs") && !m("a.js"));
  assert.ok(globMatcher(String.raw`\*.md`)("*.md") && !globMatcher(String.raw`\*.md`)("a.md"));
  assert.ok(globMatcher("[ab")("[ab") && globMatcher("{a")("{a"));
  assert.ok(globMatcher("[]x]")("]") && globMatcher("[a-]")("-"));
  assert.ok(globMatcher("[{]x}")("{x}"), "a brace inside a class is a character");
  assert.ok(globMatcher("?.txt")("é.txt"), "? is one character, not one UTF-16 unit");
});

Deno.test("globMatcher ** at the end matches what is below, not the directory itself", () => {
  const m = globMatcher("src/**");
  assert.ok(m("src/a") && m("src/a/b/c"));
  assert.ok(!m("src"));
  assert.ok(globMatcher("**")("a") && globMatcher("**/*")("a/b"));
});

Deno.test("globMatcher refuses a range out of order and too many brace alternatives", () => {
  assert.throws(() => globMatcher("[z-a]"), SyntaxError);
  assert.throws(() => globMatcher("{a,b}".repeat(11)), SyntaxError);
  assert.doesNotThrow(() => globMatcher("{a,b}".repeat(10)));
});

Deno.test("globMatcher is fast on patterns that make a backtracking regex explode", () => {
  const t0 = performance.now();
  assert.equal(globMatcher("*a*a*a*a*a*a*a*a*a*b")("a".repeat(200)), false);
  assert.equal(globMatcher("*a*a*a*a*a*a*a*a*a*b")(`${"a".repeat(200)}b`), true);
  const deep = Array(40).fill("d").join("/");
  assert.equal(globMatcher("**/**/**/**/**/**/**/**/x")(`${deep}/x`), true);
  assert.equal(globMatcher("**/**/**/**/**/**/**/**/x")(`${deep}/y`), false);
  assert.equal(globMatcher("**/d/**/d/**/d/**/d/**/x")(`${deep}/y`), false);
  const elapsed = performance.now() - t0;
  // Backtracking takes minutes here; the bound only has to tell linear from exponential.
  assert.ok(elapsed < 1000, `matching took ${elapsed} ms`);
});

Deno.test("globScope starts at the plain leading directories", () => {
  assert.deepEqual(globScope("src/util/*.ts"), { base: "src/util", depth: 3 });
  assert.deepEqual(globScope("**/*.ts"), { base: "", depth: Infinity });
  assert.deepEqual(globScope("a.ts"), { base: "", depth: 1 });
});

Deno.test("glob summary and risk follow the contract", () => {
  assert.equal(globTool.summary({ pattern: "**/*.ts" }), "Find files: **/*.ts");
  assert.equal(globTool.risk({ pattern: "*" }, { cwd: "/" }), "read");
});

Deno.test("glob lists matches at any depth, sorted, relative to the workspace", async () => {
  await withTree(TREE, async (dir) => {
    const r = await globTool.run({ pattern: "**/*.ts" }, context(dir));
    assert.deepEqual(r, {
      success: true,
      output: "a.ts\nsrc/main.ts\nsrc/util/strings.ts\nsrc/x1.ts\nsrc/x22.ts",
      truncated: false,
    });
  });
});

Deno.test("glob without a slash matches only the top level", async () => {
  await withTree(TREE, async (dir) => {
    const r = await globTool.run({ pattern: "*.{ts,js}" }, context(dir));
    assert.equal(r.output, "a.ts\nb.js");
  });
});

Deno.test("glob matches ? as exactly one character", async () => {
  await withTree(TREE, async (dir) => {
    const r = await globTool.run({ pattern: "src/x?.ts" }, context(dir));
    assert.equal(r.output, "src/x1.ts");
  });
});

Deno.test("glob includes dot directories", async () => {
  await withTree(TREE, async (dir) => {
    const r = await globTool.run({ pattern: "**/*.yml" }, context(dir));
    assert.equal(r.output, ".github/ci.yml");
  });
});

Deno.test("glob honours .gitignore files at the root and in subdirectories", async () => {
  await withTree({
    ".gitignore": "dist/\n*.log\n",
    "keep.ts": "",
    "dist/out.ts": "",
    "debug.log": "",
    "pkg/.gitignore": "generated.ts\n!important.log\n",
    "pkg/generated.ts": "",
    "pkg/source.ts": "",
    "pkg/important.log": "",
    "pkg/other.log": "",
  }, async (dir) => {
    const r = await globTool.run({ pattern: "**/*.{ts,log}" }, context(dir));
    assert.equal(r.output, "keep.ts\npkg/important.log\npkg/source.ts");
  });
});

Deno.test("glob skips the .git directory", async () => {
  await withTree({ ".git/config": "", ".git/hooks/pre-commit.sample": "", "a.txt": "" }, async (
    dir,
  ) => {
    const r = await globTool.run({ pattern: "**/*" }, context(dir));
    assert.equal(r.output, "a.txt");
  });
});

Deno.test("glob does not follow a symlinked directory", async () => {
  await withTree({ "real/a.ts": "" }, async (dir) => {
    await Deno.symlink(`${dir}/real`, `${dir}/loop`);
    const r = await globTool.run({ pattern: "**/*.ts" }, context(dir));
    assert.equal(r.output, "real/a.ts");
  });
});

Deno.test("glob says when nothing matches", async () => {
  await withTree(TREE, async (dir) => {
    const r = await globTool.run({ pattern: "nothing/**/*.rs" }, context(dir));
    assert.deepEqual(r, {
      success: true,
      output: `No files match "nothing/**/*.rs"`,
      truncated: false,
    });
  });
});

Deno.test("glob under a small output limit still lists files, never no files match", async () => {
  await withTree(TREE, async (dir) => {
    for (const limit of [256, 64, 16]) {
      const ctx = { ...context(dir), limits: { maxOutputBytes: limit, timeoutMs: 10_000 } };
      const r = await globTool.run({ pattern: "**" }, ctx);
      assert.equal(r.success, true);
      assert.equal(r.truncated, limit < 100, `limit ${limit}`);
      assert.ok(new TextEncoder().encode(r.output).length <= limit, `limit ${limit}`);
      assert.ok(r.output.startsWith(".github/ci.yml"), `limit ${limit}: ${r.output}`);
    }
  });
});

Deno.test("glob cuts the list at the result limit and says so", async () => {
  const files: Record<string, string> = {};
  for (let i = 0; i < MAX_GLOB_RESULTS + 5; i++) files[`f/${String(i).padStart(4, "0")}.txt`] = "";
  await withTree(files, async (dir) => {
    const r = await globTool.run({ pattern: "f/*.txt" }, context(dir));
    assert.equal(r.success, true);
    assert.equal(r.truncated, true);
    const lines = r.output.split("\n");
    assert.equal(lines.length, MAX_GLOB_RESULTS + 1);
    assert.equal(lines[0], "f/0000.txt");
    assert.equal(
      lines.at(-1),
      `[Results cut at ${MAX_GLOB_RESULTS} files; use a narrower pattern]`,
    );
  });
});

Deno.test("glob refuses patterns that leave the workspace", async () => {
  await withTree(TREE, async (dir) => {
    for (const pattern of ["../*", "/etc/*", "src/../../x"]) {
      const r = await globTool.run({ pattern }, context(dir));
      assert.deepEqual(r, {
        success: false,
        output: `Invalid glob pattern "${pattern}": patterns are relative to the workspace and ` +
          `cannot start with "/" or contain ".."`,
        truncated: false,
      });
    }
  });
});

Deno.test("glob stops when the call is cancelled", async () => {
  await withTree(TREE, async (dir) => {
    const controller = new AbortController();
    controller.abort();
    const r = await globTool.run({ pattern: "**/*" }, context(dir, controller.signal));
    assert.deepEqual(r, {
      success: false,
      output: `Finding files for "**/*" was cancelled`,
      truncated: false,
    });
  });
});

Deno.test("glob completes fast on a long name and a deep path", async () => {
  const deep = Array(40).fill("d").join("/");
  await withTree({ [`${"a".repeat(200)}`]: "", [`${deep}/y`]: "" }, async (dir) => {
    const t0 = performance.now();
    const r1 = await globTool.run({ pattern: "*a*a*a*a*a*a*a*a*a*b" }, context(dir));
    const r2 = await globTool.run({ pattern: "**/**/**/**/**/**/**/**/x" }, context(dir));
    const elapsed = performance.now() - t0;
    assert.equal(r1.output, `No files match "*a*a*a*a*a*a*a*a*a*b"`);
    assert.equal(r2.output, `No files match "**/**/**/**/**/**/**/**/x"`);
    assert.ok(elapsed < 1000, `glob took ${elapsed} ms`);
  });
});

Deno.test("glob stopped by the call's time limit says it timed out", async () => {
  await withTree(TREE, async (dir) => {
    const controller = new AbortController();
    controller.abort(new ToolTimeoutError("glob", 10));
    const r = await globTool.run({ pattern: "**/*" }, context(dir, controller.signal));
    assert.deepEqual(r, { success: false, output: "glob timed out after 10 ms", truncated: false });
  });
});
