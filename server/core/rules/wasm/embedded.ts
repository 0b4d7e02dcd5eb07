/**
 * How the rules' WebAssembly is embedded (see generate.ts for why in modules): gzip, then base64.
 * The two files are 1.5 MB as they are and 0.35 MB this way, and `deno run` reads every module
 * a literal `import()` names when it starts, whichever command runs.
 *
 * @module
 */

/** The bytes a module's base64 text stands for: decoded, then gunzipped. */
export async function unpack(base64: string): Promise<Uint8Array> {
  const gz = new Blob([Uint8Array.fromBase64(base64)]).stream();
  return new Uint8Array(
    await new Response(gz.pipeThrough(new DecompressionStream("gzip"))).arrayBuffer(),
  );
}

/** The base64 text of `bytes`, gzipped. */
export async function pack(bytes: Uint8Array): Promise<string> {
  const gz = new Blob([bytes as Uint8Array<ArrayBuffer>]).stream();
  return new Uint8Array(
    await new Response(gz.pipeThrough(new CompressionStream("gzip"))).arrayBuffer(),
  ).toBase64();
}
