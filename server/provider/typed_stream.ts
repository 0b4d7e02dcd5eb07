/**
 * Reading the stream of an API whose every SSE event is a JSON object naming its own `type`
 * (Anthropic Messages, OpenAI Responses): each event parsed and handed to the API's
 * accumulator until it says the response is complete; a stream that ends before that fails.
 *
 * @module
 */
import type { OpenResponse, ProviderHttp } from "./http.ts";
import { ProviderError, type ProviderEvent } from "./types.ts";
import { relayRead } from "./join_text.ts";

/** What assembles one response from its typed events. */
export interface TypedAccumulator {
  /** Takes one parsed event; gives the events to stream now. */
  push(data: unknown): ProviderEvent[];
  /** Whether the response's closing event has come. */
  readonly complete: boolean;
  /** The events that close the response (tool calls, `done`). */
  finish(): ProviderEvent[];
}

/** The JSON of one event's data, or a `provider_error` quoting its start. */
export function eventJson(data: string): unknown {
  try {
    return JSON.parse(data);
  } catch {
    throw new ProviderError("provider_error", {
      before: "Provider sent an event that is not JSON: ",
      text: data,
      max: 200,
    });
  }
}

/**
 * Streams what `acc` makes of the response's events; returns its closing events. `closing`
 * names the event that should have ended the stream, for the error when none did;
 * `joinTextChars` is the request's `joinTextChars`.
 */
export async function* typedEvents(
  http: ProviderHttp,
  res: OpenResponse,
  signal: AbortSignal,
  acc: TypedAccumulator,
  closing: string,
  joinTextChars = 0,
): AsyncGenerator<ProviderEvent, ProviderEvent[]> {
  // One read's events are relayed together, their text joined (join_text.ts).
  for await (const batch of http.batches(res, signal)) {
    const complete = yield* relayRead(batch, (ev, out) => {
      const data = eventJson(ev.data);
      // The data names its own type; the SSE event name says the same when present.
      if (typeof data === "object" && data !== null && !("type" in data)) {
        (data as Record<string, unknown>).type = ev.event;
      }
      out.push(...acc.push(data));
      return acc.complete;
    }, joinTextChars);
    if (complete) break;
  }
  if (!acc.complete) {
    throw new ProviderError(
      "provider_error",
      `Provider stream ended before the response was complete (no ${closing})`,
    );
  }
  return acc.finish();
}
