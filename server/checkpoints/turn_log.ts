/**
 * A session's checkpoint log: one JSON line per fact (a turn began, its snapshot before the
 * first changing call, its snapshot at the end, a skipped snapshot, a rewind, turns dropped from
 * the conversation), folded into the list of checkpoints. Pure: encoding, folding, and which
 * snapshot a rewind to a turn restores.
 *
 * ```text
 * {"t":"turn","id":"T1","title":"Fix the test","at":"…","start":0,"compacted":0,"prompt":"<sha-256>"}
 * {"t":"before","id":"T1","tree":"<sha>"}
 * {"t":"after","id":"T1","tree":"<sha>","files":3}
 * {"t":"skip","id":"T2","reason":"…"}
 * {"t":"rewind","id":"R1","title":"…","at":"…","start":4,"compacted":0,"before":"<sha>","after":"<sha>","files":2}
 * {"t":"drop","ids":["T2","T3"]}
 * ```
 *
 * @module
 */

/** The most checkpoints a session keeps; older ones are forgotten (and their snapshots freed). */
export const MAX_CHECKPOINTS = 200;

/** One line of the log. */
export type LogRecord =
  | {
    t: "turn";
    id: string;
    title: string;
    at: string;
    /** Where the turn's prompt was in the history, and the compaction count then. */
    start: number;
    compacted: number;
    /** The prompt's SHA-256, to recognise the turn's start in the history later. */
    prompt: string;
  }
  | { t: "before"; id: string; tree: string }
  | { t: "after"; id: string; tree: string; files: number }
  | { t: "skip"; id: string; reason: string }
  | {
    t: "rewind";
    id: string;
    title: string;
    at: string;
    start: number;
    compacted: number;
    before: string;
    after: string;
    files: number;
  }
  | { t: "drop"; ids: string[] };

/** One checkpoint as the log describes it. */
export interface Checkpoint {
  id: string;
  /** A turn of the conversation, or a rewind (whose `before` undoes it). */
  kind: "turn" | "rewind";
  title: string;
  at: string;
  start: number;
  compacted: number;
  /** The prompt's SHA-256 (turns only). */
  prompt?: string;
  /** The workspace before the turn's first changing call (or before the rewind). */
  before?: string;
  /** The workspace when the turn ended (or after the rewind). */
  after?: string;
  /** Paths that differ between `before` and `after`. */
  files?: number;
  /** Why the turn's snapshot was skipped: its files cannot be rewound. */
  skipped?: string;
}

/** Encodes one record as a line. */
export function encodeLogRecord(r: LogRecord): string {
  return JSON.stringify(r) + "\n";
}

function isRecord(v: unknown): v is LogRecord {
  if (typeof v !== "object" || v === null) return false;
  const r = v as Record<string, unknown>;
  const str = (k: string) => typeof r[k] === "string";
  const num = (k: string) => typeof r[k] === "number" && Number.isSafeInteger(r[k]);
  switch (r.t) {
    case "turn":
      return str("id") && str("title") && str("at") && num("start") && num("compacted") &&
        str("prompt");
    case "before":
      return str("id") && str("tree");
    case "after":
      return str("id") && str("tree") && num("files");
    case "skip":
      return str("id") && str("reason");
    case "rewind":
      return str("id") && str("title") && str("at") && num("start") && num("compacted") &&
        str("before") && str("after") && num("files");
    case "drop":
      return Array.isArray(r.ids) && r.ids.every((i) => typeof i === "string");
    default:
      return false;
  }
}

/** A folded log. */
export interface FoldedLog {
  /** The checkpoints, oldest first, at most {@link MAX_CHECKPOINTS}. */
  checkpoints: Checkpoint[];
  /** Checkpoints forgotten for the bound or dropped from the conversation: their refs can go. */
  forgotten: string[];
  /** Lines read, good or not: a log much longer than its checkpoints is rewritten. */
  lines: number;
}

/**
 * Folds the log's text; torn or foreign lines are skipped.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { encodeLogRecord, foldLog } from "./turn_log.ts";
 * const text = [
 *   { t: "turn", id: "a", title: "A", at: "t", start: 0, compacted: 0, prompt: "p" },
 *   { t: "before", id: "a", tree: "x" },
 *   { t: "after", id: "a", tree: "y", files: 2 },
 * ].map((r) => encodeLogRecord(r as never)).join("") + '{"torn';
 * const { checkpoints } = foldLog(text);
 * assert.equal(checkpoints[0]?.files, 2);
 * ```
 */
