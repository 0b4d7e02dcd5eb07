/**
 * One session's checkpoints: the turns it ran (for the conversation), the snapshot before each
 * turn's first changing call and at its end (for the files), rewinds (undoable, as checkpoints of
 * their own), all in the session's log beside the workspace's shadow repository. Every snapshot
 * is bounded in time: one that takes too long is skipped with a notice, never stalling the turn.
 *
 * @module
 */
import { titleOf } from "../sessions/records.ts";
import { errorText } from "../error_text.ts";
import { after, type Timer } from "../timer.ts";
import type { SnapshotLimits } from "./changes.ts";
import {
  type IndexTree,
  NEWEST_INDEX,
  newestIndexTemp,
  type Restored,
  type ShadowRepo,
  treeBytes,
} from "./repo.ts";
import {
  type Checkpoint,
  encodeLogRecord,
  foldLog,
  type LogRecord,
  MAX_CHECKPOINTS,
  recordsOf,
  rewindTarget,
} from "./turn_log.ts";

/** Bytes of {@link NEWEST_INDEX} read at most. */
const MAX_POINTER_BYTES = 4096;

/** A session id as an index file's name: no path, no dot. */
const INDEX_NAME = /^[A-Za-z0-9_-]{1,128}$/;

/** A small file's text; empty when it is missing, not a file, or larger than `max` bytes. */
async function readSmall(path: string, max: number): Promise<string> {
  try {
    const st = await Deno.lstat(path);
    return st.isFile && st.size <= max ? await Deno.readTextFile(path) : "";
  } catch {
    return "";
  }
}

/** What {@link NEWEST_INDEX} says, when it is whole and of this shape. */
function parsePointer(text: string): ({ sid: string } & IndexTree) | undefined {
  try {
    const j = JSON.parse(text);
    if (
      typeof j?.sid === "string" && INDEX_NAME.test(j.sid) && typeof j.tree === "string" &&
      /^[0-9a-f]{40,64}$/.test(j.tree) && typeof j.stamp === "string" &&
      typeof j.at === "number" && Number.isFinite(j.at)
    ) {
      return { sid: j.sid, tree: j.tree, stamp: j.stamp.slice(0, 200), at: j.at };
    }
  } catch {
    // torn or foreign: the index directory is listed instead
  }
  return undefined;
}

/** How long one snapshot may take before it is given up (git killed) and skipped. */
export const SNAPSHOT_TIMEOUT_MS = 5000;

/** Packs past which a turn's end lets `git gc --auto` merge them (git's own limit is 50). */
const PACKS_BEFORE_GC = 50;

/** How long that may take before it is given up (the next turn end tries again). */
const GC_TIMEOUT_MS = 30_000;

/** The longest a snapshot may go on in the background after its time bound. */
export const BACKGROUND_SNAPSHOT_MS = 120_000;

/** The largest log read; a longer one (never written by scv) starts afresh. */
export const MAX_LOG_BYTES = 4 * 1024 * 1024;

/** How a session's checkpoints behave. */
export interface CheckpointSettings extends SnapshotLimits {
  /** Omitted: {@link SNAPSHOT_TIMEOUT_MS}. */
  timeoutMs?: number;
  /** Takes secrets (the provider's key) out of a log line before it is written (titles). */
  redact?: (line: string) => string;
}

/** A snapshot taken within its time bound, or the reason it was skipped. */
type Snapshotted = { tree: string; oversized: string[] } | { skipped: string };

/** One checkpoint as `session.checkpoints` lists it. */
export interface ListedCheckpoint {
  turn_id: string;
  title: string;
  created_at: string;
  files_changed: number;
}

/** The SHA-256 of a text, in hex. */
export async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** What a session's history needs to say for a conversation rewind. */
export interface HistoryView {
  readonly history: readonly { role: string; content?: unknown }[];
  readonly compactedMessages: number;
}

