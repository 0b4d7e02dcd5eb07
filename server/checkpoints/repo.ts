/**
 * The shadow repository of one workspace: a bare git repository under scv's state directory
 * whose work tree is the workspace. Snapshots are trees written from a private index (so each is
 * incremental: git re-reads only files whose stat changed), kept alive by refs; a restore writes
 * a tree's files back and removes those created since. The workspace's own `.git` is never
 * opened for writing: git is pointed at this repository with `GIT_DIR`, and `.git` is a path git
 * never stages.
 *
 * @module
 */
import { type Candidate, planRestore, planSnapshot, type SnapshotLimits } from "./changes.ts";
import { parseLsFilesTagged } from "./changes.ts";
import { type GitCall, nulFields, nulList, runGit } from "./git.ts";

/**
 * Attributes over any the workspace's `.gitattributes` set: no end-of-line conversion, no filter
 * or working-tree encoding, so a restore gives back the exact bytes and no configured driver
 * (which the user's config does not reach here anyway) could run.
 */
const ATTRIBUTES = "* -text -eol -crlf -filter -ident -working-tree-encoding\n";

/** A snapshot that was taken. */
export interface Snapshot {
  kind: "taken";
  /** The tree's object id. */
  tree: string;
  /** Paths left out for size. */
  oversized: string[];
}

/** A snapshot that was not taken, and why (said to the user as a notice). */
export interface SkippedSnapshot {
  kind: "skipped";
  reason: string;
}

/** What a restore did. */
export interface Restored {
  restored: string[];
  removed: string[];
}

/** Whether a git path stays inside the work tree and off `.git`. */
function safePath(p: string): boolean {
  if (p === "" || p.startsWith("/") || p.includes("\0")) return false;
  return p.split("/").every((s) => s !== "" && s !== "." && s !== ".." && s !== ".git");
}

/** Runs `f` over `items`, `width` at a time. */
async function eachLimited<T, R>(
  items: readonly T[],
  width: number,
  f: (item: T) => Promise<R>,
): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await f(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
  return out;
}

/** An index file's identity (inode, size, change and modification times), or undefined when unreadable. */
async function stampOf(path: string): Promise<string | undefined> {
  try {
    const st = await Deno.stat(path);
    return `${st.ino}:${st.size}:${st.ctime?.getTime()}:${st.mtime?.getTime()}`;
  } catch {
    return undefined;
  }
}

/**
 * The file in a repository's `index/` that names the index the newest snapshot left, and its
 * tree: a new session's first snapshot starts from it without listing every session's index.
 * (Its name has a dot: never taken for a session's index.)
 */
export const NEWEST_INDEX = "newest.json";

/**
 * The temporary file session `sid` writes {@link NEWEST_INDEX} through: one name per session, so
 * a crash between the write and the rename leaves at most one, removed with the session.
 */
export function newestIndexTemp(sid: string): string {
  return `${NEWEST_INDEX}.${sid}.tmp`;
}

/**
 * An index file's tree as `git write-tree` made it: the file's identity (inode, size, times) at
 * the time, and when the tree was made (ms since the epoch).
 */
export interface IndexTree {
  /** The tree's object id. */
  tree: string;
  /** The index file's identity when the tree was its own. */
  stamp: string;
  /** When `git write-tree` made the tree. */
  at: number;
}

/**
 * How long after `git write-tree` made it a tree may be taken over by another process's index
 * without asking git again: half of `gc.pruneExpire` ({@link ShadowRepo.compact}), so a tree
 * that lost its last ref is still in the repository.
 */
export const TREE_TAKEOVER_MS = 30 * 60 * 1000;

/** A ref name that is a plain path under `refs/` (each part a simple name), as scv makes them. */
const PLAIN_REF = /^refs(\/[A-Za-z0-9_-][A-Za-z0-9_.-]*)+$/;

/**
 * Writes `ref` (pointing at `sha`) as git's files backend does: `<ref>.lock` created
 * exclusively (another writer's lock makes this fail, as it makes git fail), the id written,
 * the lock renamed over the ref. A ref made this way overrides a packed one of the same name,
 * and the shadow repository keeps no reflog (a bare repository's default). Resolves false,
 * having changed nothing, when it cannot (a reftable repository, a name it does not take,
 * a lock held, a directory git just pruned): the caller then asks git.
 */
