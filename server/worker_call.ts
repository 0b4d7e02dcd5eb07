/**
 * One request in a fresh worker: for work that takes long enough to stall the server (a regex
 * search over a tree, an HTML conversion, an image scaled in pure JavaScript) and must stop when
 * its turn is cancelled. The worker is terminated when it answers, fails, or the signal aborts.
 *
 * @module
 */

/**
 * Posts `request` to a new module worker of `url` and resolves with its first reply, or with
 * `failed(message)` when the worker fails (its error event is handled: a failed worker fails the
 * call, not the server). Rejects with the signal's reason once `signal` aborts.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { callWorker } from "./worker_call.ts";
 * const url = new URL(`data:text/javascript,onmessage = (e) => postMessage(e.data * 2);`);
 * assert.equal(await callWorker(url, 21, () => -1), 42);
 * ```
 */
export function callWorker<Request, Reply>(
  url: URL,
  request: Request,
  failed: (message: string) => Reply,
  signal?: AbortSignal,
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const worker = new Worker(url, { type: "module" });
    const finish = (settle: () => void) => {
      signal?.removeEventListener("abort", onAbort);
      worker.terminate();
      settle();
    };
    const onAbort = () => finish(() => reject(signal!.reason));
    signal?.addEventListener("abort", onAbort, { once: true });
    worker.onmessage = (e: MessageEvent<Reply>) => finish(() => resolve(e.data));
    worker.onerror = (e: ErrorEvent) => {
      e.preventDefault();
      finish(() => resolve(failed(e.message)));
    };
    worker.postMessage(request);
  });
}