/**
 * One session's checkpoints in a workspace's shadow repository. Operations run one at a time.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ShadowRepo } from "./repo.ts";
 * import { SessionCheckpoints } from "./session_checkpoints.ts";
 * const ws = await Deno.makeTempDir();
 * const state = await Deno.makeTempDir();
 * const cp = new SessionCheckpoints(new ShadowRepo(state, ws), crypto.randomUUID(), {
 *   maxFileBytes: 1 << 20, maxBytes: 1 << 24,
 * });
 * await cp.turnStarted({ id: "t1", prompt: "make a.txt", start: 0, compacted: 0 });
 * await cp.beforeChange("t1");
 * await Deno.writeTextFile(`${ws}/a.txt`, "made");
 * await cp.turnEnded("t1");
 * assert.equal((await cp.list())[0]?.files_changed, 1);
 * const done = await cp.rewindFiles("t1");
 * assert.deepEqual(done.removed, ["a.txt"]);
 * ```
 */
export class SessionCheckpoints {
  readonly #repo: ShadowRepo;
  readonly #sid: string;
  readonly #settings: CheckpointSettings;
  readonly #logPath: string;
  /** The repository's directory of sessions' index files. */
  readonly #indexDir: string;
  readonly #indexFile: string;
  /** What this session last wrote to {@link NEWEST_INDEX}: the same again is not rewritten. */
  #pointed: string | undefined;
  #checkpoints: Checkpoint[] | undefined;
  /** Turns that already tried their "before" snapshot in this process. */
  #tried = new Set<string>();
  #queue: Promise<unknown> = Promise.resolve();
  /** A snapshot that outlived its time bound, still filling the index. */
  #behind: Promise<void> | undefined;
  /** A closing snapshot taken early ({@link callsEnded}), while no call of its turn ran since. */
  #early: { turnId: string; stop: AbortController; done: Promise<string[]> } | undefined;
  /** A "before" snapshot started ahead of its call ({@link beforeAhead}), not yet taken. */
  #ahead: { turnId: string; stop: AbortController; done: Promise<Snapshotted> } | undefined;
  #closed = new AbortController();

  /** The checkpoints of session `sid` in `repo`. */
  constructor(repo: ShadowRepo, sid: string, settings: CheckpointSettings) {
    this.#repo = repo;
    this.#sid = sid;
    this.#settings = settings;
    this.#logPath = `${repo.root}/sessions/${sid}.jsonl`;
    this.#indexDir = `${repo.root}/index`;
    this.#indexFile = `${this.#indexDir}/${sid}`;
  }

