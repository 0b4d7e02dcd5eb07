/**
 * The pure parts of a snapshot and a restore: which changed paths a snapshot stages, leaves out
 * (oversized, unreadable names) or drops from the index, whether it passes the byte limit, and
 * which paths a restore writes back or removes, from git's `-z` output.
 *
 * @module
 */

/** One path `git ls-files -t -m -o` reported, with what scv saw on disk. */
export interface Candidate {
  /** Workspace-relative, as git spells it. */
  path: string;
  /** Whether our index tracks it (`ls-files -t` tag other than `?`). */
  tracked: boolean;
  /** What the path is now. */
  kind: "file" | "symlink" | "missing" | "other";
  /** Bytes on disk (a symlink's own size). */
  size: number;
}

/** Limits of one snapshot. */
export interface SnapshotLimits {
  /** Files larger than this are left out. */
  maxFileBytes: number;
  /** A snapshot that would read and store more new bytes than this is skipped. */
  maxBytes: number;
}

/** What a snapshot does with its candidates. */
export interface SnapshotPlan {
  /** Paths to stage with `git update-index --add --remove` (new, changed, deleted). */
  add: string[];
  /** Tracked paths to drop from the index (now oversized or no longer a file). */
  untrack: string[];
  /** Paths left out for size. */
  oversized: string[];
  /** Bytes the staged files hold. */
  bytes: number;
  /** Whether {@link SnapshotPlan.bytes} passes `maxBytes`: the snapshot is skipped. */
  overTotal: boolean;
}

/** The paths of `git ls-files -z -t` output, with whether each is tracked; directories dropped. */
export function parseLsFilesTagged(
  fields: readonly string[],
): { path: string; tracked: boolean }[] {
  const seen = new Map<string, boolean>();
  for (const f of fields) {
    // "T path": a one-letter tag and a space.
    if (f.length < 3 || f[1] !== " ") continue;
    const path = f.slice(2);
    // An embedded repository shows as "dir/": scv does not snapshot other repositories, and a
    // name git could not give as UTF-8 cannot be handed back to it.
    if (path.endsWith("/") || path.includes("\uFFFD")) continue;
    seen.set(path, (seen.get(path) ?? false) || f[0] !== "?");
  }
  return [...seen].map(([path, tracked]) => ({ path, tracked }));
}

/**
 * Decides what a snapshot stages.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { planSnapshot } from "./changes.ts";
 * const plan = planSnapshot([
 *   { path: "a", tracked: false, kind: "file", size: 10 },
 *   { path: "big", tracked: true, kind: "file", size: 100 },
 *   { path: "gone", tracked: true, kind: "missing", size: 0 },
 * ], { maxFileBytes: 50, maxBytes: 1000 });
 * assert.deepEqual(plan.add, ["a", "gone"]);
 * assert.deepEqual(plan.untrack, ["big"]);
 * assert.deepEqual(plan.oversized, ["big"]);
 * ```
 */
export function planSnapshot(
  candidates: readonly Candidate[],
  limits: SnapshotLimits,
): SnapshotPlan {
  const plan: SnapshotPlan = { add: [], untrack: [], oversized: [], bytes: 0, overTotal: false };
  for (const c of candidates) {
    if (c.kind === "missing") {
      if (c.tracked) plan.add.push(c.path);
      continue;
    }
    if (c.kind === "other") {
      // A socket, a fifo, or a file that became a directory: nothing git can store as a file.
      if (c.tracked) plan.untrack.push(c.path);
      continue;
    }
    if (c.kind === "file" && c.size > limits.maxFileBytes) {
      plan.oversized.push(c.path);
      if (c.tracked) plan.untrack.push(c.path);
      continue;
    }
    plan.add.push(c.path);
    plan.bytes += c.size;
  }
  plan.overTotal = plan.bytes > limits.maxBytes;
  return plan;
}

/** What a restore does: write back and remove. */
export interface RestorePlan {
  /** Paths the target has that differ from (or are missing in) the current snapshot. */
  restore: string[];
  /** Paths the current snapshot has and the target does not: created since, to remove. */
  remove: string[];
}

/**
 * Reads `git diff-tree -r -z --no-renames CURRENT TARGET`: a `D` (in the current snapshot only)
 * is removed, anything else (`A`, `M`, `T`) restored from the target.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { planRestore } from "./changes.ts";
 * const z = ":100644 000000 aaa 000 D\0new.txt\0:000000 100644 000 bbb A\0gone.txt\0";
 * assert.deepEqual(planRestore(z.split("\0").slice(0, -1)), { restore: ["gone.txt"], remove: ["new.txt"] });
 * ```
 */
export function planRestore(fields: readonly string[]): RestorePlan {
  const plan: RestorePlan = { restore: [], remove: [] };
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const meta = fields[i]!;
    const path = fields[i + 1]!;
    if (!meta.startsWith(":")) throw new SyntaxError(`Unexpected diff-tree line: "${meta}"`);
    const status = meta.split(" ").at(-1)?.[0];
    if (status === "D") plan.remove.push(path);
    else plan.restore.push(path);
  }
  return plan;
}
