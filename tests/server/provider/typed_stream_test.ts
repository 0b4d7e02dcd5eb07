/** Reading a stream of typed JSON events (server/provider/typed_stream.ts). */
import { assert, assertEquals, assertMatch, assertRejects } from "../../support/assert.ts";
import { providerTransport } from "../../../server/provider/transport.ts";
import {
  eventJson,
  type TypedAccumulator,
  typedEvents,
} from "../../../server/provider/typed_stream.ts";
import { ProviderError, type ProviderEvent } from "../../../server/provider/types.ts";

/** Completes on an event of type "end"; every other event becomes a text of its type. */
class EndAccumulator implements TypedAccumulator {
  complete = false;
  push(data: unknown): ProviderEvent[] {
    const type = (data as { type: string }).type;
    if (type === "end") this.complete = true;
    return type === "end" ? [] : [{ type: "text", text: type }];
  }
  finish(): ProviderEvent[] {
    return [{ type: "text", text: "finished" }];
  }
}

/**
 * What `typedEvents` streams and returns for a body `sse` (one read), or `reads` one by one,
 * joining text up to `joinTextChars`.
 */
async function read(
  sse: string | string[],
  joinTextChars = 0,
): Promise<{ streamed: ProviderEvent[]; closing: ProviderEvent[] }> {
  const reads = typeof sse === "string" ? [sse] : [...sse];
  const body = () =>
    new ReadableStream<Uint8Array>({
      pull(c) {
        const next = reads.shift();
        if (next === undefined) c.close();
        else c.enqueue(new TextEncoder().encode(next));
      },
    });
  const fetch =
    (() => Promise.resolve(new Response(body(), { status: 200 }))) as typeof globalThis.fetch;
  const { http } = providerTransport(
    { baseUrl: "http://127.0.0.1:9/v1", idleTimeoutMs: 5000, fetch },
    { path: "/x", auth: {} },
  );
  const signal = new AbortController().signal;
  const res = await http.open("{}", signal);
  const gen = typedEvents(http, res, signal, new EndAccumulator(), "end", joinTextChars);
  const streamed: ProviderEvent[] = [];
  for (;;) {
    const r = await gen.next();
    if (r.done) return { streamed, closing: r.value };
    streamed.push(r.value);
  }
}

Deno.test("typed events take a missing type from the SSE event name and stop at completion", async () => {
  const { streamed, closing } = await read(
    'data: {"type":"a"}\n\nevent: b\ndata: {}\n\ndata: {"type":"end"}\n\ndata: {"type":"after"}\n\n',
  );
  assertEquals(streamed, [{ type: "text", text: "a" }, { type: "text", text: "b" }]);
  assertEquals(closing, [{ type: "text", text: "finished" }]);
});

Deno.test("a typed stream that ends before its closing event is a provider_error naming it", async () => {
  const e = await assertRejects(() => read('data: {"type":"a"}\n\n'), ProviderError);
  assertMatch(e.message, /ended before the response was complete \(no end\)/);
});

Deno.test("an event whose data is not JSON is a provider_error quoting it", () => {
  try {
    eventJson("{not json");
    assert(false, "expected a failure");
  } catch (e) {
    assert(e instanceof ProviderError);
    assertEquals(e.code, "provider_error");
    assertMatch(e.message, /not JSON: \{not json/);
  }
});

Deno.test("a typed-event stream (Anthropic, Responses) joins the text of one read, not across reads", async () => {
  const reads = ['data: {"type":"a"}\n\ndata: {"type":"b"}\n\n', 'data: {"type":"c"}\n\n'];
  const { streamed, closing } = await read([...reads, 'data: {"type":"end"}\n\n'], 100);
  assertEquals(streamed, [{ type: "text", text: "ab" }, { type: "text", text: "c" }]);
  assertEquals(closing, [{ type: "text", text: "finished" }]);
  // Without a joinTextChars nothing is joined.
  const apart = await read([...reads, 'data: {"type":"end"}\n\n']);
  assertEquals(apart.streamed.map((e) => e.type === "text" && e.text), ["a", "b", "c"]);
});