  /** Runs `f` after every earlier operation. */
  #serial<T>(f: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(f, f);
    this.#queue = run.catch(() => {});
    return run;
  }

  #ref(id: string, which: "before" | "after"): string {
    return `refs/scv/${this.#sid}/${id}/${which}`;
  }

  async #load(): Promise<Checkpoint[]> {
    if (this.#checkpoints) return this.#checkpoints;
    let text = "";
    try {
      const { size } = await Deno.stat(this.#logPath);
      if (size <= MAX_LOG_BYTES) text = await Deno.readTextFile(this.#logPath);
    } catch {
      // no log yet
    }
    const folded = foldLog(text);
    this.#checkpoints = folded.checkpoints;
    if (folded.forgotten.length > 0) await this.#forget(folded.forgotten);
    return this.#checkpoints;
  }

  async #append(records: LogRecord[]): Promise<void> {
    await Deno.mkdir(`${this.#repo.root}/sessions`, { recursive: true, mode: 0o700 });
    await Deno.writeTextFile(this.#logPath, this.#encode(records), {
      append: true,
      mode: 0o600,
    });
  }

  #encode(records: readonly LogRecord[]): string {
    const redact = this.#settings.redact ?? ((l: string) => l);
    return records.map((r) => redact(encodeLogRecord(r))).join("");
  }

  /** Drops checkpoints' refs and rewrites the log without them. */
  async #forget(ids: readonly string[]): Promise<void> {
    const refs = ids.flatMap((id) => [
      { ref: this.#ref(id, "before"), sha: null },
      { ref: this.#ref(id, "after"), sha: null },
    ]);
    await this.#repo.ensure();
    await this.#repo.updateRefs(refs).catch(() => {});
    const tmp = `${this.#logPath}.tmp`;
    await Deno.mkdir(`${this.#repo.root}/sessions`, { recursive: true, mode: 0o700 });
    await Deno.writeTextFile(
      tmp,
      this.#encode(recordsOf(this.#checkpoints ?? [])),
      { mode: 0o600 },
    );
    await Deno.rename(tmp, this.#logPath);
  }

  /** Records that a turn began (every turn, so the conversation can be rewound to it). */
  turnStarted(turn: { id: string; prompt: string; start: number; compacted: number }) {
    return this.#serial(async () => {
      const list = await this.#load();
      const c: Checkpoint = {
        id: turn.id,
        kind: "turn",
        title: titleOf(turn.prompt),
        at: new Date().toISOString(),
        start: turn.start,
        compacted: turn.compacted,
        prompt: await sha256(turn.prompt),
      };
      list.push(c);
      const [record] = recordsOf([c]);
      await this.#append([record!]);
      if (list.length > MAX_CHECKPOINTS) {
        const over = list.splice(0, list.length - MAX_CHECKPOINTS);
        await this.#forget(over.map((o) => o.id));
      }
    });
  }

  /** A snapshot within the time bound, or the reason it was skipped. */
  async #snapshot(signal?: AbortSignal): Promise<Snapshotted> {
    const timeoutMs = this.#settings.timeoutMs ?? SNAPSHOT_TIMEOUT_MS;
    let timer: Timer | undefined;
    const deadline = new Promise<"late">((resolve) => {
      timer = after(timeoutMs, () => resolve("late"));
    });
    try {
      return await this.#snapshotBy(deadline, timeoutMs, signal);
    } finally {
      // The bound's timer keeps the process alive while pending: it ends with the answer.
      timer?.cancel();
    }
  }

  /** {@link #snapshot} against `deadline`, which says "late" after `timeoutMs`. */
  async #snapshotBy(
    deadline: Promise<"late">,
    timeoutMs: number,
    signal: AbortSignal | undefined,
  ): Promise<Snapshotted> {
    const late = `the snapshot took longer than ${timeoutMs / 1000} s`;
    if (this.#behind) {
      // An earlier snapshot that outlived its bound holds the index: wait for it, as long.
      if (await Promise.race([this.#behind.then(() => "done" as const), deadline]) === "late") {
        return { skipped: `${late}: an earlier one is still being taken` };
      }
    }
    // Past its time bound a snapshot goes on in the background (the index it fills makes the
    // next one quick) until BACKGROUND_SNAPSHOT_MS, a cancel of the turn, or close().
    const hard = AbortSignal.any([
      this.#closed.signal,
      AbortSignal.timeout(BACKGROUND_SNAPSHOT_MS),
      ...(signal ? [signal] : []),
    ]);
    const run = (async () => {
      await Deno.mkdir(this.#indexDir, { recursive: true, mode: 0o700 });
      await this.#seedIndex();
      const s = await this.#repo.snapshot(this.#indexFile, this.#settings, hard);
      if (s.kind === "taken") await this.#pointHere();
      return s;
    })();
    try {
      const s = await Promise.race([run, deadline]);
      if (s === "late") {
        this.#behind = run.then(() => {}, () => {}).finally(() => (this.#behind = undefined));
        return { skipped: `${late} (it goes on in the background, so the next one is quicker)` };
      }
      if (s.kind === "skipped") return { skipped: s.reason };
      return { tree: s.tree, oversized: s.oversized };
    } catch (e) {
      if (signal?.aborted) throw signal.reason;
      return { skipped: `the snapshot failed: ${errorText(e)}` };
    }
  }

  /** Settles once no snapshot runs in the background any more. */
  async settled(): Promise<void> {
    await this.#behind;
  }

  /** Stops a snapshot still running in the background (the connection is closing). */
  close(): void {
    this.#closed.abort();
  }

  /**
   * A session's first snapshot starts from the newest index another session of the workspace
   * left, so it too re-reads only what changed since.
   */
  async #seedIndex(): Promise<void> {
    try {
      await Deno.lstat(this.#indexFile);
      return;
    } catch {
      // none yet
    }
    const dir = this.#indexDir;
    const pointed = await readSmall(`${dir}/${NEWEST_INDEX}`, MAX_POINTER_BYTES).then(parsePointer);
    if (pointed && pointed.sid !== this.#sid) {
      if (await this.#repo.copyIndex(`${dir}/${pointed.sid}`, this.#indexFile, pointed)) return;
    }
    let newest: { path: string; mtime: number } | undefined;
    for await (const e of Deno.readDir(dir)) {
      if (!e.isFile || e.name.includes(".") || e.name.startsWith("restore-")) continue;
      const path = `${dir}/${e.name}`;
      const mtime = (await Deno.lstat(path).catch(() => undefined))?.mtime?.getTime() ?? 0;
      if (!newest || mtime > newest.mtime) newest = { path, mtime };
    }
    if (newest) await this.#repo.copyIndex(newest.path, this.#indexFile);
  }

  /**
   * Names this session's index, and its tree, in {@link NEWEST_INDEX} (written whole, then
   * renamed over the old one; best effort: without it the next session lists the directory).
   * A snapshot that left the index as this session last named it (a closing snapshot with
   * nothing new) writes nothing: a pointer another session wrote since may stand, as any recent
   * index serves (the next snapshot stages what differs).
   */
  async #pointHere(): Promise<void> {
    const known = await this.#repo.indexTree(this.#indexFile);
    if (!known || !INDEX_NAME.test(this.#sid)) return;
    const text = JSON.stringify({
      tree: known.tree,
      stamp: known.stamp,
      at: known.at,
      sid: this.#sid,
    });
    if (text === this.#pointed) return;
    const tmp = `${this.#indexDir}/${newestIndexTemp(this.#sid)}`;
    try {
      await Deno.writeTextFile(tmp, text, { mode: 0o600 });
      await Deno.rename(tmp, `${this.#indexDir}/${NEWEST_INDEX}`);
      this.#pointed = text;
    } catch {
      await Deno.remove(tmp).catch(() => {});
    }
  }

  #notices(oversized: readonly string[]): string[] {
    if (oversized.length === 0) return [];
    const shown = oversized.slice(0, 5).join(", ") +
      (oversized.length > 5 ? `, and ${oversized.length - 5} more` : "");
    return [
      `checkpoint: ${oversized.length} file${oversized.length === 1 ? "" : "s"} over ` +
      `checkpoint_max_file_bytes (${this.#settings.maxFileBytes}) not snapshotted: ${shown}`,
    ];
  }

  /**
   * A call that may change files was proposed, and nothing but the call itself will run before
   * it (no hook): the turn's "before" snapshot starts now, while the call is made ready (its
   * tool loaded, its command parsed, its rules asked), instead of after. Only
   * {@link beforeChange} with `ahead` takes it; any other call of the turn drops it.
   * Nothing is recorded until then. A no-op once the turn tried its "before" snapshot.
   */
  beforeAhead(turnId: string, signal?: AbortSignal): void {
    if (this.#tried.has(turnId) || this.#ahead !== undefined) return;
    const stop = new AbortController();
    const both = signal ? AbortSignal.any([signal, stop.signal]) : stop.signal;
    const done = this.#serial(() => this.#snapshot(both));
    done.catch(() => {}); // taken by beforeChange, or dropped
    this.#ahead = { turnId, stop, done };
  }

  /** Stops the "before" snapshot started ahead, unless it was taken; settles once it stopped. */
  dropAhead(turnId: string): Promise<void> {
    const ahead = this.#ahead;
    if (ahead?.turnId !== turnId) return Promise.resolve();
    this.#ahead = undefined;
    ahead.stop.abort();
    return ahead.done.then(() => {}, () => {});
  }

  /**
   * Before a call that may change files: the turn's "before" snapshot, once per turn. Resolves
   * with the notices to show (a skipped snapshot, files left out). With `ahead`, the snapshot
   * {@link beforeAhead} started for this call is the one taken; a stale one (the user was asked,
   * and time passed) is dropped and a new one taken.
   */
  beforeChange(turnId: string, signal?: AbortSignal, ahead = false): Promise<string[]> {
    // A closing snapshot taken early no longer closes the turn: stopped, and waited for, so that
    // it never reads the files while this call changes them.
    const early = this.#early?.turnId === turnId ? this.#dropEarly() : undefined;
    const started = ahead && this.#ahead?.turnId === turnId ? this.#ahead : undefined;
    if (started) this.#ahead = undefined;
    const dropped = started ? undefined : this.dropAhead(turnId);
    if (this.#tried.has(turnId)) {
      return Promise.all([early, dropped]).then(() => []);
    }
    this.#tried.add(turnId);
    return this.#serial(async () => {
      const list = await this.#load();
      const c = list.find((x) => x.id === turnId);
      if (!c) return [];
      const s = started ? await started.done : await this.#snapshot(signal);
      if ("skipped" in s) {
        c.skipped = s.skipped;
        await this.#append([{ t: "skip", id: turnId, reason: s.skipped }]);
        return [`checkpoint skipped: ${s.skipped}; this turn's file changes cannot be rewound`];
      }
      await this.#repo.updateRefs([{ ref: this.#ref(turnId, "before"), sha: s.tree }]);
      c.before = s.tree;
      await this.#append([{ t: "before", id: turnId, tree: s.tree }]);
      return this.#notices(s.oversized);
    });
  }

  /**
   * The turn's calls have ended and its next request goes out: its closing snapshot starts now,
   * beside the request, so the turn's end need not wait for it. {@link turnEnded} takes it when
   * no call that may change files ({@link beforeChange}) came after it, and takes a new one
   * otherwise. Only for a turn in which nothing else changes files (no hooks).
   */
  callsEnded(turnId: string): void {
    if (!this.#tried.has(turnId) || this.#early !== undefined) return;
    const stop = new AbortController();
    const done = this.#serial(async () => {
      const c = (await this.#load()).find((x) => x.id === turnId);
      if (!c || c.before === undefined) return [];
      return await this.#after(c, stop.signal);
    });
    done.catch(() => {}); // taken by turnEnded, or dropped
    this.#early = { turnId, stop, done };
  }

  /** Stops the early closing snapshot; settles once it no longer runs. */
  #dropEarly(): Promise<void> {
    const early = this.#early!;
    this.#early = undefined;
    early.stop.abort();
    return early.done.then(() => {}, () => {});
  }

  /** When the turn ends: its "after" snapshot, when it took a "before" one. */
  turnEnded(turnId: string): Promise<string[]> {
    void this.dropAhead(turnId); // its call never ran
    const early = this.#early;
    if (early?.turnId === turnId) {
      this.#early = undefined;
      return early.done;
    }
    return this.#serial(async () => {
      const list = await this.#load();
      const c = list.find((x) => x.id === turnId);
      if (!c || c.before === undefined) return [];
      return await this.#after(c);
    });
  }

  async #after(c: Checkpoint, signal?: AbortSignal): Promise<string[]> {
    const s = await this.#snapshot(signal);
    if ("skipped" in s) return [`checkpoint at the end of the turn skipped: ${s.skipped}`];
    const files = (await this.#repo.changedPaths(c.before!, s.tree)).length;
    await this.#repo.updateRefs([{ ref: this.#ref(c.id, "after"), sha: s.tree }]);
    c.after = s.tree;
    c.files = files;
    await this.#append([{ t: "after", id: c.id, tree: s.tree, files }]);
    // Two snapshots a turn add two packs; git merges them once there are more than 50, which
    // takes a moment, so only then and bounded.
    if (await this.#repo.packs() > PACKS_BEFORE_GC) {
      await this.#repo.compact(AbortSignal.timeout(GC_TIMEOUT_MS)).catch(() => {});
    }
    return [];
  }

  /**
   * The checkpoints, newest first. A turn cut short (scv killed) has no "after" snapshot: the
   * newest such turn gets one now, the workspace being what that turn left.
   */
  list(): Promise<ListedCheckpoint[]> {
    return this.#serial(async () => {
      const list = await this.#load();
      const withBefore = list.filter((c) => c.before !== undefined);
      const last = withBefore.at(-1);
      if (last && last.after === undefined) await this.#after(last);
      const out: ListedCheckpoint[] = [];
      for (let i = list.length - 1; i >= 0; i--) {
        const c = list[i]!;
        let files = c.files ?? 0;
        if (c.before !== undefined && c.after === undefined) {
          const next = list.slice(i + 1).find((n) => n.before !== undefined);
          if (next) files = (await this.#repo.changedPaths(c.before, next.before!)).length;
        }
        out.push({ turn_id: c.id, title: c.title, created_at: c.at, files_changed: files });
      }
      return out;
    });
  }

  /** The checkpoint `id`, if the session has it. */
  async find(id: string): Promise<Checkpoint | undefined> {
    return await this.#serial(async () => (await this.#load()).find((c) => c.id === id));
  }

  /**
   * Where the conversation is cut to drop checkpoint `id` and every later turn, with how many
   * turns that drops; a string says why it cannot be (compacted away, cleared).
   */
  async conversationCut(
    id: string,
    view: HistoryView,
  ): Promise<{ at: number; turns: string[] } | string> {
    const list = await this.#serial(() => this.#load());
    const i = list.findIndex((c) => c.id === id);
    if (i === -1) return `turn "${id}" has no checkpoint in this session`;
    const c = list[i]!;
    const at = c.start - (view.compactedMessages - c.compacted);
    const m = view.history[at];
    const fits = c.kind === "rewind"
      ? at >= 0 && at <= view.history.length
      : at >= 0 && m?.role === "user" && typeof m.content === "string" &&
        await sha256(m.content) === c.prompt;
    if (!fits) {
      return `turn "${id}" is no longer in the conversation (compacted, trimmed or cleared)`;
    }
    return { at, turns: list.slice(i).filter((x) => x.kind === "turn").map((x) => x.id) };
  }

  /** Forgets checkpoints dropped from the conversation, from `id` on. */
  dropFrom(id: string): Promise<void> {
    return this.#serial(async () => await this.#drop(await this.#load(), id));
  }

  async #drop(list: Checkpoint[], id: string): Promise<void> {
    const i = list.findIndex((c) => c.id === id);
    if (i === -1) return;
    const gone = list.splice(i);
    await this.#append([{ t: "drop", ids: gone.map((c) => c.id) }]);
    await this.#repo.updateRefs(gone.flatMap((g) => [
      { ref: this.#ref(g.id, "before"), sha: null },
      { ref: this.#ref(g.id, "after"), sha: null },
    ])).catch(() => {});
  }

  /**
   * Puts the files back as they were before checkpoint `id`. The workspace is snapshotted first,
   * and that becomes a checkpoint of its own (titled as the rewind), so the rewind can be undone.
   * With `dryRun`, only says what it would restore and remove. With `drop`, checkpoint `id` and
   * later ones leave the list too (the conversation was cut there; `start` and `compacted` say
   * where the rewind now stands in it). Rejects with a RangeError naming
   * why it cannot (no checkpoint, a skipped snapshot, the workspace cannot be snapshotted now).
   */
  rewindFiles(
    id: string,
    options: { dryRun?: boolean; drop?: boolean; start?: number; compacted?: number } = {},
  ): Promise<Restored> {
    return this.#serial(async () => {
      const list = await this.#load();
      const target = rewindTarget(list, id);
      if (target.kind === "error") throw new RangeError(target.message);
      if (target.kind === "unchanged") {
        if (options.drop && !options.dryRun) await this.#drop(list, id);
        return { restored: [], removed: [] };
      }
      const now = await this.#snapshot();
      if ("skipped" in now) {
        throw new RangeError(
          `cannot snapshot the workspace before rewinding (${now.skipped}); nothing was changed`,
        );
      }
      if (options.dryRun) return await this.#repo.plan(now.tree, target.tree);
      const done = await this.#repo.restore(now.tree, target.tree);
      const title = list.find((c) => c.id === id)?.title ?? id;
      if (options.drop) await this.#drop(list, id);
      if (done.restored.length + done.removed.length === 0) return done;
      const r: Checkpoint = {
        id: crypto.randomUUID(),
        kind: "rewind",
        title: titleOf(`Rewind to before "${title}"`),
        at: new Date().toISOString(),
        start: options.start ?? 0,
        compacted: options.compacted ?? 0,
        before: now.tree,
        after: target.tree,
        files: done.restored.length + done.removed.length,
      };
      await this.#repo.updateRefs([
        { ref: this.#ref(r.id, "before"), sha: now.tree },
        { ref: this.#ref(r.id, "after"), sha: target.tree },
      ]);
      list.push(r);
      await this.#append(recordsOf([r]));
      return done;
    });
  }

  /** Bytes the workspace's shadow repository takes on disk. */
  async diskBytes(): Promise<number> {
    return await treeBytes(this.#repo.root);
  }
}
