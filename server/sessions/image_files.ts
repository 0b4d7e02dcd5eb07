/**
 * Images of a recorded session, kept as files beside its record: `<id>.images/<sha256>.<ext>`,
 * mode `0600` in a `0700` directory, content-addressed so an image seen twice is stored once.
 * The record carries each image without its bytes (`data: ""`, `sha256` instead); resuming reads
 * them back. The directory is removed with the session, and a record rewrite removes the files
 * it no longer references.
 *
 * @module
 */
// node:crypto would boot Deno's Node layer for every run that records a session (~20 ms of a
// text turn); @noble/hashes is audited, synchronous like the appends, and loads in ~2 ms.
import { sha256 as sha256Of } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";

import { IMAGE_OMITTED, type ImagePart } from "../images/image_part.ts";
import type { ChatMessage } from "../provider/types.ts";
import type { SessionRecord } from "./records.ts";

/** An image as a record stores it: its bytes are in a file named by `sha256`. */
type StoredImage = ImagePart & { sha256?: string };

const ENDINGS: Readonly<Record<string, string>> = {
  "image/png": "png",
  "image/jpeg": "jpg",
  "image/gif": "gif",
  "image/webp": "webp",
};

/** The images directory of a session file (`<id>.jsonl` → `<id>.images`). */
export function imagesDirOf(sessionPath: string): string {
  return sessionPath.replace(/\.jsonl$/, "") + ".images";
}

function fileName(image: { media_type: string }, sha256: string): string {
  return `${sha256}.${ENDINGS[image.media_type] ?? "img"}`;
}

/** The messages a record carries, in order. */
function messagesOf(record: SessionRecord): ChatMessage[] {
  if (record.t === "msg") return [record.m];
  if (record.t === "rewrite") return record.prepend;
  if (record.t === "snapshot") return record.history.map((h) => h.m);
  return [];
}

function withImages(m: ChatMessage): m is Extract<ChatMessage, { images?: ImagePart[] }> {
  return (m.role === "user" || m.role === "tool") && (m.images?.length ?? 0) > 0;
}

/** What {@link storeImages} did. */
export interface Stored {
  /** The record to write: its images without their bytes. */
  record: SessionRecord;
  /** Bytes of image files newly written. */
  written: number;
}

/**
 * Writes the images of `record` (those not stored yet) into `dir`, and returns the record
 * without their bytes. Synchronous, as the file's appends are. A record without images is
 * returned as it is.
 */
export function storeImages(record: SessionRecord, dir: string): Stored {
  const messages = messagesOf(record);
  if (!messages.some(withImages)) return { record, written: 0 };
  let written = 0;
  const strip = (m: ChatMessage): ChatMessage => {
    if (!withImages(m)) return m;
    const images = m.images!.map((image): StoredImage => {
      const s = image as StoredImage;
      if (s.data === "" && s.sha256 !== undefined) return s;
      const bytes = Uint8Array.fromBase64(image.data);
      const sha256 = bytesToHex(sha256Of(bytes));
      Deno.mkdirSync(dir, { recursive: true, mode: 0o700 });
      try {
        Deno.writeFileSync(`${dir}/${fileName(image, sha256)}`, bytes, {
          createNew: true,
          mode: 0o600,
        });
        written += bytes.length;
      } catch (e) {
        if (!(e instanceof Deno.errors.AlreadyExists)) throw e;
      }
      return { ...image, data: "", sha256 };
    });
    return { ...m, images };
  };
  let out: SessionRecord;
  if (record.t === "msg") out = { ...record, m: strip(record.m) };
  else if (record.t === "rewrite") out = { ...record, prepend: record.prepend.map(strip) };
  else if (record.t === "snapshot") {
    out = { ...record, history: record.history.map((h) => ({ ...h, m: strip(h.m) })) };
  } else out = record;
  return { record: out, written };
}

/**
 * Removes the image files of `dir` that none of `records` references (after a rewrite of the
 * record). A missing directory is nothing to do.
 */
export function pruneImages(records: readonly SessionRecord[], dir: string): void {
  const kept = new Set<string>();
  for (const r of records) {
    for (const m of messagesOf(r)) {
      if (!withImages(m)) continue;
      for (const i of m.images as StoredImage[]) if (i.sha256) kept.add(fileName(i, i.sha256));
    }
  }
  let entries: Deno.DirEntry[];
  try {
    entries = [...Deno.readDirSync(dir)];
  } catch {
    return;
  }
  for (const e of entries) {
    if (e.isFile && !kept.has(e.name)) Deno.removeSync(`${dir}/${e.name}`);
  }
}

/**
 * The history with each stored image's bytes read back from `dir`. An image whose file is
 * gone, or whose bytes no longer have its hash, is left out with `[image omitted]` (the resumed
 * session says so by that text; nothing else of the message is lost). `maxImageBytes` bounds
 * each read.
 */
export async function loadImages(
  history: readonly ChatMessage[],
  dir: string,
  maxImageBytes: number,
): Promise<{ history: ChatMessage[]; missing: number }> {
  let missing = 0;
  const out: ChatMessage[] = [];
  for (const m of history) {
    if (!withImages(m)) {
      out.push(m);
      continue;
    }
    const images: ImagePart[] = [];
    let notes = "";
    for (const s of m.images as StoredImage[]) {
      const bytes = s.sha256 === undefined ? undefined : await readImage(dir, s, maxImageBytes);
      if (bytes === undefined) {
        missing++;
        notes += `\n${IMAGE_OMITTED}`;
        continue;
      }
      const { sha256: _, ...image } = s;
      images.push({ ...image, data: bytes.toBase64() });
    }
    const content = m.content + notes;
    const { images: _, ...rest } = m;
    out.push(images.length > 0 ? { ...rest, content, images } : { ...rest, content });
  }
  return { history: out, missing };
}

async function readImage(
  dir: string,
  image: StoredImage,
  maxImageBytes: number,
): Promise<Uint8Array | undefined> {
  const path = `${dir}/${fileName(image, image.sha256!)}`;
  try {
    const info = await Deno.stat(path);
    if (!info.isFile || info.size > maxImageBytes) return undefined;
    const bytes = await Deno.readFile(path);
    const sha256 = bytesToHex(sha256Of(bytes));
    return sha256 === image.sha256 ? bytes : undefined;
  } catch {
    return undefined;
  }
}
