/**
 * Writes `o200k_tables.gz`: the compact `o200k_base` tables (`o200k.ts`) built from the
 * gpt-tokenizer that deno.json pins, packed and gzipped. Run with `deno task o200k-tables` after
 * changing gpt-tokenizer's version; tests/server/context/o200k_test.ts fails until then.
 *
 * @module
 */
import { buildO200kTables, gzip, packTables } from "./o200k.ts";

/** The packed tables (before gzip) as this checkout's gpt-tokenizer makes them. */
export async function packedTables(): Promise<Uint8Array<ArrayBuffer>> {
  const { default: ranks } = await import("gpt-tokenizer/bpeRanks/o200k_base");
  return packTables(buildO200kTables(ranks));
}

if (import.meta.main) {
  const data = await gzip(await packedTables());
  await Deno.writeFile(new URL("o200k_tables.gz", import.meta.url), data);
  console.log(`o200k_tables.gz: ${data.length} bytes`);
}
