/**
 * Worker that builds the compact `o200k_base` tables (see `o200k.ts`) from gpt-tokenizer's rank
 * list and transfers them to its parent; the list itself dies with the worker. `deno compile`
 * embeds it through the `--include` of the compile task.
 *
 * @module
 */
import { buildO200kTables, type O200kTables } from "./o200k.ts";

/** The part of a dedicated worker's global scope used here. */
interface WorkerScope {
  postMessage(message: O200kTables | { error: string }, transfer?: Transferable[]): void;
}

if ("WorkerGlobalScope" in globalThis) {
  const scope = globalThis as unknown as WorkerScope;
  try {
    const { default: ranks } = await import("gpt-tokenizer/bpeRanks/o200k_base");
    const tables = buildO200kTables(ranks);
    scope.postMessage(tables, [tables.bytes.buffer, tables.offsets.buffer, tables.slots.buffer]);
  } catch (e) {
    scope.postMessage({ error: e instanceof Error ? e.message : String(e) });
  }
}
