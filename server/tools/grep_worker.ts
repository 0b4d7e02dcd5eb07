/**
 * The worker the `grep` tool searches in: one `GrepRequest` in, one `GrepReply` out. The tool
 * terminates the worker to stop a search, which interrupts even a regular expression stuck
 * backtracking.
 *
 * The tool also imports this module on the main thread, where it does nothing: that import
 * puts it in the module graph, so `deno compile` embeds it and the worker loads from the
 * binary without an `--include` flag.
 *
 * @module
 */
import { type GrepReply, type GrepRequest, searchFiles } from "./grep_search.ts";

/** The part of a dedicated worker's global scope used here. */
interface WorkerScope {
  onmessage: ((event: MessageEvent<GrepRequest>) => void) | null;
  postMessage(message: GrepReply): void;
}

/** Answers one request; never throws, every failure is a reply. */
async function answer(request: GrepRequest): Promise<GrepReply> {
  try {
    return await searchFiles(request);
  } catch (err) {
    const e = err instanceof Error ? err : new Error(String(err));
    return { ok: false, error: { name: e.name, message: e.message } };
  }
}

if ("WorkerGlobalScope" in globalThis) {
  const scope = globalThis as unknown as WorkerScope;
  scope.onmessage = async (event) => scope.postMessage(await answer(event.data));
}
