/**
 * The built CLI (`deno task build`, cli/dist.ts): `main.ts` runs a command from `dist/` while the
 * manifest describes the sources, and from the sources once one changes; the build itself runs
 * a text turn, a tool whose worker is loaded by URL, and the server's handshake, with no npm
 * package loaded before it runs. The integration tests build a copy of the checkout, so this
 * checkout's own `dist/` is never touched.
 */
import assert from "node:assert/strict";
import { MockOpenAI, text, toolCalls } from "../support/mock_openai.ts";
import { SERVER_FLAGS } from "../support/server_process.ts";
import { staticGraph } from "../support/deno_graph.ts";
import { COMMANDS, freshBuild, freshDist, LEASE_FILE } from "../../cli/dist.ts";
import { ZOD } from "../../protocol/zod/generate.ts";
import {
  BUNDLED_PACKAGES,
  bundleImports,
  externalFlags,
  HOT_MODULES,
  hotChunks,
  lazyImports,
  relativeUrls,
  rewriteUrls,
  strayUrls,
} from "../../cli/build_dist.ts";

const ROOT = new URL("../../", import.meta.url).pathname.replace(/\/$/, "");
const decoder = new TextDecoder();

Deno.test("freshBuild names the build only while every source has its recorded size and mtime", () => {
  const manifest = {
    format: 1,
    build: "b1",
    sources: { "cli/exec.ts": [10, 5], "deno.json": [3, 7] },
  };
  const stats: Record<string, [number, number]> = { "cli/exec.ts": [10, 5], "deno.json": [3, 7] };
  assert.deepEqual(freshBuild(manifest, (p) => stats[p]), "b1");
  assert.deepEqual(freshBuild(manifest, (p) => p === "deno.json" ? [3, 8] : stats[p]), undefined);
  assert.deepEqual(freshBuild(manifest, (p) => p === "deno.json" ? [4, 7] : stats[p]), undefined);
  assert.deepEqual(
    freshBuild(manifest, (p) => p === "deno.json" ? undefined : stats[p]),
    undefined,
  );
});

Deno.test("freshBuild takes no malformed manifest for a build", () => {
  const ok = () => [1, 1] as [number, number];
  const sources = { "a.ts": [1, 1] };
  for (
    const bad of [
      null,
      "b1",
      [],
      { format: 2, build: "b1", sources },
      { format: 1, sources },
      { format: 1, build: "../../etc", sources },
      { format: 1, build: "", sources },
      { format: 1, build: "b1", sources: {} },
      { format: 1, build: "b1", sources: null },
      { format: 1, build: "b1", sources: { "a.ts": [1] } },
      { format: 1, build: "b1", sources: { "a.ts": "1,1" } },
    ]
  ) {
    assert.deepEqual(freshBuild(bad, ok), undefined, JSON.stringify(bad));
  }
});