export async function writeLooseRef(gitDir: string, ref: string, sha: string): Promise<boolean> {
  if (!PLAIN_REF.test(ref) || ref.includes("..") || ref.endsWith(".lock")) return false;
  if (!/^([0-9a-f]{40}|[0-9a-f]{64})$/.test(sha)) return false;
  try {
    // A reftable repository (git 3's default) keeps no loose refs.
    await Deno.lstat(`${gitDir}/reftable`);
    return false;
  } catch {
    // the files backend
  }
  const path = `${gitDir}/${ref}`;
  const lock = `${path}.lock`;
  let file: Deno.FsFile | undefined;
  try {
    await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
    file = await Deno.open(lock, { createNew: true, write: true, mode: 0o644 });
  } catch {
    file?.close();
    return false;
  }
  try {
    const line = new TextEncoder().encode(`${sha}\n`);
    if (await file.write(line) !== line.length) throw new Error("a short write");
    file.close();
    file = undefined;
    await Deno.rename(lock, path);
    return true;
  } catch {
    file?.close();
    await Deno.remove(lock).catch(() => {});
    return false;
  }
}

/**
 * One workspace's shadow repository.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ShadowRepo } from "./repo.ts";
 * const ws = await Deno.makeTempDir();
 * const state = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${ws}/a.txt`, "one");
 * const repo = new ShadowRepo(state, ws);
 * const limits = { maxFileBytes: 1 << 20, maxBytes: 1 << 24 };
 * const first = await repo.snapshot(`${state}/idx`, limits);
 * assert.equal(first.kind, "taken");
 * await Deno.writeTextFile(`${ws}/a.txt`, "two");
 * await Deno.writeTextFile(`${ws}/b.txt`, "new");
 * const now = await repo.snapshot(`${state}/idx`, limits);
 * if (first.kind !== "taken" || now.kind !== "taken") throw new Error("not taken");
 * const done = await repo.restore(now.tree, first.tree);
 * assert.deepEqual(done, { restored: ["a.txt"], removed: ["b.txt"] });
 * assert.equal(await Deno.readTextFile(`${ws}/a.txt`), "one");
 * ```
 */
export class ShadowRepo {
  /** The repository (`GIT_DIR`). */
  readonly gitDir: string;
  #ready: Promise<void> | undefined;
  /**
   * Each index's tree as this process last wrote it (or took it over, {@link copyIndex}), with
   * the index file's identity then and when `git write-tree` made that tree.
   */
  #written = new Map<string, IndexTree>();

  /** A repository in `root` (made on first use) for the canonical `workspace`. */
  constructor(readonly root: string, readonly workspace: string) {
    this.gitDir = `${root}/git`;
  }

