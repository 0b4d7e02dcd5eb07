/**
 * The recorded sessions of one state directory: creating a session's file, finding and opening
 * one to resume (by id or the newest for a cwd), listing them from the index, and enforcing
 * `session_retention_days` and `max_sessions` once at startup (the deletions are logged).
 *
 * The directory is `0700`, every file in it `0600`.
 *
 * @module
 */
import { errorText } from "../error_text.ts";
import { DEFAULT_MAX_IMAGE_BYTES } from "../images/image_part.ts";
import { imagesDirOf, loadImages } from "./image_files.ts";
import { isSessionId, sessionFileName, sessionIdOfFile } from "./paths.ts";
import {
  FORMAT_VERSION,
  type HeaderRecord,
  replay,
  type ReplayedSession,
  SessionFormatError,
} from "./records.ts";
import { Redactor } from "./redact.ts";
import { MAX_SESSION_FILE_BYTES, SessionBusyError, SessionFile } from "./session_file.ts";
import { type IndexEntry, SessionIndex } from "./session_index.ts";

/** What a store is opened with. */
export interface StoreOptions {
  /** The sessions directory (created `0700` when missing). */
  dir: string;
  /** Values never written to disk (the provider key, `provider_headers` values). */
  secrets: readonly string[];
  /** Sessions not updated for this many days are deleted at startup. */
  retentionDays: number;
  /** Beyond this many sessions, the oldest are deleted at startup. */
  maxSessions: number;
  /** Diagnostics (deletions, damaged files); never receives secrets. */
  log: (line: string) => void;
  /** The clock, for tests of retention. */
  now?: () => number;
  /** Told which sessions retention deleted (their checkpoints go with them). */
  onDeleted?: (ids: readonly string[]) => Promise<void>;
  /** scv 0.3: the largest stored image read back on resume; omitted: 5 MiB. */
  maxImageBytes?: number;
}

/** Why a session cannot be resumed, with the protocol error code it maps to. */
export class SessionLookupError extends Error {
  /** `session_not_found` or `invalid_request`. */
  readonly code: "session_not_found" | "invalid_request";
  /** Builds the error; the message is user-facing. */
  constructor(code: "session_not_found" | "invalid_request", message: string) {
    super(message);
    this.name = "SessionLookupError";
    this.code = code;
  }
}

/** A session opened for resuming: its state and its file, locked for this process. */
export interface LoadedSession {
  state: ReplayedSession;
  file: SessionFile;
}

/** A `list` result. */
export interface SessionList {
  /** Newest first (by `updated_at`), at most the limit. */
  sessions: IndexEntry[];
  /** How many sessions matched before the limit. */
  matched: number;
}

const DAY_MS = 24 * 60 * 60 * 1000;
/** Index appends by one process between two rewrites of the index. */
export const INDEX_COMPACT_EVERY = 1000;
/** Ids named in the retention log line, at most. */
const LOGGED_IDS = 5;

/** Newest first; ties by id so the order is stable. */
function newestFirst(a: IndexEntry, b: IndexEntry): number {
  return a.updated_at < b.updated_at
    ? 1
    : a.updated_at > b.updated_at
    ? -1
    : a.session_id < b.session_id
    ? -1
    : 1;
}

/** The summary of a replayed session. */
export function summaryOf(s: ReplayedSession): IndexEntry {
  return {
    session_id: s.header.session_id,
    cwd: s.header.cwd,
    model: s.model,
    created_at: s.header.created_at,
    updated_at: s.updatedAt,
    turns: s.turns,
    title: s.title,
  };
}

/** One sessions directory. */
export class SessionStore {
  readonly dir: string;
  readonly redactor: Redactor;
  /** Settles once the directory exists and retention ran; rejects when the directory fails. */
  readonly ready: Promise<void>;
  #o: StoreOptions;
  #index: SessionIndex;
  #appends = 0;
  #unusable = false;
  #started = false;
  #compacting: Promise<void> | undefined;

