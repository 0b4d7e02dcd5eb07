/**
 * A `fetch` for the Streamable HTTP transport that bounds what a server may send: a JSON body
 * or one SSE event over the limit errors the body (and tells the caller, which stops the
 * server), so a 20 MB answer never sits in memory whole.
 *
 * @module
 */

/** What {@link boundedFetch} needs. */
export interface BoundedFetchOptions {
  maxBytes: number;
  /** Called once when a body crosses the limit. */
  onOverflow: (message: string) => void;
  base?: typeof fetch;
}

function limitStream(
  maxBytes: number,
  sse: boolean,
  onOverflow: (message: string) => void,
): TransformStream<Uint8Array, Uint8Array> {
  let size = 0;
  let lastWasNewline = false;
  return new TransformStream({
    transform(chunk, controller) {
      const overflow = () => {
        const message = `it sent a ${sse ? "server-sent event" : "response"} of more than ` +
          `${maxBytes} bytes`;
        onOverflow(message);
        controller.error(new RangeError(`MCP server ${message}`));
      };
      if (!sse) {
        size += chunk.length;
        if (size > maxBytes) return overflow();
      } else {
        // Bytes since the last blank line: the size of the event being received, checked as it
        // grows (a chunk may hold a whole oversized event and the blank line after it).
        for (let i = 0; i < chunk.length; i++) {
          const b = chunk[i]!;
          if (b === 13) continue;
          if (b === 10) {
            if (lastWasNewline) size = 0;
            lastWasNewline = true;
          } else {
            lastWasNewline = false;
            if (++size > maxBytes) return overflow();
          }
        }
      }
      controller.enqueue(chunk);
    },
  });
}

/**
 * Wraps `fetch` so every response body is cut off past `maxBytes` (per SSE event for event
 * streams).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { boundedFetch } from "./http_fetch.ts";
 * let told = "";
 * const f = boundedFetch({
 *   maxBytes: 4,
 *   onOverflow: (m) => told = m,
 *   base: () => Promise.resolve(new Response("123456789")),
 * });
 * const res = await f("http://x");
 * await assert.rejects(res.text());
 * assert.match(told, /more than 4 bytes/);
 * ```
 */
export function boundedFetch(options: BoundedFetchOptions) {
  const base = options.base ?? fetch;
  return async (url: string | URL, init?: RequestInit): Promise<Response> => {
    const res = await base(url, init);
    if (!res.body || res.status === 204 || res.status === 304) return res;
    const sse = res.headers.get("content-type")?.includes("text/event-stream") ?? false;
    const body = res.body.pipeThrough(limitStream(options.maxBytes, sse, options.onOverflow));
    return new Response(body, {
      status: res.status,
      statusText: res.statusText,
      headers: res.headers,
    });
  };
}
