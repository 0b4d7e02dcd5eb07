/**
 * The sessions index, `index.jsonl`: one summary line per session update, appended at every
 * turn end, the last line of a session winning. Listing reads this one small file instead of
 * every session file. It is only a cache: a torn or foreign line is skipped, an entry whose file
 * is gone is ignored, a file it does not know is summarized from the file itself, and the whole
 * index is rewritten (temp file, then rename) when it holds many superseded lines.
 *
 * @module
 */
import type { SessionSummary } from "../../protocol/schema.ts";
import type { Redactor } from "./redact.ts";

/** The index's file name inside the sessions directory. */
export const INDEX_FILE = "index.jsonl";
/** An index larger than this is not read (the files are summarized instead) and is rewritten. */
export const MAX_INDEX_BYTES = 64 * 1024 * 1024;

/** What the index knows of one session. */
export type IndexEntry = SessionSummary;

/** The index as read. */
export interface IndexRead {
  entries: Map<string, IndexEntry>;
  /** Lines read, superseded ones included. */
  lines: number;
  /** Whether the file was missing, unreadable, too large or partly torn. */
  damaged: boolean;
}

const encoder = new TextEncoder();

function isEntry(v: unknown): v is IndexEntry {
  if (typeof v !== "object" || v === null) return false;
  const e = v as Record<string, unknown>;
  return typeof e.session_id === "string" && typeof e.cwd === "string" &&
    typeof e.model === "string" && typeof e.created_at === "string" &&
    typeof e.updated_at === "string" && Number.isSafeInteger(e.turns) &&
    typeof e.title === "string";
}

/** Only the summary fields, in a fixed order. */
function entryLine(e: IndexEntry): string {
  const { session_id, cwd, model, created_at, updated_at, turns, title } = e;
  return JSON.stringify({ session_id, cwd, model, created_at, updated_at, turns, title }) + "\n";
}

/**
 * Parses index text; the last line of a session wins.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseIndex } from "./session_index.ts";
 * const e = { session_id: "a", cwd: "/w", model: "m", created_at: "t", updated_at: "t", turns: 1, title: "" };
 * const r = parseIndex(JSON.stringify(e) + "\n" + JSON.stringify({ ...e, turns: 2 }) + "\n{torn");
 * assert.equal(r.entries.get("a")?.turns, 2);
 * assert.equal(r.damaged, true);
 * ```
 */
export function parseIndex(text: string): IndexRead {
  const entries = new Map<string, IndexEntry>();
  let lines = 0;
  let damaged = false;
  for (const line of text.split("\n")) {
    if (line === "") continue;
    lines++;
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch {
      damaged = true;
      continue;
    }
    if (!isEntry(v)) {
      damaged = true;
      continue;
    }
    entries.set(v.session_id, v);
  }
  return { entries, lines, damaged };
}

/** The index of one sessions directory. */
export class SessionIndex {
  readonly path: string;
  #dir: string;
  #redactor: Redactor;

  /** An index in `dir`; nothing is read until asked. */
  constructor(dir: string, redactor: Redactor) {
    this.#dir = dir;
    this.path = `${dir}/${INDEX_FILE}`;
    this.#redactor = redactor;
  }

  /** Reads the index; a missing, unreadable or oversized one reads as empty and damaged. */
  async read(): Promise<IndexRead> {
    try {
      const info = await Deno.stat(this.path);
      if (info.size > MAX_INDEX_BYTES) return { entries: new Map(), lines: 0, damaged: true };
      return parseIndex(await Deno.readTextFile(this.path));
    } catch (e) {
      if (e instanceof Deno.errors.NotFound) return { entries: new Map(), lines: 0, damaged: true };
      throw e;
    }
  }

  /**
   * Appends one entry as one write. Concurrent scv processes may append at once: each line is
   * one `O_APPEND` write, so lines do not interleave.
   */
  append(entry: IndexEntry): void {
    const file = Deno.openSync(this.path, { create: true, append: true, mode: 0o600 });
    try {
      const data = encoder.encode(this.#redactor.line(entryLine(entry)));
      let written = 0;
      while (written < data.length) written += file.writeSync(data.subarray(written));
    } finally {
      file.close();
    }
  }

  /**
   * Replaces the index by one line per entry (temp file, then rename, so a reader sees the old
   * or the new one). A line another process appends meanwhile may be lost; its session is then
   * summarized from its file on the next listing.
   */
  async rewrite(entries: Iterable<IndexEntry>): Promise<void> {
    const tmp = `${this.#dir}/.${INDEX_FILE}.${crypto.randomUUID()}.tmp`;
    let text = "";
    for (const e of entries) text += this.#redactor.line(entryLine(e));
    try {
      await Deno.writeTextFile(tmp, text, { mode: 0o600 });
      await Deno.rename(tmp, this.path);
    } catch (e) {
      await Deno.remove(tmp).catch(() => {});
      throw e;
    }
  }
}
