/**
 * A compact `o200k_base` token counter. gpt-tokenizer's encoding keeps 200,000 rank strings, a
 * Map over them and the 2 MB module that declares them alive for good: ~60 MB of a server's
 * memory. Here the ranks live in three typed arrays (~5 MB): every token's bytes back to back, their
 * offsets, and an open-addressing hash table from bytes to rank. A worker builds them from
 * gpt-tokenizer's rank list and hands them over, so that list is never loaded on the main thread
 * and goes away with the worker. Counting is byte-level BPE over the o200k pre-tokenizer's pieces,
 * the algorithm of tiktoken; tests check it against gpt-tokenizer.
 *
 * @module
 */
import { O200K_TOKEN_SPLIT_REGEX } from "gpt-tokenizer/encodingParams/constants";

/** The rank tables a worker builds (see `o200k_worker.ts`); plain transferable arrays. */
export interface O200kTables {
  /** Every token's bytes, back to back, in rank order. */
  bytes: Uint8Array<ArrayBuffer>;
  /** Token `r` is `bytes[offsets[r]..offsets[r + 1]]`; an unused rank is empty. */
  offsets: Uint32Array<ArrayBuffer>;
  /** Open addressing, linear probing: rank + 1 at a slot, 0 where empty; a power-of-two size. */
  slots: Int32Array<ArrayBuffer>;
}

/** FNV-1a over `bytes[start..end)`; the hash of the tables' slots. */
export function hashBytes(bytes: Uint8Array, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193);
  return h >>> 0;
}

/**
 * Builds the tables from gpt-tokenizer's rank list (index = rank; a string, or the bytes of a
 * token that is not valid UTF-8 on its own; holes for unused ranks).
 */
export function buildO200kTables(
  ranks: readonly (string | readonly number[] | undefined)[],
): O200kTables {
  const encoder = new TextEncoder();
  const offsets = new Uint32Array(ranks.length + 1);
  let bytes = new Uint8Array(2 * 1024 * 1024);
  let length = 0;
  for (let r = 0; r < ranks.length; r++) {
    const token = ranks[r];
    offsets[r] = length;
    if (token === undefined) continue;
    const need = length + (typeof token === "string" ? token.length * 3 : token.length);
    if (need > bytes.length) {
      const next = new Uint8Array(Math.max(need, bytes.length * 2));
      next.set(bytes.subarray(0, length));
      bytes = next;
    }
    if (typeof token === "string") {
      length += encoder.encodeInto(token, bytes.subarray(length)).written;
    } else {
      bytes.set(token, length);
      length += token.length;
    }
  }
  offsets[ranks.length] = length;
  const kept = bytes.slice(0, length);
  return { bytes: kept, offsets, slots: slotsOf(kept, offsets) };
}

/** The hash table from each token's bytes to its rank (+ 1), over `bytes` and `offsets`. */
function slotsOf(bytes: Uint8Array, offsets: Uint32Array): Int32Array<ArrayBuffer> {
  const ranks = offsets.length - 1;
  let size = 1;
  while (size < ranks * 2) size *= 2;
  const slots = new Int32Array(size);
  const mask = size - 1;
  for (let r = 0; r < ranks; r++) {
    const start = offsets[r]!;
    const end = offsets[r + 1]!;
    if (start === end) continue;
    let slot = hashBytes(bytes, start, end) & mask;
    while (slots[slot] !== 0) slot = (slot + 1) & mask;
    slots[slot] = r + 1;
  }
  return slots;
}

/**
 * The tables as o200k_tables.gz holds them before gzip: the two lengths (little-endian u32),
 * the token bytes, then the offsets (little-endian u32). The slots are rebuilt on load.
 */
export function packTables(t: O200kTables): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(8 + t.bytes.length + t.offsets.length * 4);
  const view = new DataView(out.buffer);
  view.setUint32(0, t.bytes.length, true);
  view.setUint32(4, t.offsets.length, true);
  out.set(t.bytes, 8);
  for (let i = 0; i < t.offsets.length; i++) {
    view.setUint32(8 + t.bytes.length + i * 4, t.offsets[i]!, true);
  }
  return out;
}

/** The tables from {@link packTables}' bytes; throws on a torn or inconsistent file. */
export function unpackTables(packed: Uint8Array): O200kTables {
  if (packed.length < 8) throw new Error("the o200k tables are torn (no header)");
  const view = new DataView(packed.buffer, packed.byteOffset, packed.byteLength);
  const n = view.getUint32(0, true);
  const count = view.getUint32(4, true);
  if (count < 1 || packed.length !== 8 + n + count * 4) {
    throw new Error(`the o200k tables are torn (${packed.length} bytes for ${n} and ${count})`);
  }
  const bytes = packed.slice(8, 8 + n);
  const offsets = new Uint32Array(count);
  let last = 0;
  for (let i = 0; i < count; i++) {
    const at = view.getUint32(8 + n + i * 4, true);
    if (at < last || at > n) throw new Error(`the o200k tables are torn (offset ${i})`);
    offsets[i] = last = at;
  }
  if (offsets[count - 1] !== n) throw new Error("the o200k tables are torn (last offset)");
  return { bytes, offsets, slots: slotsOf(bytes, offsets) };
}

/** The gzip of `data`, and its inverse: the web's own streams, no npm package. */
export async function gzip(data: Uint8Array<ArrayBuffer>): Promise<Uint8Array<ArrayBuffer>> {
  const s = new Blob([data]).stream().pipeThrough(new CompressionStream("gzip"));
  return new Uint8Array(await new Response(s).arrayBuffer());
}

