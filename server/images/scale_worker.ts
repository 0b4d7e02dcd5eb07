/**
 * Scaling an image off the main thread: decoding and encoding a large PNG or JPEG in pure
 * JavaScript takes seconds, which must not stall the server (its other sessions, a
 * `turn.cancel`). {@link scaleInWorker} runs {@link scaleToFit} in a fresh worker of this
 * module and terminates it when done or when the turn is cancelled.
 *
 * The main thread imports this module (dynamically, only when an image must be scaled), which
 * also puts it in the module graph, so `deno compile` embeds it for the worker.
 *
 * @module
 */
import type { ImagePart } from "./image_part.ts";
import { scaleToFit } from "./scale.ts";
import { callWorker } from "../worker_call.ts";

/** What the worker is sent. */
interface ScaleRequest {
  image: ImagePart;
  maxSide: number;
}

/** The part of a dedicated worker's global scope used here. */
interface WorkerScope {
  onmessage: ((event: MessageEvent<ScaleRequest>) => void) | null;
  postMessage(message: ImagePart | string): void;
}

if ("WorkerGlobalScope" in globalThis) {
  const scope = globalThis as unknown as WorkerScope;
  scope.onmessage = async (event) => {
    try {
      scope.postMessage(await scaleToFit(event.data.image, event.data.maxSide));
    } catch (e) {
      scope.postMessage(`it cannot be scaled down (${e instanceof Error ? e.message : e})`);
    }
  };
}

/**
 * {@link scaleToFit} in a worker: the scaled image, or why it cannot be; rejects with the
 * signal's reason once `signal` aborts (the worker is terminated then).
 */
export function scaleInWorker(
  image: ImagePart,
  maxSide: number,
  signal?: AbortSignal,
): Promise<ImagePart | string> {
  return callWorker(
    new URL("./scale_worker.ts", import.meta.url),
    { image, maxSide } satisfies ScaleRequest,
    (message) => `it cannot be scaled down (${message})`,
    signal,
  );
}
