/**
 * Records one live session: it watches the session's events and its canonical history, appends
 * each completed step (the prompt, an assistant message, a tool result) as it appears, a
 * compaction or trim as a rewrite, and closes every turn with a mark flushed by `fdatasync`
 * and an index update. Without a store it still keeps the tool metadata `session.history`
 * shows. A disk failure is logged once and stops the recording; the session goes on.
 *
 * @module
 */
import { errorText } from "../error_text.ts";
import type { ChatMessage } from "../provider/types.ts";
import type { SessionFile } from "./session_file.ts";
import type { RecordedUsage, SessionRecord, ToolMeta, TurnEnd, WaitingRecord } from "./records.ts";
import { FORMAT_VERSION, recordedUsage, titleOf } from "./records.ts";
import { COMPACTION_MARKER } from "../context/record.ts";
import type { SessionStore } from "./store.ts";
import { within } from "../timer.ts";

/** What a recorder reads from the session it records. */
export interface RecordedSessionView {
  readonly id: string;
  readonly cwd: string;
  readonly history: readonly ChatMessage[];
  readonly usage: RecordedUsage;
  readonly compactedMessages: number;
  /** The last seq handed out. */
  readonly lastSeq: number;
  readonly model: string;
  readonly approvalPolicy: string;
  /** Whether model and policy were chosen by `session.configure` (kept over the config's). */
  readonly configured?: boolean;
}

/** How a recorder is set up. */
export interface RecorderOptions {
  /** Undefined: nothing is written (persist_sessions off, or no usable state directory). */
  store?: SessionStore | undefined;
  /** A resumed session's open file; a new session's file is created at its first record. */
  file?: SessionFile | undefined;
  /** For a resumed session: what its file already holds. */
  resumed?: {
    createdAt: string;
    turns: number;
    title: string;
    toolMeta: Map<string, ToolMeta>;
    /** What its record says still waits (scv 0.3): kept through a rewrite until settled. */
    waiting?: WaitingRecord[];
  };
  /** The approval summary of a call, from the tool registry; undefined when unknown. */
  summarize?: (name: string, rawArguments: string) => string | undefined;
  /**
   * A file past this many bytes is rewritten at a turn end as one snapshot of the session
   * (append-only history of compactions and trims is dropped), so it stays bounded. Omitted:
   * {@link DEFAULT_MAX_FILE_BYTES}.
   */
  maxFileBytes?: number;
  log: (line: string) => void;
}

/**
 * How long a turn end waits for `fdatasync`: a disk that hangs (a stalled network file system)
 * must not hold the turn's terminal event forever. The flush goes on in the background.
 */
export const SYNC_WAIT_MS = 5000;

/** Flushes `file`, waiting at most {@link SYNC_WAIT_MS}; a slow flush is logged. */
async function syncBounded(file: SessionFile, log: (line: string) => void): Promise<void> {
  const sync = file.sync();
  const late = !await within(sync, SYNC_WAIT_MS);
  if (late) {
    log(`scv: flushing ${file.path} takes over ${SYNC_WAIT_MS} ms; the turn goes on`);
    sync.catch((e) => log(`scv: flushing ${file.path} failed: ${errorText(e)}`));
  }
}

/** The default bound of a session file before it is rewritten as a snapshot. */
export const DEFAULT_MAX_FILE_BYTES = 64 * 1024 * 1024;

/** The most pending tool results kept between `tool.completed` and the history push. */
const MAX_PENDING = 256;

/** Records one session; see the module doc. */
export class Recorder {
  /** Tool-message metadata by `tool_call_id`, for the messages in the history. */
  readonly toolMeta: Map<string, ToolMeta>;
  #o: RecorderOptions;
  #file: SessionFile | undefined;
  #failed = false;
  #createdAt: string;
  #turns: number;
  #title: string;
  /** The history array last seen, and a copy of what was recorded of it. */
  #base: readonly ChatMessage[] | undefined;
  #mirror: ChatMessage[] = [];
  /** Steers and queued prompts recorded as waiting and not settled yet, by request id. */
  #waiting = new Map<string, WaitingRecord>();
  /** From `tool.completed` and `approval.requested`, until the tool message is recorded. */
  #pending = new Map<string, { name?: string; success?: boolean; summary?: string }>();