/** See {@link gzip}. */
export async function gunzip(data: Uint8Array<ArrayBuffer>): Promise<Uint8Array<ArrayBuffer>> {
  const s = new Blob([data]).stream().pipeThrough(new DecompressionStream("gzip"));
  return new Uint8Array(await new Response(s).arrayBuffer());
}

/**
 * Counts `o200k_base` tokens with tables from {@link buildO200kTables}. Special-token text such
 * as `<|endoftext|>` is counted as ordinary text.
 */
export class O200kCounter {
  #bytes: Uint8Array;
  #offsets: Uint32Array;
  #slots: Int32Array;
  #mask: number;
  #encoder = new TextEncoder();
  #scratch = new Uint8Array(4096);
  // Per piece being merged: part starts and the rank of each part with its right neighbour.
  #starts: number[] = [];
  #ranks: number[] = [];

  /** Wraps the tables (not copied). */
  constructor(tables: O200kTables) {
    this.#bytes = tables.bytes;
    this.#offsets = tables.offsets;
    this.#slots = tables.slots;
    this.#mask = tables.slots.length - 1;
  }

  /** The rank of `piece[start..end)`, or -1 when those bytes are no token. */
  #rank(piece: Uint8Array, start: number, end: number): number {
    const table = this.#bytes;
    const n = end - start;
    let slot = hashBytes(piece, start, end) & this.#mask;
    while (true) {
      const entry = this.#slots[slot]!;
      if (entry === 0) return -1;
      const r = entry - 1;
      const at = this.#offsets[r]!;
      if (this.#offsets[r + 1]! - at === n) {
        let i = 0;
        while (i < n && table[at + i] === piece[start + i]) i++;
        if (i === n) return r;
      }
      slot = (slot + 1) & this.#mask;
    }
  }

  /** Tokens of one pre-tokenizer piece: byte-pair merges, lowest rank first. */
  #countPiece(text: string): number {
    if (this.#scratch.length < text.length * 3) this.#scratch = new Uint8Array(text.length * 3);
    const piece = this.#scratch;
    const length = this.#encoder.encodeInto(text, piece).written;
    if (length === 0) return 0;
    if (length === 1 || this.#rank(piece, 0, length) !== -1) return 1;
    const starts = this.#starts;
    const ranks = this.#ranks;
    starts.length = 0;
    ranks.length = 0;
    for (let i = 0; i <= length; i++) {
      starts.push(i);
      ranks.push(i + 2 <= length ? this.#rank(piece, i, i + 2) : -1);
    }
    while (starts.length > 2) {
      let best = -1;
      let bestRank = Infinity;
      for (let i = 0; i < ranks.length - 1; i++) {
        const r = ranks[i]!;
        if (r !== -1 && r < bestRank) {
          bestRank = r;
          best = i;
        }
      }
      if (best === -1) break;
      starts.splice(best + 1, 1);
      ranks.splice(best, 1);
      const pairEnd = starts[best + 2];
      ranks[best] = pairEnd === undefined ? -1 : this.#rank(piece, starts[best]!, pairEnd);
      if (best > 0) ranks[best - 1] = this.#rank(piece, starts[best - 1]!, starts[best + 1]!);
    }
    return starts.length - 1;
  }

  /** The number of `o200k_base` tokens of `text`. */
  count(text: string): number {
    let total = 0;
    for (const [piece] of text.matchAll(O200K_TOKEN_SPLIT_REGEX)) total += this.#countPiece(piece);
    return total;
  }
}

/** The tables' file, made by `deno task o200k-tables` (server/context/o200k_generate.ts). */
export const O200K_TABLES: URL = new URL("./o200k_tables.gz", import.meta.url);

/**
 * Resolves with a counter. The tables come from `file` (o200k_tables.gz beside this module, made
 * by `deno task o200k-tables` from gpt-tokenizer's rank list; ~2 MB once unpacked; null skips
 * it, as a test of the worker does): building them in a worker instead left the process ~35 MB
 * larger for good (the worker's isolate, and the code it ran), which a long session's memory
 * never got back (docs/performance.md). Without that file (a remote or torn copy), they are
 * built in a worker; without read access to the worker's file either (a locked-down run), on
 * this thread, which keeps gpt-tokenizer's rank list loaded. Rejects when none works (the caller
 * estimates).
 */
export async function loadO200kCounter(
  file: URL | null = O200K_TABLES,
): Promise<O200kCounter> {
  if (file?.protocol === "file:") {
    try {
      return new O200kCounter(unpackTables(await gunzip(await Deno.readFile(file))));
    } catch {
      // Unreadable or torn: built as before.
    }
  }
  const url = new URL("./o200k_worker.ts", import.meta.url);
  const readable = url.protocol !== "file:" ||
    Deno.permissions.querySync({ name: "read", path: url }).state === "granted";
  if (!readable) {
    const { default: ranks } = await import("gpt-tokenizer/bpeRanks/o200k_base");
    return new O200kCounter(buildO200kTables(ranks));
  }
  return await new Promise((resolve, reject) => {
    const worker = new Worker(url.href, { type: "module" });
    worker.onmessage = (e: MessageEvent<O200kTables | { error: string }>) => {
      worker.terminate();
      if ("error" in e.data) reject(new Error(`Cannot load o200k_base: ${e.data.error}`));
      else resolve(new O200kCounter(e.data));
    };
    worker.onerror = (e) => {
      e.preventDefault();
      worker.terminate();
      reject(new Error(`Cannot load o200k_base: ${e.message}`));
    };
  });
}
