/**
 * Reading the stream of an API whose every SSE event is a JSON object naming its own `type`
 * (Anthropic Messages, OpenAI Responses): each event parsed and handed to the API's
 * accumulator until it says the response is complete; a stream that ends before that fails.
 *
 * @module
 */
import type { OpenResponse, ProviderHttp } from "./http.ts";
import { ProviderError, type ProviderEvent } from "./types.ts";

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
 * names the event that should have ended the stream, for the error when none did.
 */
export async function* typedEvents(
  http: ProviderHttp,
  res: OpenResponse,
  signal: AbortSignal,
  acc: TypedAccumulator,
  closing: string,
): AsyncGenerator<ProviderEvent, ProviderEvent[]> {
  for await (const ev of http.events(res, signal)) {
    const data = eventJson(ev.data);
    // The data names its own type; the SSE event name says the same when present.
    if (typeof data === "object" && data !== null && !("type" in data)) {
      (data as Record<string, unknown>).type = ev.event;
    }
    for (const out of acc.push(data)) yield out;
    if (acc.complete) break;
  }
  if (!acc.complete) {
    throw new ProviderError(
      "provider_error",
      `Provider stream ended before the response was complete (no ${closing})`,
    );
  }
  return acc.finish();
}