  /** A recorder; `view` is read at every observation. */
  constructor(readonly view: RecordedSessionView, options: RecorderOptions) {
    this.#o = options;
    this.#file = options.file;
    this.#createdAt = options.resumed?.createdAt ?? options.store?.timestamp() ??
      new Date().toISOString();
    this.#turns = options.resumed?.turns ?? 0;
    this.#title = options.resumed?.title ?? "";
    this.toolMeta = options.resumed?.toolMeta ?? new Map();
    for (const w of options.resumed?.waiting ?? []) this.#waiting.set(w.request_id, w);
    if (options.resumed) {
      this.#base = view.history;
      this.#mirror = [...view.history];
    }
  }

  /** How large the file may grow before it is rewritten as a snapshot. */
  get maxFileBytes(): number {
    return this.#o.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  }

  /** Whether records reach a file. */
  get persistent(): boolean {
    return this.#o.store !== undefined && !this.#failed;
  }

  /** Turns ended so far (resumed ones included). */
  get turns(): number {
    return this.#turns;
  }

  /** The session file's path once it exists (hooks get it as `transcript_path`). */
  get path(): string | undefined {
    return this.#file?.path;
  }

  /**
   * Observes an event about to be sent: collects tool metadata and records any history the
   * session gained since the last observation. Synchronous and cheap when nothing changed.
   */
  observe(event: { type: string } & Record<string, unknown>): void {
    if (event.type === "approval.requested" || event.type === "tool.completed") {
      const id = event.call_id;
      if (typeof id === "string") {
        const p = this.#pending.get(id) ?? {};
        if (typeof event.name === "string") p.name = event.name;
        if (typeof event.summary === "string") p.summary = event.summary;
        if (typeof event.success === "boolean") p.success = event.success;
        if (this.#pending.size >= MAX_PENDING && !this.#pending.has(id)) {
          const oldest = this.#pending.keys().next().value;
          if (oldest !== undefined) this.#pending.delete(oldest);
        }
        this.#pending.set(id, p);
      }
    }
    this.sync();
  }

  /** Records the history's changes since the last sync. */
  sync(): void {
    // Until the store has started (its directory made, retention done) nothing is recorded;
    // the first sync after that catches up with the whole history.
    const store = this.#o.store;
    if (store && !store.started && !store.unusable && !this.#file) return;
    const h = this.view.history;
    if (h === this.#base && h.length === this.#mirror.length) return;
    const records: SessionRecord[] = [];
    // Nothing recorded yet (a new session), or only appended to: each new message is a record.
    const appended = this.#mirror.length === 0 ||
      (h === this.#base && h.length > this.#mirror.length);
    if (appended) {
      for (let i = this.#mirror.length; i < h.length; i++) records.push(this.#msg(h[i]!));
    } else {
      records.push(...this.#rewrite(h));
    }
    this.#base = h;
    this.#mirror = [...h];
    this.#write(records);
  }

  #msg(m: ChatMessage): SessionRecord {
    if (this.#title === "" && m.role === "user" && !m.content.startsWith(COMPACTION_MARKER)) {
      this.#title = titleOf(m.content);
    }
    const seq = this.view.lastSeq;
    if (m.role !== "tool") return { t: "msg", m, seq };
    const meta = this.#metaOf(m.tool_call_id);
    this.toolMeta.set(m.tool_call_id, meta);
    return { t: "msg", m, tool: meta, seq };
  }

  #metaOf(callId: string): ToolMeta {
    const pending = this.#pending.get(callId);
    this.#pending.delete(callId);
    const call = this.#findCall(callId);
    const name = pending?.name ?? call?.function.name ?? "tool";
    const meta: ToolMeta = { name, success: pending?.success ?? false };
    const summary = pending?.summary ??
      (call && this.#o.summarize ? this.#o.summarize(name, call.function.arguments) : undefined);
    if (summary !== undefined) meta.summary = summary;
    return meta;
  }

  /** The assistant tool call with this id, searched from the newest message back. */
  #findCall(callId: string) {
    const h = this.view.history;
    for (let i = h.length - 1; i >= 0; i--) {
      const m = h[i]!;
      if (m.role !== "assistant" || !m.tool_calls) continue;
      const call = m.tool_calls.find((c) => c.id === callId);
      if (call) return call;
    }
    return undefined;
  }

  /**
   * The records turning the mirrored history into `h`: the kept run of recorded messages
   * (compaction and trimming keep the same objects) becomes a `rewrite`, anything after it
   * `msg` records; a history sharing nothing with the mirror becomes a `snapshot`.
   */
  #rewrite(h: readonly ChatMessage[]): SessionRecord[] {
    const position = new Map<ChatMessage, number>();
    this.#mirror.forEach((m, i) => position.set(m, i));
    let j = 0;
    while (j < h.length && !position.has(h[j]!)) j++;
    if (j < h.length) {
      const i = position.get(h[j]!)!;
      const keptLength = this.#mirror.length - i;
      let same = j + keptLength <= h.length;
      for (let k = 0; same && k < keptLength; k++) same = h[j + k] === this.#mirror[i + k];
      if (same) {
        this.#pruneMeta(h);
        return [
          { t: "rewrite", drop: i, prepend: h.slice(0, j) },
          ...h.slice(j + keptLength).map((m) => this.#msg(m)),
        ];
      }
    }
    this.#pruneMeta(h);
    return [{
      t: "snapshot",
      history: h.map((m) => {
        if (m.role !== "tool") return { m };
        const meta = this.toolMeta.get(m.tool_call_id) ?? this.#metaOf(m.tool_call_id);
        this.toolMeta.set(m.tool_call_id, meta);
        return { m, tool: meta };
      }),
    }];
  }

  #pruneMeta(h: readonly ChatMessage[]): void {
    const ids = new Set(h.flatMap((m) => m.role === "tool" ? [m.tool_call_id] : []));
    for (const id of this.toolMeta.keys()) if (!ids.has(id)) this.toolMeta.delete(id);
  }

  #mark(end?: TurnEnd, seq?: number): SessionRecord {
    const v = this.view;
    return {
      t: "mark",
      seq: seq ?? v.lastSeq,
      usage: recordedUsage(v.usage),
      compacted: v.compactedMessages,
      ...(end ? { end } : {}),
      at: this.#o.store?.timestamp() ?? new Date().toISOString(),
    };
  }

  /** Appends records, creating the file first; a failure is logged once and ends recording. */
  #write(records: SessionRecord[]): void {
    const store = this.#o.store;
    if (!store || store.unusable || this.#failed || records.length === 0) return;
    try {
      if (!this.#file) {
        this.#file = store.create({
          session_id: this.view.id,
          cwd: this.view.cwd,
          model: this.view.model,
          approval_policy: this.view.approvalPolicy,
          created_at: this.#createdAt,
        });
        this.#index();
      }
      for (const r of records) this.#file.append(r);
    } catch (e) {
      this.#fail(e);
    }
  }