Deno.test("freshDist is no build for a root that is not on disk or has no manifest", async () => {
  assert.deepEqual(freshDist(new URL("https://jsr.io/@scv/scv/0.3.0/")), undefined);
  const dir = await Deno.makeTempDir();
  try {
    assert.deepEqual(freshDist(new URL(`file://${dir}/`)), undefined);
    await Deno.mkdir(`${dir}/dist`);
    await Deno.writeTextFile(`${dir}/dist/manifest.json`, "{ torn");
    assert.deepEqual(freshDist(new URL(`file://${dir}/`)), undefined);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the build leaves every npm package external but the ones it bundles", () => {
  const flags = externalFlags({
    zod: "./protocol/zod/zod.js",
    "@noble/hashes/": "npm:/@noble/hashes@2.0.1/",
    commander: "npm:commander@^14.0.0",
    "web-tree-sitter/": "npm:/web-tree-sitter@0.27.2/",
  });
  assert.deepEqual(flags, [
    "--external",
    "npm:*",
    "--external",
    "commander",
    "--external",
    "web-tree-sitter/*",
  ]);
  assert.deepEqual([...BUNDLED_PACKAGES].sort(), ["@noble/hashes/", "zod"]);
});

Deno.test("the build's import map takes zod from npm and makes every local target absolute", () => {
  const map = bundleImports({
    zod: "./protocol/zod/zod.js",
    commander: "npm:commander@^14.0.0",
    "@noble/hashes/": "npm:/@noble/hashes@2.0.1/",
    local: "./server/x.ts",
    up: "../elsewhere/y.ts",
  }, "/w/my checkout/");
  assert.deepEqual(map, {
    zod: ZOD,
    commander: "npm:commander@^14.0.0",
    "@noble/hashes/": "npm:/@noble/hashes@2.0.1/",
    local: "file:///w/my%20checkout/server/x.ts",
    up: "file:///w/elsewhere/y.ts",
  });
  // deno.json's own map: every key kept, zod the only one changed.
  const imports = JSON.parse(Deno.readTextFileSync(`${ROOT}/deno.json`)).imports;
  const built = bundleImports(imports, ROOT);
  assert.deepEqual(Object.keys(built).sort(), Object.keys(imports).sort());
  for (const key of Object.keys(imports)) {
    if (key !== "zod") assert.equal(built[key], imports[key], key);
  }
});

Deno.test("the build points each module URL a chunk makes at its source file", () => {
  const urls = relativeUrls(
    new Map([
      ["server/tools/grep.ts", 'callWorker(new URL("./grep_worker.ts", import.meta.url))'],
      ["server/x.ts", "no url here"],
    ]),
  );
  assert.deepEqual([...urls], [["grep_worker.ts", "server/tools/grep_worker.ts"]]);
  assert.deepEqual(
    rewriteUrls('w(new URL("./grep_worker.ts", import.meta.url));', urls),
    'w(new URL("../../../server/tools/grep_worker.ts", import.meta.url));',
  );
  assert.throws(
    () => rewriteUrls('new URL("./other_worker.ts", import.meta.url)', urls),
    /no source names it/,
  );
  assert.throws(
    () =>
      relativeUrls(
        new Map([
          ["a/one.ts", 'new URL("./w.ts", import.meta.url)'],
          ["b/two.ts", 'new URL("./w.ts", import.meta.url)'],
        ]),
      ),
    /two modules named w\.ts/,
  );
});

Deno.test("the build refuses a chunk that still makes a URL pointing into the build", () => {
  const files = new Set(["bash-X1.js"]);
  assert.deepEqual(
    strayUrls(
      'import(new URL("./bash-X1.js", import.meta.url).href);' +
        'new URL("../../../server/tools/grep_worker.ts", import.meta.url);',
      files,
    ),
    [],
  );
  assert.deepEqual(
    strayUrls(
      'new URL("./gone-Z9.js", import.meta.url); new URL("../x.ts", import.meta.url);' +
        "new URL(`./${name}.wasm`, import.meta.url); new URL('./a.ts', import.meta.url)",
      files,
    ),
    ['"./gone-Z9.js"', '"../x.ts"', "`./${name}.wasm`", "'./a.ts'"],
  );
});

Deno.test("the build keeps literal only the imports of the hot modules' chunks", () => {
  const files = ["run_turn-AB12.js", "run_turn_x-CD34.js", "app-EF56.js", "chunk-GH78.js"];
  const hot = hotChunks(["server/core/run_turn.ts"], files);
  assert.deepEqual([...hot], ["run_turn-AB12.js"]);
  // A module this command does not import has no chunk; two of one name fail the build.
  assert.deepEqual([...hotChunks(["server/core/gone.ts"], files)], []);
  assert.throws(
    () => hotChunks(["a/app.ts"], [...files, "app-ZZ99.js"]),
    /2 chunks named after it/,
  );
  assert.equal(
    lazyImports(
      'await import("./run_turn-AB12.js"); await import("./app-EF56.js"); import("fast-png");',
      hot,
    ),
    'await import("./run_turn-AB12.js"); ' +
      'await import(new URL("./app-EF56.js", import.meta.url).href); import("fast-png");',
  );
  // Every hot module exists: a renamed one would fail the build, and this, first.
  for (const path of HOT_MODULES) assert.ok(Deno.statSync(`${ROOT}/${path}`).isFile, path);
});

/** The parts of the checkout that `main.ts` and the build read. */
const TREE = ["main.ts", "deno.json", "deno.lock", "cli", "server", "protocol", "tui"];

async function copyTree(from: string, to: string): Promise<void> {
  const info = await Deno.stat(from);
  if (info.isFile) {
    await Deno.copyFile(from, to);
    return;
  }
  await Deno.mkdir(to, { recursive: true });
  for await (const e of Deno.readDir(from)) await copyTree(`${from}/${e.name}`, `${to}/${e.name}`);
}

/** Runs `deno task build`'s script in `root`; resolves with the build the manifest names. */
async function build(root: string): Promise<string> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-prompt", "-A", `${root}/cli/build_dist.ts`],
    cwd: root,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(out.success, decoder.decode(out.stderr));
  return JSON.parse(await Deno.readTextFile(`${root}/dist/manifest.json`)).build;
}

