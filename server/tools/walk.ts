/**
 * Walks a directory tree the way a developer sees it: `.git` skipped, `.gitignore` files
 * honoured in every directory (deeper files refine shallower ones, as in git), entries in
 * sorted order, symlinked directories not followed (no loops, no silent trips outside).
 *
 * @module
 */
import * as path from "../posix_path.ts";
import type { Ignore } from "ignore";

/** One file or directory met by `walk`. */
export interface WalkEntry {
  /** Absolute path. */
  path: string;
  /** Path relative to the walk's base, `/`-separated. */
  rel: string;
  isFile: boolean;
  isDirectory: boolean;
  isSymlink: boolean;
}

/** How `walk` goes. */
export interface WalkOptions {
  /** Stops the walk between entries, and while a directory is being read. */
  signal?: AbortSignal;
  /** Deepest `rel` yielded, in segments; directories at this depth are not entered. */
  maxDepth?: number;
}

interface Rules {
  /** Directory of the .gitignore, relative to the base ("" for the base itself). */
  dir: string;
  ig: Ignore;
}

async function loadRules(base: string, dir: string): Promise<Rules | undefined> {
  let text: string;
  try {
    text = await Deno.readTextFile(path.join(base, dir, ".gitignore"));
  } catch {
    return undefined;
  }
  // Loaded on first use: `ignore` is CommonJS, and its first import starts Deno's Node module
  // loader (~15 ms), which a turn that never walks a tree should not pay at startup.
  const { default: ignore } = await import("ignore");
  return { dir, ig: ignore().add(text) };
}

/** Whether the rules in scope ignore `rel`; the deepest rule that says anything wins. */
function ignored(rules: readonly Rules[], rel: string, isDirectory: boolean): boolean {
  let result = false;
  for (const { dir, ig } of rules) {
    const sub = dir === "" ? rel : rel.slice(dir.length + 1);
    try {
      const t = ig.test(isDirectory ? `${sub}/` : sub);
      if (t.ignored) result = true;
      else if (t.unignored) result = false;
    } catch {
      // A path `ignore` cannot judge (odd characters) is not ignored.
    }
  }
  return result;
}

function compareNames(a: Deno.DirEntry, b: Deno.DirEntry): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/**
 * Yields the entries under `start` (a directory inside `base`), paths relative to `base`.
 * The .gitignore files of `base`, of the directories between it and `start`, and of every
 * directory walked apply. Throws if `start` cannot be read; unreadable subdirectories are
 * skipped.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { walk } from "./walk.ts";
 * const dir = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${dir}/.gitignore`, "*.log\n");
 * await Deno.writeTextFile(`${dir}/a.txt`, "");
 * await Deno.writeTextFile(`${dir}/b.log`, "");
 * const seen = [];
 * for await (const e of walk(dir, dir)) seen.push(e.rel);
 * assert(seen.join() === ".gitignore,a.txt");
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function* walk(
  base: string,
  start: string,
  options: WalkOptions = {},
): AsyncGenerator<WalkEntry> {
  const maxDepth = options.maxDepth ?? Infinity;
  const startRel = path.relative(base, start);
  if (startRel === ".." || startRel.startsWith("../") || path.isAbsolute(startRel)) {
    throw new RangeError(`Cannot walk "${start}": it is not inside "${base}"`);
  }
  // .gitignore files above the start directory apply to it too.
  const inherited: Rules[] = [];
  const segments = startRel === "" ? [] : startRel.split(path.sep);
  for (let i = 0; i < segments.length; i++) {
    const r = await loadRules(base, segments.slice(0, i).join("/"));
    if (r) inherited.push(r);
  }
  // Reading the start directory first lets its errors reach the caller.
  const first = await readSorted(start, options.signal);
  yield* walkDir(base, startRel.split(path.sep).join("/"), first, inherited, maxDepth, options);
}

/** The entries of `dir`, sorted; cut short (and then unsorted) when `signal` aborts. */
async function readSorted(dir: string, signal: AbortSignal | undefined): Promise<Deno.DirEntry[]> {
  const entries: Deno.DirEntry[] = [];
  for await (const e of Deno.readDir(dir)) {
    // A directory of millions of entries must not hold up a cancellation.
    if (signal?.aborted) return entries;
    entries.push(e);
  }
  return entries.sort(compareNames);
}

async function* walkDir(
  base: string,
  rel: string,
  entries: Deno.DirEntry[],
  inherited: readonly Rules[],
  maxDepth: number,
  options: WalkOptions,
): AsyncGenerator<WalkEntry> {
  const own = await loadRules(base, rel);
  const rules = own ? [...inherited, own] : inherited;
  const depth = rel === "" ? 0 : rel.split("/").length;
  for (const e of entries) {
    if (options.signal?.aborted) return;
    if (e.name === ".git") continue;
    const childRel = rel === "" ? e.name : `${rel}/${e.name}`;
    if (ignored(rules, childRel, e.isDirectory)) continue;
    const abs = path.join(base, childRel);
    yield {
      path: abs,
      rel: childRel,
      isFile: e.isFile,
      isDirectory: e.isDirectory,
      isSymlink: e.isSymlink,
    };
    if (e.isDirectory && !e.isSymlink && depth + 1 < maxDepth) {
      let children: Deno.DirEntry[];
      try {
        children = await readSorted(abs, options.signal);
      } catch {
        continue;
      }
      yield* walkDir(base, childRel, children, rules, maxDepth, options);
    }
  }
}

/**
 * Whether {@link walk} from `base` would skip the file `rel` (relative, `/`-separated): it lies
 * in a `.git` directory, or a `.gitignore` rule in scope ignores it or a directory above it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { skippedByWalk } from "./walk.ts";
 * const dir = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${dir}/.gitignore`, "build/\n*.log\n");
 * assert(await skippedByWalk(dir, "build/out.js"));
 * assert(await skippedByWalk(dir, "src/a.log"));
 * assert(await skippedByWalk(dir, ".git/config"));
 * assert(!(await skippedByWalk(dir, "src/a.ts")));
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function skippedByWalk(base: string, rel: string): Promise<boolean> {
  const segments = rel.split("/").filter((s) => s !== "" && s !== ".");
  if (segments.includes(".git")) return true;
  const rules: Rules[] = [];
  for (let i = 0; i < segments.length; i++) {
    const r = await loadRules(base, segments.slice(0, i).join("/"));
    if (r) rules.push(r);
    // A directory the walk does not enter hides all below it, as in git.
    if (ignored(rules, segments.slice(0, i + 1).join("/"), i < segments.length - 1)) return true;
  }
  return false;
}