  #fail(e: unknown): void {
    this.#failed = true;
    this.#o.log(
      `scv: recording session ${this.view.id} stopped: ${errorText(e)}; ` +
        `the session goes on without being saved`,
    );
    this.#file?.close();
    this.#file = undefined;
  }

  #index(): void {
    this.#o.store?.updateIndex({
      session_id: this.view.id,
      cwd: this.view.cwd,
      model: this.view.model,
      created_at: this.#createdAt,
      updated_at: this.#o.store.timestamp(),
      turns: this.#turns,
      title: this.#title,
    });
  }

  /**
   * Closes a turn before its terminal event (numbered `seq`) is sent: the last history, a mark,
   * `fdatasync`, the index. The turn is on disk when the client hears it ended.
   */
  async endTurn(end: TurnEnd, seq: number): Promise<void> {
    await this.#o.store?.ready.catch(() => {});
    this.sync();
    this.#turns++;
    await this.#flush(this.#mark(end, seq));
  }

  /** Records a change outside turns (compaction, configuration) with a mark, then flushes. */
  async checkpoint(extra: SessionRecord[] = [], seq?: number): Promise<void> {
    await this.#o.store?.ready.catch(() => {});
    this.sync();
    this.#write(extra);
    await this.#flush(this.#mark(undefined, seq));
  }

  /** Records `session.clear` (the history, usage and compaction count start afresh). */
  async clear(seq: number): Promise<void> {
    this.#base = this.view.history;
    this.#mirror = [...this.view.history];
    this.toolMeta.clear();
    this.#pending.clear();
    if (!this.#file) return; // never recorded: nothing to clear on disk
    this.#write([{ t: "clear" }]);
    await this.#flush(this.#mark(undefined, seq));
  }

  async #flush(mark: SessionRecord): Promise<void> {
    // A session that never had a record has no file: nothing to flush.
    if (!this.#file) return;
    this.#write([mark]);
    const file = this.#file;
    if (!file) return;
    try {
      if (file.bytes > (this.#o.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES)) {
        // Already flushed by the rename's fdatasync.
        file.replace(this.#compacted(mark));
      } else {
        await syncBounded(file, this.#o.log);
      }
      this.#index();
    } catch (e) {
      this.#fail(e);
    }
  }

  /** The whole session as few records: header, configuration, one snapshot, the last mark. */
  #compacted(mark: SessionRecord): SessionRecord[] {
    const v = this.view;
    const history = v.history.map((m) => {
      if (m.role !== "tool") return { m };
      const meta = this.toolMeta.get(m.tool_call_id);
      return meta ? { m, tool: meta } : { m };
    });
    return [
      {
        t: "header",
        v: FORMAT_VERSION,
        session_id: v.id,
        cwd: v.cwd,
        model: v.model,
        approval_policy: v.approvalPolicy,
        created_at: this.#createdAt,
      },
      ...(v.configured
        ? [{ t: "config" as const, model: v.model, approval_policy: v.approvalPolicy }]
        : []),
      // The mark that follows counts its own turn.
      {
        t: "snapshot",
        history,
        title: this.#title,
        turns: this.#turns - (mark.t === "mark" && mark.end ? 1 : 0),
      },
      // What still waits stays recorded through the rewrite.
      ...[...this.#waiting.values()].map((w) => ({ t: "wait" as const, ...w })),
      mark,
    ];
  }

  /**
   * Records a steer or queued prompt as waiting (scv 0.3, the session inbox's observer) and
   * flushes it: once this resolves, a crash no longer loses it.
   */
  async waiting(
    entry: { requestId: string; prompt: string; kind: "steer" | "queue"; images?: string[] },
  ) {
    await this.#o.store?.ready.catch(() => {});
    const record: WaitingRecord = {
      request_id: entry.requestId,
      prompt: entry.prompt,
      kind: entry.kind,
      ...(entry.images?.length ? { images: entry.images } : {}),
    };
    this.#waiting.set(record.request_id, record);
    this.#write([{ t: "wait", ...record }]);
    const file = this.#file;
    if (!file) return;
    try {
      await syncBounded(file, this.#o.log);
    } catch (e) {
      this.#fail(e);
    }
  }

  /** Records that entries no longer wait (entered, started, taken back or handed back). */
  settled(requestIds: readonly string[]): void {
    const known = requestIds.filter((id) => this.#waiting.delete(id));
    if (known.length > 0) this.#write([{ t: "settle", ids: known }]);
  }

  /** Closes the file (and its lock); later changes are not recorded. */
  close(): void {
    this.#file?.close();
    this.#file = undefined;
    this.#failed = true;
  }
}