/**
 * A copy of the checkout, built; removed after `body`. Its path has a space and an accent,
 * which deno info reports percent-encoded.
 */
async function withBuiltCopy(body: (root: string, build: string) => Promise<void>): Promise<void> {
  const parent = await Deno.makeTempDir({ prefix: "scv_dist_" });
  const root = `${parent}/a checkout é`;
  try {
    await Deno.mkdir(root);
    for (const p of TREE) await copyTree(`${ROOT}/${p}`, `${root}/${p}`);
    await body(root, await build(root));
  } finally {
    await Deno.remove(parent, { recursive: true });
  }
}

/** `scv server` of the copy at `root`, its pipes open. */
function serverOf(root: string): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", ...SERVER_FLAGS, `${root}/main.ts`, "server"],
    env: { XDG_CONFIG_HOME: `${root}/.config`, XDG_STATE_HOME: `${root}/.state` },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

async function scv(
  root: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const dir = await Deno.makeTempDir();
  try {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", ...SERVER_FLAGS, `${root}/main.ts`, ...args],
      cwd: dir,
      env: { XDG_CONFIG_HOME: dir, XDG_STATE_HOME: `${dir}/.state`, NO_COLOR: "1", ...env },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    return {
      code: out.code,
      stdout: decoder.decode(out.stdout),
      stderr: decoder.decode(out.stderr),
    };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("main.ts runs a command from the fresh build, and from the sources once one changes", async () => {
  await withBuiltCopy(async (root, build) => {
    // The build's exec is replaced by a marker: what prints it ran from the build.
    await Deno.writeTextFile(
      `${root}/dist/${build}/exec/exec.js`,
      'export function runExec() { console.log("ran from the build"); return 0; }\n',
    );
    const mock = await MockOpenAI.start(() => text("ran from the sources"));
    try {
      const env = { OPENAI_BASE_URL: mock.baseUrl };
      const built = await scv(root, ["exec", "say where"], env);
      assert.deepEqual(built.code, 0, built.stderr);
      assert.deepEqual(built.stdout.trim(), "ran from the build");
      assert.deepEqual(mock.requests.length, 0);

      // SCV_FROM_SOURCES=1 asks for the sources whatever the build.
      const asked = await scv(root, ["exec", "say where"], { ...env, SCV_FROM_SOURCES: "1" });
      assert.deepEqual(asked.code, 0, asked.stderr);
      assert.match(asked.stdout, /ran from the sources/);

      // A build missing one of its files is no build.
      const exec = `${root}/dist/${build}/exec/exec.js`;
      await Deno.rename(exec, `${exec}.away`);
      const torn = await scv(root, ["exec", "say where"], env);
      assert.equal(torn.code, 0, torn.stderr);
      assert.match(torn.stdout, /ran from the sources/);
      await Deno.rename(`${exec}.away`, exec);
      const again = await scv(root, ["exec", "say where"], env);
      assert.equal(again.stdout.trim(), "ran from the build");

      // A source file the build was made from is written again, the same bytes: only its
      // mtime tells, and that is enough.
      const edited = `${root}/server/utf8.ts`;
      await Deno.writeTextFile(edited, await Deno.readTextFile(edited));
      await Deno.utime(edited, new Date(), new Date(Date.now() + 2_000));
      const stale = await scv(root, ["exec", "say where"], env);
      assert.deepEqual(stale.code, 0, stale.stderr);
      assert.match(stale.stdout, /ran from the sources/);
      assert.ok(mock.requests.length >= 3, String(mock.requests.length));
    } finally {
      await mock.close();
    }
  });
});

Deno.test("a build is not made again from the same sources, and an older one stays while a process runs it", async () => {
  await withBuiltCopy(async (root, built) => {
    let first = built;
    // The manifest lists the sources, the commands' entries among them.
    const manifest = JSON.parse(await Deno.readTextFile(`${root}/dist/manifest.json`));
    for (const name of COMMANDS) assert.ok(manifest.sources[`cli/${name}.ts`], name);
    assert.equal(await build(root), first, "unchanged sources: the same build");
    // The build script is one of them: what it makes follows it.
    const script = `${root}/cli/build_dist.ts`;
    await Deno.utime(script, new Date(), new Date(Date.now() + 1_000));
    const rebuilt = await build(root);
    assert.notEqual(rebuilt, first, "a changed build script makes a new build");
    first = rebuilt;

    // A server started from the first build, then a change and a new build.
    const server = serverOf(root);
    const w = server.stdin.getWriter();
    const lines = server.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let buffered = "";
    const next = async (): Promise<Record<string, unknown>> => {
      while (!buffered.includes("\n")) {
        const r = await lines.read();
        if (r.done) throw new Error("the server closed its output");
        buffered += r.value;
      }
      const i = buffered.indexOf("\n");
      const line = buffered.slice(0, i);
      buffered = buffered.slice(i + 1);
      return JSON.parse(line);
    };
    const send = (frame: unknown) =>
      w.write(new TextEncoder().encode(JSON.stringify(frame) + "\n"));
    try {
      await send({ type: "initialize", request_id: "1", protocol_version: 1 });
      assert.equal((await next()).type, "initialized");
      const edited = `${root}/server/utf8.ts`;
      await Deno.utime(edited, new Date(), new Date(Date.now() + 2_000));
      const second = await build(root);
      assert.notEqual(second, first);
      assert.ok((await Deno.stat(`${root}/dist/${first}`)).isDirectory, "held: kept");
      // The running server still loads a handler of its build, first used now.
      await send({ type: "session.list", request_id: "2" });
      const listed = await next();
      assert.equal(listed.type, "session.list", JSON.stringify(listed));
      await w.close();
      await server.status;
    } finally {
      await w.close().catch(() => {});
      await lines.cancel().catch(() => {});
      await server.stderr.cancel().catch(() => {});
    }
    // Nobody runs the first build any more: the next build removes it.
    assert.equal(await build(root), await build(root));
    await assert.rejects(() => Deno.stat(`${root}/dist/${first}`));
  });
});

Deno.test("the build runs a text turn, a grep through its worker and the server's handshake, and loads only itself first", async () => {
  await withBuiltCopy(async (root, build) => {
    // Each command is a directory of its own. In exec's, only the hot modules' chunks are
    // imported by a literal import(); in every command's, each module URL a chunk makes
    // (workers, computed imports) points at a file that exists.
    const commands = [...Deno.readDirSync(`${root}/dist/${build}`)].filter((e) => e.isDirectory)
      .map((e) => e.name).sort();
    assert.deepEqual(commands, [...COMMANDS].sort());
    assert.ok((await Deno.stat(`${root}/dist/${build}/${LEASE_FILE}`)).isFile);
    for (const command of commands) {
      const dir = `${root}/dist/${build}/${command}`;
      const literal = new Set<string>();
      let computed = 0;
      for await (const e of Deno.readDir(dir)) {
        const chunk = await Deno.readTextFile(`${dir}/${e.name}`);
        for (const m of chunk.matchAll(/import\("\.\/([^"]+)"\)/g)) literal.add(m[1]!);
        computed += [...chunk.matchAll(/import\(new URL\(/g)].length;
        for (const m of chunk.matchAll(/new URL\("([^"]+)", import\.meta\.url\)/g)) {
          const target = new URL(m[1]!, `file://${dir}/${e.name}`);
          assert.ok((await Deno.stat(target)).isFile, `${command}/${e.name}: ${m[1]}`);
        }
      }
      if (command === "exec") {
        assert.equal(literal.size, HOT_MODULES.length, [...literal].join(" "));
        assert.ok(computed > 0);
        // zod is bundled from npm's files and shaken to what exec uses: the whole of zod, as
        // in protocol/zod/zod.js, is ~760 KB (build_dist.ts's bundleImports says why).
        let zod = 0;
        for await (const e of Deno.readDir(dir)) {
          const chunk = await Deno.readTextFile(`${dir}/${e.name}`);
          if (chunk.includes('"$ZodObject"')) zod += chunk.length;
        }
        assert.ok(zod > 0, "no chunk of exec's holds zod");
        assert.ok(zod < 400_000, `exec's zod is ${zod} characters`);
      }
      // The TUI loads as from the sources: every chunk import literal (build_dist.ts says why).
      if (command === "tui_command") assert.equal(computed, 0);
    }
    const work = await Deno.makeTempDir();
    await Deno.writeTextFile(`${work}/notes.txt`, "the needle is here\n");
    const mock = await MockOpenAI.start([
      text("hello from the build"),
      toolCalls([{ name: "grep", arguments: { pattern: "needle", path: work } }]),
      text("found it"),
    ]);
    try {
      const env = { OPENAI_BASE_URL: mock.baseUrl };
      const turn = await scv(root, ["exec", "say hello"], env);
      assert.deepEqual(turn.code, 0, turn.stderr);
      assert.match(turn.stdout, /hello from the build/);
      const tool = await scv(root, ["exec", "--cwd", work, "find the needle"], env);
      assert.deepEqual(tool.code, 0, tool.stderr);
      assert.match(tool.stdout, /found it/);
      const toolResult = JSON.stringify(mock.requests[2]?.body);
      assert.match(toolResult, /notes\.txt.*the needle is here/);
    } finally {
      await mock.close();
      await Deno.remove(work, { recursive: true });
    }
    const server = serverOf(root);
    const w = server.stdin.getWriter();
    await w.write(
      new TextEncoder().encode(
        '{"type":"initialize","request_id":"1","protocol_version":1}\n' +
          JSON.stringify({ type: "session.start", request_id: "2", cwd: root }) + "\n",
      ),
    );
    await w.close();
    const out = await server.output();
    const frames = decoder.decode(out.stdout).trim().split("\n").map((l) => JSON.parse(l));
    assert.deepEqual(frames.map((f) => f.type).slice(0, 2), ["initialized", "session.started"]);

    // Before they run, the exec and server entries load only the build: no npm package, no
    // node: module (what `deno run` reads first is what the start pays for).
    for (const entry of ["exec", "server_command"]) {
      const seen = await staticGraph(
        `${root}/dist/${build}/${entry}/${entry}.js`,
        `${root}/deno.json`,
      );
      // The graph is real: more than the entry, all of it in the build.
      assert.ok(seen.size > 3, [...seen].join("\n"));
      const outside = [...seen].filter((s) =>
        !s.startsWith("file:") ||
        !decodeURIComponent(new URL(s).pathname).startsWith(`${root}/dist/${build}/${entry}/`)
      );
      assert.deepEqual(outside, [], entry);
    }
  });
});
