/**
 * Reads a mentioned file for `@path`: only a regular file inside the workspace (after
 * resolving symlinks), at most the bytes asked for, a NUL byte in its head marking it binary.
 *
 * @module
 */
import type { MentionReader } from "../state/mod.ts";

/**
 * A reader of the workspace at `cwd` (absolute, canonical).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { mentionReader } from "./mention_reader.ts";
 * const dir = Deno.realPathSync(await Deno.makeTempDir());
 * await Deno.writeTextFile(`${dir}/a.txt`, "hello world");
 * const read = mentionReader(dir);
 * assert.deepEqual(read("a.txt", 5), { text: "hello", size: 11 });
 * assert.equal(read("../etc/passwd", 5), undefined);
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export function mentionReader(cwd: string): MentionReader {
  return (path, maxBytes) => {
    if (path.startsWith("/") || path.includes("\0")) return undefined;
    let real: string;
    try {
      real = Deno.realPathSync(`${cwd}/${path}`);
    } catch {
      return undefined;
    }
    if (real !== cwd && !real.startsWith(cwd + "/")) return undefined;
    let file: Deno.FsFile | undefined;
    try {
      file = Deno.openSync(real, { read: true });
      const info = file.statSync();
      if (!info.isFile) return undefined;
      const buf = new Uint8Array(Math.min(maxBytes, info.size));
      let got = 0;
      while (got < buf.length) {
        const n = file.readSync(buf.subarray(got));
        if (n === null || n === 0) break;
        got += n;
      }
      const head = buf.subarray(0, got);
      if (head.includes(0)) return { text: "", size: info.size, binary: true };
      // Streaming decode holds back a character cut at the end instead of mangling it.
      return { text: new TextDecoder().decode(head, { stream: true }), size: info.size };
    } catch {
      return undefined;
    } finally {
      file?.close();
    }
  };
}
