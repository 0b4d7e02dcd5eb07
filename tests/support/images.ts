/**
 * Test images made here, byte by byte, never downloaded: a valid PNG of any size (stored,
 * uncompressed deflate, so its length is exact), padded to an exact byte count when asked, and
 * minimal JPEG, GIF and WebP headers that carry a pixel size.
 *
 * @module
 */

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function be32(n: number): number[] {
  return [(n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff];
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function chunk(type: string, data: Uint8Array): Uint8Array {
  const typeBytes = new TextEncoder().encode(type);
  const crc = crc32(concat([typeBytes, data]));
  return concat([new Uint8Array(be32(data.length)), typeBytes, data, new Uint8Array(be32(crc))]);
}

/** zlib data of `raw` in stored (uncompressed) deflate blocks. */
function zlibStored(raw: Uint8Array): Uint8Array {
  const parts: Uint8Array[] = [new Uint8Array([0x78, 0x01])];
  for (let at = 0; at < raw.length || at === 0; at += 65535) {
    const block = raw.subarray(at, at + 65535);
    const last = at + 65535 >= raw.length ? 1 : 0;
    const len = block.length;
    parts.push(new Uint8Array([last, len & 0xff, len >>> 8, ~len & 0xff, (~len >>> 8) & 0xff]));
    parts.push(block);
    if (raw.length === 0) break;
  }
  let a = 1, b = 0;
  for (const x of raw) {
    a = (a + x) % 65521;
    b = (b + a) % 65521;
  }
  parts.push(new Uint8Array(be32(((b << 16) | a) >>> 0)));
  return concat(parts);
}

/** Options of {@link makePng}. */
export interface PngOptions {
  width?: number;
  height?: number;
  /** Pad the file to exactly this many bytes with a private chunk (at least 12 over the image). */
  totalBytes?: number;
  /** Seed of the pixel pattern, so two images differ. */
  seed?: number;
}

/** A valid RGB PNG (pixels in a seeded pattern); 1x1 by default. */
export function makePng(options: PngOptions = {}): Uint8Array {
  const { width = 1, height = 1, seed = 0 } = options;
  const ihdr = new Uint8Array([...be32(width), ...be32(height), 8, 2, 0, 0, 0]);
  const raw = new Uint8Array(height * (1 + width * 3));
  let x = seed * 2654435761 >>> 0;
  for (let i = 0; i < raw.length; i++) {
    if (i % (1 + width * 3) === 0) continue; // filter byte 0
    x = (x * 1103515245 + 12345) >>> 0;
    raw[i] = x >>> 24;
  }
  const signature = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const parts = [signature, chunk("IHDR", ihdr), chunk("IDAT", zlibStored(raw))];
  const end = chunk("IEND", new Uint8Array());
  if (options.totalBytes !== undefined) {
    const now = parts.reduce((n, p) => n + p.length, 0) + end.length;
    const pad = options.totalBytes - now - 12;
    if (pad < 0) throw new RangeError(`Cannot pad a PNG of ${now} bytes to ${options.totalBytes}`);
    parts.push(chunk("prVt", new Uint8Array(pad)));
  }
  return concat([...parts, end]);
}

/** The start of a baseline JPEG (SOI, an APP0 and a SOF0 with the size): enough to check. */
export function makeJpeg(width = 2, height = 3): Uint8Array {
  return new Uint8Array([
    0xff,
    0xd8,
    0xff,
    0xe0,
    0,
    16,
    0x4a,
    0x46,
    0x49,
    0x46,
    0,
    1,
    1,
    0,
    0,
    1,
    0,
    1,
    0,
    0,
    0xff,
    0xc0,
    0,
    11,
    8,
    height >> 8,
    height & 0xff,
    width >> 8,
    width & 0xff,
    1,
    1,
    0x11,
    0,
    0xff,
    0xd9,
  ]);
}

/** A GIF89a header with the size. */
export function makeGif(width = 4, height = 5): Uint8Array {
  return new Uint8Array([
    0x47,
    0x49,
    0x46,
    0x38,
    0x39,
    0x61,
    width & 0xff,
    width >> 8,
    height & 0xff,
    height >> 8,
    0,
    0,
    0,
    0x3b,
  ]);
}

/** A RIFF WebP with a VP8X chunk carrying the size. */
export function makeWebp(width = 6, height = 7): Uint8Array {
  const w = width - 1, h = height - 1;
  return new Uint8Array([
    0x52,
    0x49,
    0x46,
    0x46,
    22,
    0,
    0,
    0,
    0x57,
    0x45,
    0x42,
    0x50,
    0x56,
    0x50,
    0x38,
    0x58,
    10,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    w & 0xff,
    (w >> 8) & 0xff,
    w >> 16,
    h & 0xff,
    (h >> 8) & 0xff,
    h >> 16,
  ]);
}
