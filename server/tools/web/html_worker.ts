/**
 * The HTML conversion off the main thread: Readability and Turndown take time that grows faster
 * than the page (a 160 KB page of nested `<div>`s takes minutes), and that time would stall the
 * whole server, its other sessions and a `turn.cancel` included. {@link htmlToMarkdownInWorker}
 * runs {@link htmlToMarkdown} in a fresh worker of this module and terminates it when done, when
 * the fetch's time is up or when the turn is cancelled.
 *
 * The main thread imports this module (dynamically, only when a page arrives), which also puts it
 * in the module graph, so `deno compile` embeds it for the worker.
 *
 * @module
 */
import { htmlToMarkdown, type PageMarkdown } from "./html_markdown.ts";
import { callWorker } from "../../worker_call.ts";

/** What the worker is sent. */
interface ConvertRequest {
  html: string;
  url: string;
}

/** The part of a dedicated worker's global scope used here. */
interface WorkerScope {
  onmessage: ((event: MessageEvent<ConvertRequest>) => void) | null;
  postMessage(message: PageMarkdown | string): void;
}

if ("WorkerGlobalScope" in globalThis) {
  const scope = globalThis as unknown as WorkerScope;
  scope.onmessage = (event) => {
    try {
      scope.postMessage(htmlToMarkdown(event.data.html, event.data.url));
    } catch (e) {
      scope.postMessage(`its HTML cannot be converted (${e instanceof Error ? e.message : e})`);
    }
  };
}

/**
 * {@link htmlToMarkdown} in a worker: the page, or why it cannot be converted; rejects with the
 * signal's reason once `signal` aborts (the worker is terminated then).
 */
export function htmlToMarkdownInWorker(
  html: string,
  url: string,
  signal: AbortSignal,
): Promise<PageMarkdown | string> {
  return callWorker(
    new URL("./html_worker.ts", import.meta.url),
    { html, url } satisfies ConvertRequest,
    (message) => `its HTML cannot be converted (${message})`,
    signal,
  );
}