  /** Opens the store; startup work (directory, retention, index) starts at once. */
  constructor(options: StoreOptions) {
    this.#o = options;
    this.dir = options.dir;
    this.redactor = new Redactor(options.secrets);
    this.#index = new SessionIndex(options.dir, this.redactor);
    this.ready = this.#startup();
    // Observed by every use; a store that could not start records nothing (said once, by the
    // opener's log) instead of failing every session's first write.
    this.ready.then(() => (this.#started = true), () => (this.#unusable = true));
  }

  #now(): number {
    return this.#o.now?.() ?? Date.now();
  }

  /** Whether startup (directory, retention) is done, so files can be created. */
  get started(): boolean {
    return this.#started;
  }

  /** Whether the directory could not be set up: nothing can be recorded in it. */
  get unusable(): boolean {
    return this.#unusable;
  }

  /** The current time as recorded. */
  timestamp(): string {
    return new Date(this.#now()).toISOString();
  }

  async #startup(): Promise<void> {
    await Deno.mkdir(this.dir, { recursive: true, mode: 0o700 });
    // mkdir's mode is cut by the umask, and an existing directory keeps its own.
    await Deno.chmod(this.dir, 0o700);
    const { summaries, rewriteIndex } = await this.#reconcile();
    const cutoff = this.#now() - this.#o.retentionDays * DAY_MS;
    const byAge: IndexEntry[] = [];
    const kept: IndexEntry[] = [];
    for (const s of summaries.sort(newestFirst)) {
      const t = Date.parse(s.updated_at);
      if (Number.isFinite(t) && t < cutoff) byAge.push(s);
      else kept.push(s);
    }
    const byCount = kept.splice(this.#o.maxSessions);
    const deleted: string[] = [];
    const busy: IndexEntry[] = [];
    for (const s of [...byAge, ...byCount]) {
      if (await this.#delete(s.session_id)) deleted.push(s.session_id);
      else busy.push(s);
    }
    if (deleted.length > 0) {
      const ageCount = byAge.filter((s) => deleted.includes(s.session_id)).length;
      const ids = deleted.slice(0, LOGGED_IDS).join(", ") +
        (deleted.length > LOGGED_IDS ? `, and ${deleted.length - LOGGED_IDS} more` : "");
      this.#o.log(
        `scv: deleted ${deleted.length} recorded session${deleted.length === 1 ? "" : "s"} ` +
          `(${ageCount} not updated for ${this.#o.retentionDays} days ` +
          `(session_retention_days), ${deleted.length - ageCount} beyond max_sessions ` +
          `${this.#o.maxSessions}): ${ids}`,
      );
    }
    if (deleted.length > 0) await this.#o.onDeleted?.(deleted);
    if (deleted.length > 0 || rewriteIndex) {
      await this.#index.rewrite([...kept, ...busy].sort(newestFirst));
    }
  }

  /** Removes a session's file unless another process holds it; true when removed. */
  async #delete(id: string): Promise<boolean> {
    const path = this.#path(id);
    let file: Deno.FsFile;
    try {
      file = await Deno.open(path, { read: true });
    } catch (e) {
      if (e instanceof Deno.errors.NotFound) return true;
      throw e;
    }
    try {
      if (!await file.tryLock(true)) return false;
      await Deno.remove(path);
      await Deno.remove(imagesDirOf(path), { recursive: true }).catch(() => {});
      return true;
    } finally {
      file.close();
    }
  }

  #path(id: string): string {
    return `${this.dir}/${sessionFileName(id)}`;
  }