export function foldLog(text: string): FoldedLog {
  const byId = new Map<string, Checkpoint>();
  const forgotten: string[] = [];
  let lines = 0;
  for (const line of text.split("\n")) {
    if (line === "") continue;
    lines++;
    let r: unknown;
    try {
      r = JSON.parse(line);
    } catch {
      continue;
    }
    if (!isRecord(r)) continue;
    if (r.t === "turn") {
      const { t: _, ...rest } = r;
      byId.delete(r.id);
      byId.set(r.id, { ...rest, kind: "turn" });
    } else if (r.t === "rewind") {
      const { t: _, ...rest } = r;
      byId.delete(r.id);
      byId.set(r.id, { ...rest, kind: "rewind" });
    } else if (r.t === "drop") {
      for (const id of r.ids) if (byId.delete(id)) forgotten.push(id);
    } else {
      const c = byId.get(r.id);
      if (!c) continue;
      if (r.t === "before") c.before = r.tree;
      else if (r.t === "after") {
        c.after = r.tree;
        c.files = r.files;
      } else c.skipped = r.reason;
    }
  }
  const checkpoints = [...byId.values()];
  const over = checkpoints.splice(0, Math.max(0, checkpoints.length - MAX_CHECKPOINTS));
  forgotten.push(...over.map((c) => c.id));
  return { checkpoints, forgotten, lines };
}

/** The records that describe `checkpoints` again, for a rewritten log. */
export function recordsOf(checkpoints: readonly Checkpoint[]): LogRecord[] {
  const out: LogRecord[] = [];
  for (const c of checkpoints) {
    if (c.kind === "rewind") {
      out.push({
        t: "rewind",
        id: c.id,
        title: c.title,
        at: c.at,
        start: c.start,
        compacted: c.compacted,
        before: c.before ?? "",
        after: c.after ?? "",
        files: c.files ?? 0,
      });
      continue;
    }
    out.push({
      t: "turn",
      id: c.id,
      title: c.title,
      at: c.at,
      start: c.start,
      compacted: c.compacted,
      prompt: c.prompt ?? "",
    });
    if (c.before !== undefined) out.push({ t: "before", id: c.id, tree: c.before });
    if (c.after !== undefined) {
      out.push({ t: "after", id: c.id, tree: c.after, files: c.files ?? 0 });
    }
    if (c.skipped !== undefined) out.push({ t: "skip", id: c.id, reason: c.skipped });
  }
  return out;
}

/** The snapshot a files rewind to a checkpoint restores. */
export type RewindTarget =
  | { kind: "tree"; tree: string }
  /** Nothing changed files since: there is nothing to restore. */
  | { kind: "unchanged" }
  | { kind: "error"; message: string };

/**
 * Which snapshot gives the workspace as it was before checkpoint `id`: its own `before`, else
 * (a turn that changed nothing) the next later one's, since nothing changed files in between;
 * a skipped snapshot on the way means that state was never saved.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { rewindTarget } from "./turn_log.ts";
 * const c = (id: string, before?: string) => ({ id, kind: "turn" as const, title: id, at: "", start: 0, compacted: 0, ...(before ? { before } : {}) });
 * assert.deepEqual(rewindTarget([c("a"), c("b", "t2")], "a"), { kind: "tree", tree: "t2" });
 * assert.deepEqual(rewindTarget([c("a")], "a"), { kind: "unchanged" });
 * assert.equal(rewindTarget([c("a")], "zz").kind, "error");
 * ```
 */
export function rewindTarget(checkpoints: readonly Checkpoint[], id: string): RewindTarget {
  const at = checkpoints.findIndex((c) => c.id === id);
  if (at === -1) {
    return { kind: "error", message: `turn "${id}" has no checkpoint in this session` };
  }
  for (const c of checkpoints.slice(at)) {
    if (c.skipped !== undefined) {
      const whose = c.id === id ? "its" : `turn "${c.id}"'s`;
      return {
        kind: "error",
        message: `turn "${id}" has no checkpoint: ${whose} snapshot was skipped (${c.skipped})`,
      };
    }
    if (c.before !== undefined) return { kind: "tree", tree: c.before };
  }
  return { kind: "unchanged" };
}
