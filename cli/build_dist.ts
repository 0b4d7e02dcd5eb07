/**
 * `deno task build`: bundles each command `main.ts` runs into `dist/<build>/<command>/` with
 * `deno bundle --code-splitting`, and writes `dist/manifest.json` (cli/dist.ts says how `main.ts`
 * reads it). Each command is bundled on its own: bundled together, the commands' shared code
 * was cut into more, smaller chunks, and a text turn read 87 files where it now reads 73 (5 ms
 * of its wall time, 3.5 of CPU; the disk holds each shared module once per command). The npm
 * packages stay external, loaded from Deno's cache when a run first imports them, all but
 * @noble/hashes, which is on the text turn's path and whose npm form boots Deno's
 * Node layer, and zod, which the build takes from npm rather than from the sources' one-module
 * copy ({@link bundleImports}). The workers (`new URL("./x_worker.ts", import.meta.url)`), and
 * the tokenizer's tables (`o200k_tables.gz`), keep being read from the sources: their URLs are
 * rewritten to the source files.
 *
 * `deno run` reads every module a literal `import()` names before any code runs: with every
 * chunk's imports literal, a text turn read the TUI's, MCP's and the tokenizer's chunks too. So
 * only the imports of {@link HOT_MODULES}' chunks (what a text or tool turn imports) stay
 * literal, read at the start with the rest of its graph and in parallel; every other chunk's
 * becomes computed (`import(new URL("./x.js", import.meta.url).href)`), read when it is first
 * imported. Made all computed, the text turn took longer (its chunks then came one after
 * another); made all literal, the start read ~150 modules where it needs ~100.
 *
 * The sources are read before the bundle is made, so a file edited while it runs leaves the
 * manifest stale rather than wrong. A build is written beside the others and named by the
 * manifest only when complete. An older build is removed once no process holds its lease (a
 * server or an editor's agent started from it still imports its chunks: cli/dist.ts); a build
 * whose sources are unchanged is not made again.
 *
 * @module
 */
import { ZOD } from "../protocol/zod/generate.ts";
import {
  COMMANDS,
  DIST_FORMAT,
  type DistManifest,
  LEASE_FILE,
  manifestBuild,
  statOf,
} from "./dist.ts";

/** The npm packages bundled in rather than left external (their import-map keys). */
export const BUNDLED_PACKAGES: readonly string[] = ["zod", "@noble/hashes/"];

/** What `deno info --json` says of a graph, as far as the build reads it. */
interface Info {
  modules: Array<{ specifier: string }>;
}

const decoder = new TextDecoder();