  #call(extra: Partial<GitCall> = {}): GitCall {
    return { gitDir: this.gitDir, workTree: this.workspace, ...extra };
  }

  /** Creates the repository once (idempotent across processes). */
  ensure(signal?: AbortSignal): Promise<void> {
    return this.#ready ??= (async () => {
      try {
        await Deno.stat(`${this.gitDir}/HEAD`);
      } catch {
        await Deno.mkdir(this.root, { recursive: true, mode: 0o700 });
        // No template: its sample hooks and description are ~4 ms of copying nobody reads.
        await runGit(["init", "-q", "--bare", "--template=", this.gitDir], {
          gitDir: this.gitDir,
          ...(signal ? { signal } : {}),
        });
      }
      await Deno.mkdir(`${this.gitDir}/info`, { recursive: true });
      await Deno.writeTextFile(`${this.gitDir}/info/attributes`, ATTRIBUTES);
      await Deno.writeTextFile(`${this.root}/workspace`, this.workspace + "\n");
    })().catch((e) => {
      this.#ready = undefined;
      throw e;
    });
  }

  /**
   * Takes a snapshot with `indexFile` as the persistent index: the paths git reports as new,
   * changed or deleted since that index are looked at, the ignored and oversized left out.
   * Rejects when git fails or `signal` aborts (git is killed and its index lock cleared).
   */
  async snapshot(
    indexFile: string,
    limits: SnapshotLimits,
    signal?: AbortSignal,
  ): Promise<Snapshot | SkippedSnapshot> {
    await this.ensure(signal);
    const call = this.#call({ indexFile, ...(signal ? { signal } : {}) });
    try {
      const [changed, ignoredTracked] = await Promise.all([
        runGit(["ls-files", "-z", "-t", "-m", "-o", "--exclude-standard"], call),
        runGit(["ls-files", "-z", "-c", "-i", "--exclude-standard"], call),
      ]);
      const ignored = new Set(nulFields(ignoredTracked.stdout));
      const listed = parseLsFilesTagged(nulFields(changed.stdout))
        .filter((c) => !ignored.has(c.path));
      const candidates = await eachLimited(listed, 32, async (c): Promise<Candidate> => {
        try {
          const st = await Deno.lstat(`${this.workspace}/${c.path}`);
          const kind = st.isSymlink ? "symlink" : st.isFile ? "file" : "other";
          return { ...c, kind, size: st.size };
        } catch {
          return { ...c, kind: "missing", size: 0 };
        }
      });
      const plan = planSnapshot(candidates, limits);
      if (plan.overTotal) {
        return {
          kind: "skipped",
          reason: `the snapshot would store ${plan.bytes} bytes of changed files, more than ` +
            `checkpoint_max_bytes (${limits.maxBytes})`,
        };
      }
      // update-index takes the paths as they are: no pathspec matching, which costs
      // paths × files in `git add --pathspec-from-file`.
      const untrack = [...plan.untrack, ...ignored];
      if (untrack.length > 0) {
        await runGit(["update-index", "-z", "--force-remove", "--stdin"], {
          ...call,
          input: nulList(untrack),
        });
      }
      if (plan.add.length > 0) {
        // Every file counts as "big", so git streams them all into one pack instead of a loose
        // object file each: a first snapshot of 10,000 files took 18 s creating files on this
        // disk, 2.8 s as one pack. `git gc --auto` later merges the small packs.
        const args = ["-c", "core.bigFileThreshold=1", "update-index", "-z", "--add"];
        await runGit([...args, "--remove", "--stdin"], {
          ...call,
          input: nulList(plan.add),
        });
      }
      // An index nothing was staged into since this process wrote its tree (and that nobody
      // replaced since: same inode, size and time) still has that tree: no write-tree for it.
      const known = this.#written.get(indexFile);
      const unstaged = untrack.length === 0 && plan.add.length === 0;
      if (unstaged && known !== undefined && known.stamp === await stampOf(indexFile)) {
        return { kind: "taken", tree: known.tree, oversized: plan.oversized };
      }
      this.#written.delete(indexFile);
      const at = Date.now();
      const tree = new TextDecoder().decode((await runGit(["write-tree"], call)).stdout).trim();
      const stamp = await stampOf(indexFile);
      if (stamp !== undefined) this.#written.set(indexFile, { tree, stamp, at });
      return { kind: "taken", tree, oversized: plan.oversized };
    } catch (e) {
      this.#written.delete(indexFile);
      if (signal?.aborted) await Deno.remove(`${indexFile}.lock`).catch(() => {});
      throw e;
    }
  }

  /** The tree this process knows for `indexFile`, while the file is still the one it was. */
  async indexTree(indexFile: string): Promise<IndexTree | undefined> {
    const known = this.#written.get(indexFile);
    return known && known.stamp === await stampOf(indexFile) ? known : undefined;
  }

  /**
   * Copies the index file `source` to `target` (a session's first index, from another session's).
   * When `known` is `source`'s tree (its stamp still `source`'s before and after the copy, and
   * the tree younger than {@link TREE_TAKEOVER_MS}), the copy has that tree too, and a snapshot
   * with nothing to stage needs no `git write-tree`. Resolves false when `source` is gone.
   */
  async copyIndex(source: string, target: string, known?: IndexTree): Promise<boolean> {
    const before = await stampOf(source);
    if (before === undefined) return false;
    try {
      await Deno.copyFile(source, target);
    } catch {
      return false;
    }
    const now = Date.now();
    const fresh = known !== undefined && known.stamp === before && known.at <= now &&
      now - known.at < TREE_TAKEOVER_MS;
    if (fresh && await stampOf(source) === before) {
      const stamp = await stampOf(target);
      if (stamp !== undefined) this.#written.set(target, { tree: known.tree, stamp, at: known.at });
    }
    return true;
  }

  /** The paths that differ between two trees. */
  async changedPaths(a: string, b: string, signal?: AbortSignal): Promise<string[]> {
    if (a === b) return [];
    const out = await runGit(
      ["diff-tree", "-r", "-z", "--no-renames", "--name-only", a, b],
      { gitDir: this.gitDir, ...(signal ? { signal } : {}) },
    );
    return nulFields(out.stdout);
  }

  /** What a restore from `current` to `target` would do, without doing it. */
  async plan(current: string, target: string, signal?: AbortSignal): Promise<Restored> {
    if (current === target) return { restored: [], removed: [] };
    const out = await runGit(
      ["diff-tree", "-r", "-z", "--no-renames", current, target],
      { gitDir: this.gitDir, ...(signal ? { signal } : {}) },
    );
    const plan = planRestore(nulFields(out.stdout));
    const unsafe = [...plan.restore, ...plan.remove].find((p) => !safePath(p));
    if (unsafe !== undefined) throw new RangeError(`Refusing to restore the path "${unsafe}"`);
    return { restored: plan.restore, removed: plan.remove };
  }

  /**
   * Puts the workspace from the snapshot `current` (just taken) back to `target`: paths only in
   * `current` are removed (and directories left empty by that), the others written from
   * `target` with its content, exec bit and symlinks. Files neither snapshot holds (ignored,
   * oversized) are not touched. A file that existed keeps its permission bits but for the exec
   * bit, which comes from `target`.
   */
  async restore(current: string, target: string, signal?: AbortSignal): Promise<Restored> {
    const plan = await this.plan(current, target, signal);
    const ws = this.workspace;
    const oldModes = new Map<string, number>();
    for (const p of plan.restored) {
      try {
        const st = await Deno.lstat(`${ws}/${p}`);
        if (st.isFile && st.mode !== null) oldModes.set(p, st.mode & 0o7777);
      } catch {
        // deleted since: git's mode it is
      }
    }
    const emptied = new Set<string>();
    for (const p of plan.removed) {
      try {
        const st = await Deno.lstat(`${ws}/${p}`);
        if (st.isDirectory) continue;
        await Deno.remove(`${ws}/${p}`);
      } catch (e) {
        if (!(e instanceof Deno.errors.NotFound)) throw e;
      }
      const parts = p.split("/");
      for (let i = parts.length - 1; i > 0; i--) emptied.add(parts.slice(0, i).join("/"));
    }
    // Deepest first, so a new directory tree goes whole; a directory still holding anything stays.
    for (const d of [...emptied].sort((a, b) => b.length - a.length)) {
      await Deno.remove(`${ws}/${d}`).catch(() => {});
    }
    if (plan.restored.length > 0) {
      const tmp = `${this.root}/index/restore-${crypto.randomUUID()}`;
      await Deno.mkdir(`${this.root}/index`, { recursive: true });
      try {
        const call = this.#call({ indexFile: tmp, ...(signal ? { signal } : {}) });
        await runGit(["read-tree", target], call);
        await runGit(["checkout-index", "-f", "-z", "--stdin"], {
          ...call,
          input: nulList(plan.restored),
        });
      } finally {
        await Deno.remove(tmp).catch(() => {});
        await Deno.remove(`${tmp}.lock`).catch(() => {});
      }
      for (const [p, old] of oldModes) {
        try {
          const st = await Deno.lstat(`${ws}/${p}`);
          if (!st.isFile || st.mode === null) continue;
          const exec = (st.mode & 0o100) !== 0;
          const want = exec ? old | ((old & 0o444) >> 2) : old & ~0o111;
          if ((st.mode & 0o7777) !== want) await Deno.chmod(`${ws}/${p}`, want);
        } catch {
          // gone again meanwhile: nothing to put right
        }
      }
    }
    return plan;
  }

  /**
   * Points refs at objects (`sha`) or deletes them (`null`), in one transaction. One ref pointed
   * at an object is written as git's files backend writes it, without a git process (one on
   * every turn's path, twice): see {@link writeLooseRef}.
   */
  async updateRefs(updates: readonly { ref: string; sha: string | null }[]): Promise<void> {
    if (updates.length === 0) return;
    const [only] = updates;
    if (
      updates.length === 1 && only?.sha != null &&
      await writeLooseRef(this.gitDir, only.ref, only.sha)
    ) return;
    const input = updates.map((u) =>
      u.sha === null ? `delete ${u.ref}\n` : `update ${u.ref} ${u.sha}\n`
    ).join("");
    await runGit(["update-ref", "--stdin"], { gitDir: this.gitDir, input });
  }

  /** The refs under a prefix. */
  async refsUnder(prefix: string): Promise<string[]> {
    const out = await runGit(["for-each-ref", "--format=%(refname)", prefix], {
      gitDir: this.gitDir,
    });
    return new TextDecoder().decode(out.stdout).split("\n").filter((l) => l !== "");
  }

  /** Lets git pack and prune when it thinks it should (`git gc --auto`), bounded in time. */
  async compact(signal?: AbortSignal): Promise<void> {
    // In the foreground (no detached gc left running), and killed when the signal says.
    const settings = ["-c", "gc.pruneExpire=1.hour.ago", "-c", "gc.autoDetach=false"];
    await runGit([...settings, "gc", "--auto", "--quiet"], {
      gitDir: this.gitDir,
      signal: signal ?? AbortSignal.timeout(120_000),
    });
  }

  /** Packs in the repository: each snapshot adds one, `git gc --auto` merges them past 50. */
  async packs(): Promise<number> {
    let n = 0;
    try {
      for await (const e of Deno.readDir(`${this.gitDir}/objects/pack`)) {
        if (e.name.endsWith(".pack")) n++;
      }
    } catch {
      // no pack yet
    }
    return n;
  }
}

/** Bytes a directory tree takes (file sizes), for `scv sessions`; 0 when it does not exist. */
export async function treeBytes(dir: string): Promise<number> {
  let total = 0;
  const walk = async (d: string) => {
    let entries;
    try {
      entries = Deno.readDir(d);
      for await (const e of entries) {
        const p = `${d}/${e.name}`;
        if (e.isDirectory) await walk(p);
        else if (e.isFile) total += (await Deno.lstat(p)).size;
      }
    } catch {
      // vanished meanwhile
    }
  };
  await walk(dir);
  return total;
}