  /**
   * Every recorded session's summary: the index's entries for files that exist, and for files
   * it does not know, a summary read from the file (then appended to the index). Reads one
   * directory listing and the index, not the session files, when the index is current.
   */
  async #reconcile(): Promise<{ summaries: IndexEntry[]; rewriteIndex: boolean }> {
    const index = await this.#index.read();
    const ids: string[] = [];
    for await (const entry of Deno.readDir(this.dir)) {
      const id = entry.isFile ? sessionIdOfFile(entry.name) : undefined;
      if (id !== undefined) ids.push(id);
    }
    const summaries: IndexEntry[] = [];
    let unindexed = 0;
    for (const id of ids) {
      const known = index.entries.get(id);
      if (known) {
        summaries.push(known);
        continue;
      }
      const summary = await this.#summarize(id);
      if (!summary) continue;
      summaries.push(summary);
      unindexed++;
      if (!index.damaged) this.#index.append(summary);
    }
    // Superseded lines, entries for deleted files, damage: a rewrite puts the index right.
    const rewriteIndex = index.damaged || index.lines > 2 * summaries.length + 16 ||
      index.entries.size !== summaries.length - unindexed;
    return { summaries, rewriteIndex };
  }

  /**
   * A session's summary read from its file; undefined (logged) when it cannot be read. A file
   * larger than a session file can be is never read whole (every listing would read it again).
   */
  async #summarize(id: string): Promise<IndexEntry | undefined> {
    try {
      const { size } = await Deno.stat(this.#path(id));
      if (size > MAX_SESSION_FILE_BYTES) {
        throw new RangeError(
          `the file is ${size} bytes, more than the ${MAX_SESSION_FILE_BYTES} scv reads`,
        );
      }
      const text = await Deno.readTextFile(this.#path(id));
      return summaryOf(replay(text));
    } catch (e) {
      if (e instanceof Deno.errors.NotFound) return undefined;
      this.#o.log(`scv: skipping recorded session ${id}: ${errorText(e)}`);
      return undefined;
    }
  }

  /**
   * Recorded sessions, newest first, optionally only those of one canonical `cwd`.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { SessionStore } from "./store.ts";
   * const dir = await Deno.makeTempDir();
   * const store = new SessionStore({ dir, secrets: [], retentionDays: 30, maxSessions: 10, log: () => {} });
   * assert.equal((await store.list({ limit: 5 })).sessions.length, 0);
   * await Deno.remove(dir, { recursive: true });
   * ```
   */
  async list(options: { cwd?: string | undefined; limit: number }): Promise<SessionList> {
    await this.ready;
    const { summaries } = await this.#reconcile();
    const matching = options.cwd === undefined
      ? summaries
      : summaries.filter((s) => s.cwd === options.cwd);
    matching.sort(newestFirst);
    return { sessions: matching.slice(0, options.limit), matched: matching.length };
  }

  /**
   * Starts the file of a new session (header first). Synchronous, see
   * {@link SessionFile.create}; throws when the directory is not ready or not writable.
   */
  create(header: Omit<HeaderRecord, "t" | "v">): SessionFile {
    const record: HeaderRecord = { t: "header", v: FORMAT_VERSION, ...header };
    return SessionFile.create(this.#path(header.session_id), record, this.redactor);
  }

  /**
   * Records a session's current summary in the index. Every {@link INDEX_COMPACT_EVERY}
   * appends by this process, the index is rewritten with one line per session (in the
   * background), so a long-running process keeps it small.
   */
  updateIndex(entry: IndexEntry): void {
    this.#index.append(entry);
    if (++this.#appends % INDEX_COMPACT_EVERY === 0 && !this.#compacting) {
      this.#compacting = this.#compactIndex()
        .catch((e) => this.#o.log(`scv: cannot rewrite the sessions index: ${errorText(e)}`))
        .finally(() => (this.#compacting = undefined));
    }
  }

  async #compactIndex(): Promise<void> {
    const { summaries } = await this.#reconcile();
    await this.#index.rewrite(summaries.sort(newestFirst));
  }

  /** Settles once a background index rewrite (if any) is done; for tests and shutdown. */
  async settled(): Promise<void> {
    await this.#compacting;
  }

  /**
   * Opens a recorded session for resuming in `cwd` (canonical): `resume` is its id or `"last"`.
   * Throws {@link SessionLookupError}: `session_not_found` for an unknown id (or no session of
   * this cwd for `last`), `invalid_request` for another cwd's session, a session another
   * process has open, or a file that cannot be read.
   */
  async load(resume: string, cwd: string): Promise<LoadedSession> {
    await this.ready;
    let id = resume;
    if (resume === "last") {
      const newest = (await this.list({ cwd, limit: 1 })).sessions[0];
      if (!newest) {
        throw new SessionLookupError(
          "session_not_found",
          `no recorded session for ${JSON.stringify(cwd)} to resume`,
        );
      }
      id = newest.session_id;
    }
    if (!isSessionId(id)) {
      throw new SessionLookupError(
        "session_not_found",
        `no recorded session ${JSON.stringify(id.slice(0, 100))}`,
      );
    }
    let opened;
    try {
      opened = await SessionFile.open(this.#path(id), this.redactor);
    } catch (e) {
      if (e instanceof Deno.errors.NotFound) {
        throw new SessionLookupError("session_not_found", `no recorded session "${id}"`);
      }
      if (e instanceof SessionBusyError) {
        throw new SessionLookupError(
          "invalid_request",
          `session "${id}" is open in another scv process or connection; one at a time may ` +
            `resume it`,
        );
      }
      throw new SessionLookupError(
        "invalid_request",
        `cannot open recorded session "${id}": ${errorText(e)}`,
      );
    }
    let state: ReplayedSession;
    try {
      state = replay(opened.text);
    } catch (e) {
      opened.file.close();
      const why = e instanceof SessionFormatError ? e.message : errorText(e);
      throw new SessionLookupError("invalid_request", `cannot resume session "${id}": ${why}`);
    }
    if (state.header.session_id !== id) {
      opened.file.close();
      throw new SessionLookupError(
        "invalid_request",
        `cannot resume session "${id}": its file records session "${state.header.session_id}"`,
      );
    }
    if (state.header.cwd !== cwd) {
      opened.file.close();
      throw new SessionLookupError(
        "invalid_request",
        `session "${id}" was recorded for ${JSON.stringify(state.header.cwd)}, not ` +
          `${JSON.stringify(cwd)}; resume it from that directory`,
      );
    }
    try {
      const images = await loadImages(
        state.history,
        imagesDirOf(this.#path(id)),
        this.#o.maxImageBytes ?? DEFAULT_MAX_IMAGE_BYTES,
      );
      state.history = images.history;
      if (images.missing > 0) {
        this.#o.log(
          `scv: session ${id}: ${images.missing} stored image(s) missing or damaged, left out`,
        );
      }
    } catch (e) {
      opened.file.close();
      throw new SessionLookupError(
        "invalid_request",
        `cannot resume session "${id}": ${errorText(e)}`,
      );
    }
    if (state.badLines > 0) {
      this.#o.log(
        `scv: session ${id}: ${state.badLines} damaged record${
          state.badLines === 1 ? "" : "s"
        } skipped${state.tornTail ? " (the last one torn by an interrupted write)" : ""}`,
      );
    }
    return { state, file: opened.file };
  }
}