async function run(args: string[], cwd: string): Promise<string> {
  const out = await new Deno.Command(Deno.execPath(), {
    args,
    cwd,
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).output();
  if (!out.success) {
    throw new Error(`deno ${args[0]} failed: ${decoder.decode(out.stderr).slice(-4000)}`);
  }
  return decoder.decode(out.stdout);
}

/**
 * The local files under `root` that the commands' graphs hold, with deno.json, deno.lock and
 * this script (what it makes follows it: which chunks stay literal, say).
 */
async function sourcesOf(root: string): Promise<string[]> {
  // protocol/zod/generate.ts names the zod the bundles take from npm (bundleImports).
  const files = new Set<string>([
    "deno.json",
    "deno.lock",
    "cli/build_dist.ts",
    "protocol/zod/generate.ts",
  ]);
  for (const name of COMMANDS) {
    const info = JSON.parse(
      await run(["info", "--json", "--config", `${root}/deno.json`, `cli/${name}.ts`], root),
    ) as Info;
    for (const m of info.modules) {
      if (!m.specifier.startsWith("file:")) continue;
      // deno info reports URLs: a checkout's path with a space or an accent is percent-encoded.
      const path = decodeURIComponent(new URL(m.specifier).pathname);
      if (path.startsWith(`${root}/`)) files.add(path.slice(root.length + 1));
    }
  }
  // A graph that missed its own entry would leave edits to it unseen: fail instead.
  for (const name of COMMANDS) {
    if (!files.has(`cli/${name}.ts`)) throw new Error(`deno info did not list cli/${name}.ts`);
  }
  return [...files].sort();
}

/** The `--external` flags: every import-map key but {@link BUNDLED_PACKAGES}, and `npm:`. */
export function externalFlags(imports: Record<string, string>): string[] {
  const flags = ["--external", "npm:*"];
  for (const key of Object.keys(imports)) {
    if (BUNDLED_PACKAGES.includes(key)) continue;
    flags.push("--external", key.endsWith("/") ? `${key}*` : key);
  }
  return flags;
}

/**
 * The import map the bundles are made with: deno.json's, its local targets made absolute (the
 * map is written under `dist/`, and a relative target resolves against the map's own place),
 * and zod taken from npm. The sources import protocol/zod/zod.js, zod joined into one module,
 * which `deno run` reads faster than zod's ~100 files; but in it every export hangs off one
 * namespace object, so esbuild cannot drop what scv never calls. Bundled from npm's files, with
 * the sources' `import * as z`, esbuild keeps only the zod a command uses: exec's zod chunk
 * went from 758 KB to 198 KB (docs/performance.md).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { bundleImports } from "./build_dist.ts";
 * const map = bundleImports({ zod: "./protocol/zod/zod.js", ignore: "npm:ignore@^7.0.0" }, "/r");
 * assert.equal(map.zod, "npm:zod@4.6.7");
 * assert.equal(map.ignore, "npm:ignore@^7.0.0");
 * ```
 */
export function bundleImports(
  imports: Readonly<Record<string, string>>,
  root: string,
): Record<string, string> {
  const base = new URL(`file://${root.replace(/\/+$/, "")}/`);
  const out: Record<string, string> = {};
  for (const [key, target] of Object.entries(imports)) {
    out[key] = target.startsWith("./") || target.startsWith("../")
      ? new URL(target, base).href
      : target;
  }
  out.zod = ZOD;
  return out;
}

const WORKER_URL = /new URL\("\.\/([A-Za-z0-9_]+\.(?:ts|gz))", import\.meta\.url\)/g;

/**
 * Where each module URL the sources make relative to themselves (`new URL("./x.ts",
 * import.meta.url)`) points, by its file name: a path from the root. Two files of one name would
 * be ambiguous in a bundle, and fail the build.
 */
export function relativeUrls(texts: ReadonlyMap<string, string>): Map<string, string> {
  const out = new Map<string, string>();
  for (const [path, text] of texts) {
    const dir = path.includes("/") ? path.slice(0, path.lastIndexOf("/") + 1) : "";
    for (const [, name] of text.matchAll(WORKER_URL)) {
      const target = dir + name!;
      const seen = out.get(name!);
      if (seen !== undefined && seen !== target) {
        throw new Error(`two modules named ${name} are loaded by URL: ${seen} and ${target}`);
      }
      out.set(name!, target);
    }
  }
  return out;
}

/**
 * `chunk` with each `new URL("./x.ts", import.meta.url)` pointing at the source file (`urls`,
 * from {@link relativeUrls}) from a command's directory in a build, three levels under the
 * root. A URL the map does not know fails the build: it would point into the build, where no
 * `.ts` file is.
 */
export function rewriteUrls(chunk: string, urls: ReadonlyMap<string, string>): string {
  return chunk.replace(WORKER_URL, (_, name: string) => {
    const target = urls.get(name);
    if (target === undefined) throw new Error(`the bundle loads ./${name}, no source names it`);
    return `new URL(${JSON.stringify(`../../../${target}`)}, import.meta.url)`;
  });
}

/**
 * The modules imported by `import()` that an `exec` or server text turn imports (found by
 * tracing which chunks such turns open): their chunks are read at the start. A module named
 * here that has no chunk of its own fails the build. Not the tools': `bash`'s chunk brings zod
 * (760 KB then), which a text turn then read for nothing (+4-8 ms and +1.3 MB); read at a tool
 * turn's first call instead, its chunks come together, beside the call's checkpoint snapshot.
 * Tried again with zod shaken to 198 KB (bundleImports): both turns were still slower.
 */
export const HOT_MODULES: readonly string[] = [
  "server/peon/handlers/session_start.ts",
  "server/peon/handlers/turn_start.ts",
  "server/core/run_turn.ts",
  "server/core/hook_points.ts",
  "server/core/prompt.ts",
  "server/core/context_manager.ts",
  "server/tools/registry.ts",
  "server/tools/lazy_builtin.ts",
  "server/provider/from_config.ts",
  "server/provider/openai.ts",
  "server/provider/window.ts",
  "server/checkpoints/open.ts",
];

/**
 * The chunk file of each of `modules` among `files` (one command's output): esbuild names the
 * chunk of a module imported by `import()` after the module's file (`run_turn-HASH.js`). A
 * module the command does not import has none; two chunks of one name fail the build.
 */
export function hotChunks(modules: readonly string[], files: readonly string[]): Set<string> {
  const out = new Set<string>();
  for (const path of modules) {
    const base = path.slice(path.lastIndexOf("/") + 1).replace(/\.ts$/, "");
    const found = files.filter((f) =>
      f.startsWith(`${base}-`) && /^[A-Z0-9]+\.js$/.test(f.slice(base.length + 1))
    );
    if (found.length === 0) continue;
    if (found.length !== 1) {
      throw new Error(
        `${path}: ${found.length} chunks named after it (${found.join(", ")}), not 1`,
      );
    }
    out.add(found[0]!);
  }
  return out;
}

const CHUNK_IMPORT = /\bimport\("\.\/([A-Za-z0-9_.-]+\.js)"\)/g;

/**
 * `chunk` with each literal `import("./x.js")` of a chunk not in `hot` made computed, so that
 * `deno run` reads it only when the import runs. The imports of npm packages stay literal.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { lazyImports } from "./build_dist.ts";
 * const hot = new Set(["run_turn-Y2.js"]);
 * assert.equal(
 *   lazyImports('import("./bash-X1.js"); import("./run_turn-Y2.js")', hot),
 *   'import(new URL("./bash-X1.js", import.meta.url).href); import("./run_turn-Y2.js")',
 * );
 * ```
 */
export function lazyImports(chunk: string, hot: ReadonlySet<string>): string {
  return chunk.replace(
    CHUNK_IMPORT,
    (literal, file: string) =>
      hot.has(file)
        ? literal
        : `import(new URL(${JSON.stringify(`./${file}`)}, import.meta.url).href)`,
  );
}

/**
 * Removes the builds under `distDir` other than `keep` that no process holds (each is removed
 * while its lease is locked exclusively, so no process can start on it meanwhile), and what a
 * crashed build left more than an hour ago.
 */
async function prune(distDir: string, keep: string): Promise<void> {
  for await (const e of Deno.readDir(distDir)) {
    if (e.name === keep || e.name === "manifest.json") continue;
    const path = `${distDir}/${e.name}`;
    if (e.name.startsWith(".")) {
      // A `.tmp-` build or a `.manifest-` file: one in progress, or one a crash left.
      const mtime = (await Deno.stat(path)).mtime?.getTime() ?? 0;
      if (Date.now() - mtime > 3600_000) await Deno.remove(path, { recursive: true });
      continue;
    }
    if (!e.isDirectory) continue;
    let lease: Deno.FsFile | undefined;
    try {
      lease = await Deno.open(`${path}/${LEASE_FILE}`, { read: true });
    } catch {
      // No lease: not a build of this format, or one whose lease a crash never wrote.
    }
    try {
      if (lease && !await lease.tryLock(true)) continue; // a process runs it
      await Deno.remove(path, { recursive: true });
    } finally {
      lease?.close();
    }
  }
}

/**
 * Each `new URL("...", import.meta.url)` a chunk still makes must name a chunk beside it (a
 * computed import): any other points into the build, where no source is.
 */
export function strayUrls(chunk: string, files: ReadonlySet<string>): string[] {
  const out: string[] = [];
  for (
    const m of chunk.matchAll(
      /new URL\(("(?:[^"\\]|\\.)*"|'[^']*'|`[^`]*`)\s*,\s*import\.meta\.url\)/g,
    )
  ) {
    const text = m[1]!;
    const inner = text.slice(1, -1);
    if (text.startsWith('"') && inner.startsWith("./") && files.has(inner.slice(2))) continue;
    if (text.startsWith('"') && inner.startsWith("../../../")) continue; // a source, rewritten
    out.push(text);
  }
  return out;
}

/** Bundles the command `name` of `root` into `out`, its chunks rewritten. */
async function bundleCommand(
  root: string,
  name: string,
  out: string,
  imports: Record<string, string>,
  importMap: string,
  urls: ReadonlyMap<string, string>,
): Promise<void> {
  await run([
    "bundle",
    "--config",
    `${root}/deno.json`,
    "--import-map",
    importMap,
    "--code-splitting",
    "--platform",
    "deno",
    "--format",
    "esm",
    ...externalFlags(imports),
    "--outdir",
    out,
    `cli/${name}.ts`,
  ], root);
  await Deno.stat(`${out}/${name}.js`);
  const files: string[] = [];
  for await (const e of Deno.readDir(out)) {
    if (e.isFile && e.name.endsWith(".js")) files.push(e.name);
  }
  // The TUI keeps every import literal, as it loads from the sources: with its chunks read when
  // first imported, its e2e test of resizes during an approval failed every time (a stale copy
  // of the approval box stayed in the terminal's history; tests/tui/e2e_layout_test.ts), and
  // passed again with only approval_resolve's chunk made literal. The cause was not found; the
  // TUI starts once and runs for hours, so it keeps the loading every test has held.
  const hot = name === "tui_command" ? new Set(files) : hotChunks(HOT_MODULES, files);
  const all = new Set(files);
  for (const file of files) {
    const path = `${out}/${file}`;
    const text = await Deno.readTextFile(path);
    const rewritten = lazyImports(rewriteUrls(text, urls), hot);
    const stray = strayUrls(rewritten, all);
    if (stray.length > 0) throw new Error(`${name}/${file} loads ${stray.join(", ")} by URL`);
    if (rewritten !== text) await Deno.writeTextFile(path, rewritten);
  }
}

/** Builds `root`'s commands into `root/dist/<build>/<command>/`; returns the build's name. */
export async function buildDist(root: string): Promise<string> {
  const distDir = `${root}/dist`;
  const current = manifestBuild(root);
  if (current !== undefined && statOf(`${distDir}/${current}/${LEASE_FILE}`) !== undefined) {
    await prune(distDir, current);
    return current; // the sources are what it was made from
  }
  const sources = await sourcesOf(root);
  const stats: DistManifest["sources"] = {};
  const texts = new Map<string, string>();
  for (const path of sources) {
    const stat = statOf(`${root}/${path}`);
    if (stat === undefined) throw new Error(`cannot read ${path}`);
    stats[path] = stat;
    if (path.endsWith(".ts")) texts.set(path, await Deno.readTextFile(`${root}/${path}`));
  }
  const urls = relativeUrls(texts);
  const imports = (JSON.parse(await Deno.readTextFile(`${root}/deno.json`)) as {
    imports?: Record<string, string>;
  }).imports ?? {};

  await Deno.mkdir(distDir, { recursive: true });
  const build = `b${Date.now().toString(36)}${crypto.randomUUID().slice(0, 4)}`;
  const tmp = `${distDir}/.tmp-${build}`;
  // A dot name, as a crash's leftovers are removed by prune() like a `.tmp-` build's.
  const importMap = `${distDir}/.imports-${build}.json`;
  try {
    await Deno.writeTextFile(
      importMap,
      JSON.stringify({ imports: bundleImports(imports, root) }, null, 2) + "\n",
    );
    // Two at a time: the machines this runs on have two cores.
    const queue = [...COMMANDS];
    const bundleNext = async (): Promise<void> => {
      for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
        await bundleCommand(root, name, `${tmp}/${name}`, imports, importMap, urls);
      }
    };
    // Settled both, so that neither writes into the directory after a failure removed it.
    const done = await Promise.allSettled([bundleNext(), bundleNext()]);
    for (const d of done) if (d.status === "rejected") throw d.reason;
    // An import added while the build ran would be missing from the manifest: build again.
    if ((await sourcesOf(root)).join("\n") !== sources.join("\n")) {
      throw new Error("the sources' modules changed while the build ran; run it again");
    }
    await Deno.writeTextFile(`${tmp}/${LEASE_FILE}`, "");
    await Deno.rename(tmp, `${distDir}/${build}`);
  } catch (e) {
    await Deno.remove(tmp, { recursive: true }).catch(() => {});
    throw e;
  } finally {
    await Deno.remove(importMap).catch(() => {});
  }
  const manifest: DistManifest = { format: DIST_FORMAT, build, sources: stats };
  const manifestTmp = `${distDir}/.manifest-${build}.json`;
  await Deno.writeTextFile(manifestTmp, JSON.stringify(manifest) + "\n");
  await Deno.rename(manifestTmp, `${distDir}/manifest.json`);
  await prune(distDir, build);
  return build;
}

if (import.meta.main) {
  const root = decodeURIComponent(new URL("..", import.meta.url).pathname).replace(/\/$/, "");
  const build = await buildDist(root);
  console.log(`scv: dist/${build} is built (main.ts runs it while the sources are unchanged)`);
}
