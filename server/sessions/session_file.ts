/**
 * One session file, opened by its single writer: created `0600`, held under an exclusive
 * advisory lock (a second scv process cannot open it while the first has it; a crash releases
 * it), appended to one whole line per write, and flushed with `fdatasync` when asked (at turn
 * ends). Opening an existing file drops a torn last line first, so the next record starts on a
 * line of its own.
 *
 * @module
 */
import { imagesDirOf, pruneImages, storeImages } from "./image_files.ts";
import { encodeRecord, type SessionRecord } from "./records.ts";
import type { Redactor } from "./redact.ts";

/** The largest session file scv reads back; a bigger one is refused, not loaded. */
export const MAX_SESSION_FILE_BYTES = 256 * 1024 * 1024;

/** Another process holds the session file. */
export class SessionBusyError extends Error {
  /** Builds the error; the message is user-facing. */
  constructor(message: string) {
    super(message);
    this.name = "SessionBusyError";
  }
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** An open session file; only its creator or opener writes it. */
export class SessionFile {
  readonly path: string;
  #file: Deno.FsFile;
  #redactor: Redactor;
  #bytes: number;
  #closed = false;

  private constructor(path: string, file: Deno.FsFile, redactor: Redactor, bytes: number) {
    this.path = path;
    this.#file = file;
    this.#redactor = redactor;
    this.#bytes = bytes;
  }

  /** The file's size as written so far. */
  get bytes(): number {
    return this.#bytes;
  }

  /**
   * Creates a new file (never replacing one) with its first record, locked, mode 0600.
   * Synchronous (one small open and write), so a recorder can start a file from an event.
   */
  static create(path: string, header: SessionRecord, redactor: Redactor): SessionFile {
    const file = Deno.openSync(path, { createNew: true, write: true, append: true, mode: 0o600 });
    try {
      if (!file.tryLockSync(true)) throw new SessionBusyError(`${path} is locked`);
      const f = new SessionFile(path, file, redactor, 0);
      f.append(header);
      return f;
    } catch (e) {
      file.close();
      throw e;
    }
  }

  /**
   * Opens an existing file for appending under the lock and returns it with its text. A torn
   * last line (no newline) is cut off the file (it is reported once, by this open), and stays
   * in the returned text so replaying it counts it.
   * Throws `Deno.errors.NotFound`, {@link SessionBusyError} or a `RangeError` (too large).
   */
  static async open(
    path: string,
    redactor: Redactor,
  ): Promise<{ file: SessionFile; text: string; torn: boolean }> {
    const file = await Deno.open(path, { read: true, write: true });
    try {
      if (!await file.tryLock(true)) {
        throw new SessionBusyError("the session is open in another scv process");
      }
      const size = (await file.stat()).size;
      if (size > MAX_SESSION_FILE_BYTES) {
        throw new RangeError(
          `the session file is ${size} bytes, more than the ${MAX_SESSION_FILE_BYTES} scv reads`,
        );
      }
      const buffer = new Uint8Array(size);
      let read = 0;
      while (read < size) {
        const n = await file.read(buffer.subarray(read));
        if (n === null) break;
        read += n;
      }
      const bytes = buffer.subarray(0, read);
      const lastNewline = bytes.lastIndexOf(0x0a);
      const keep = lastNewline + 1;
      const torn = keep < bytes.length;
      if (torn) await file.truncate(keep);
      await file.seek(keep, Deno.SeekMode.Start);
      return {
        file: new SessionFile(path, file, redactor, keep),
        // The torn tail stays in the text, so replaying it reports the tail.
        text: decoder.decode(bytes),
        torn,
      };
    } catch (e) {
      file.close();
      throw e;
    }
  }

  /**
   * Appends one record as one write (page cache: survives the process being killed, not yet a
   * power loss). Synchronous so records land in order without a queue.
   */
  append(record: SessionRecord): void {
    if (this.#closed) throw new TypeError(`Cannot append to ${this.path}: the file is closed`);
    // Images go to files of their own first, so the record never names a file not written.
    const stored = storeImages(record, imagesDirOf(this.path));
    const data = encoder.encode(this.#redactor.line(encodeRecord(stored.record)));
    let written = 0;
    while (written < data.length) written += this.#file.writeSync(data.subarray(written));
    // Image files count toward the size that makes the recorder rewrite (and prune) the file.
    this.#bytes += data.length + stored.written;
  }

  /** Flushes what was appended to the disk (`fdatasync`). */
  async sync(): Promise<void> {
    if (!this.#closed) await this.#file.syncData();
  }

  /**
   * Replaces the file's content by `records` (a compacted form of it): they are written to a
   * locked temporary file in the same directory, flushed, and renamed over the file, so a crash
   * leaves the old file or the new one, whole. The lock moves to the new file.
   */
  replace(records: SessionRecord[]): void {
    if (this.#closed) throw new TypeError(`Cannot rewrite ${this.path}: the file is closed`);
    const tmp = `${this.path}.${crypto.randomUUID().slice(0, 8)}.tmp`;
    const next = Deno.openSync(tmp, { createNew: true, write: true, mode: 0o600 });
    try {
      if (!next.tryLockSync(true)) throw new SessionBusyError(`${tmp} is locked`);
      let bytes = 0;
      const dir = imagesDirOf(this.path);
      const kept: SessionRecord[] = [];
      for (const r of records) {
        const stored = storeImages(r, dir);
        kept.push(stored.record);
        const data = encoder.encode(this.#redactor.line(encodeRecord(stored.record)));
        let written = 0;
        while (written < data.length) written += next.writeSync(data.subarray(written));
        bytes += data.length;
      }
      next.syncDataSync();
      Deno.renameSync(tmp, this.path);
      this.#file.close();
      this.#file = next;
      this.#bytes = bytes;
      pruneImages(kept, dir);
    } catch (e) {
      next.close();
      try {
        Deno.removeSync(tmp);
      } catch {
        // Renamed already, or never made.
      }
      throw e;
    }
  }

  /** Closes the file, which releases the lock. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#file.close();
  }
}
