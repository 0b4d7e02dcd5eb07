/**
 * Joining the text of one network read (server/provider/join_text.ts): the pure join, the Chat
 * Completions provider reading a body one read at a time, and a whole turn against a scripted
 * server, whose deltas stay within a small frame limit. The typed-event stream's join (Anthropic,
 * Responses) is in typed_stream_test.ts.
 */
import fc from "fast-check";
import { assert, assertEquals } from "../../support/assert.ts";
import { joinText, MAX_JOINED_TEXT_CHARS } from "../../../server/provider/join_text.ts";
import { fieldBudget } from "../../../server/core/turn.ts";
import { OpenAIProvider } from "../../../server/provider/openai.ts";
import type { ProviderEvent, ProviderRequest } from "../../../server/provider/types.ts";
import { MockOpenAI } from "../../support/mock_openai.ts";
import { withServer } from "../../support/server_process.ts";

const enc = new TextEncoder();

/** A body whose reads give `reads` one by one: each string is one read's bytes. */
function body(reads: string[]): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream<Uint8Array>({
    pull(c) {
      if (i < reads.length) c.enqueue(enc.encode(reads[i++]!));
      else c.close();
    },
  });
}

const sse = (...chunks: unknown[]) =>
  chunks.map((c) => typeof c === "string" ? c : `data: ${JSON.stringify(c)}\n\n`).join("");
const text = (t: string) => ({ choices: [{ index: 0, delta: { content: t } }] });
const reasoning = (t: string) => ({ choices: [{ index: 0, delta: { reasoning_content: t } }] });
const stop = { choices: [{ index: 0, delta: {}, finish_reason: "stop" }] };

/** What the provider yields for a body of `reads`, collected into `out` (kept on a failure). */
async function chatEvents(
  reads: string[],
  joinTextChars?: number,
  out: ProviderEvent[] = [],
): Promise<ProviderEvent[]> {
  const p = new OpenAIProvider({
    baseUrl: "http://127.0.0.1:9/v1",
    idleTimeoutMs: 30_000,
    fetch: (() => Promise.resolve(new Response(body(reads)))) as typeof fetch,
  });
  const request: ProviderRequest = {
    model: "m",
    messages: [{ role: "user", content: "hi" }],
    tools: [],
    signal: new AbortController().signal,
    ...(joinTextChars !== undefined ? { joinTextChars } : {}),
  };
  for await (const ev of p.stream(request)) out.push(ev);
  return out;
}

const streamed = (events: ProviderEvent[]) => events.filter((e) => e.type !== "done");

Deno.test("the text pieces of one read are one event; pieces of separate reads stay apart", async () => {
  const oneRead = await chatEvents([
    sse(text("Hel"), text("lo"), text("!"), stop, "data: [DONE]\n\n"),
  ], 100);
  assertEquals(streamed(oneRead), [{ type: "text", text: "Hello!" }]);
  const threeReads = await chatEvents(
    [sse(text("Hel")), sse(text("lo")), sse(text("!"), stop, "data: [DONE]\n\n")],
    100,
  );
  assertEquals(streamed(threeReads), [
    { type: "text", text: "Hel" },
    { type: "text", text: "lo" },
    { type: "text", text: "!" },
  ]);
  // The message is the same either way.
  assertEquals(oneRead.at(-1), threeReads.at(-1));
});

Deno.test("joined text never passes the request's joinTextChars; without it nothing is joined", async () => {
  const reads = [sse(text("Hel"), text("lo"), text("!"), stop, "data: [DONE]\n\n")];
  assertEquals(streamed(await chatEvents(reads, 4)), [
    { type: "text", text: "Hel" },
    { type: "text", text: "lo!" },
  ]);
  assertEquals(streamed(await chatEvents(reads)), [
    { type: "text", text: "Hel" },
    { type: "text", text: "lo" },
    { type: "text", text: "!" },
  ]);
});

Deno.test("reasoning and text of one read are joined each with its own kind, in order", async () => {
  const reads = [
    sse(
      reasoning("th"),
      reasoning("ink"),
      text("a"),
      text("b"),
      reasoning("z"),
      stop,
      "data: [DONE]\n\n",
    ),
  ];
  assertEquals(streamed(await chatEvents(reads, 100)), [
    { type: "reasoning", text: "think" },
    { type: "text", text: "ab" },
    { type: "reasoning", text: "z" },
  ]);
});

Deno.test("the text before a bad event of the same read still comes out before the error", async () => {
  const seen: ProviderEvent[] = [];
  let failure: unknown;
  try {
    await chatEvents([sse(text("Par"), text("tial"), "data: {not json\n\n")], 100, seen);
  } catch (e) {
    failure = e;
  }
  assertEquals(seen, [{ type: "text", text: "Partial" }]);
  assert(failure instanceof Error && /not JSON/.test(failure.message), String(failure));
});

const piece = fc.oneof(
  fc.record({ type: fc.constant("text" as const), text: fc.string({ maxLength: 12 }) }),
  fc.record({ type: fc.constant("reasoning" as const), text: fc.string({ maxLength: 12 }) }),
  fc.record({ type: fc.constant("notice" as const), message: fc.string({ maxLength: 4 }) }),
);

Deno.test("joinText keeps every character and every other event in order, and its bound", () => {
  fc.assert(
    fc.property(
      fc.array(piece, { maxLength: 40 }),
      fc.integer({ min: -1, max: 30 }),
      (evs, max) => {
        const joined = joinText(evs, max);
        const kind = (list: ProviderEvent[], type: "text" | "reasoning") =>
          list.map((e) => e.type === type ? e.text : "").join("");
        assertEquals(kind(joined, "text"), kind(evs, "text"));
        assertEquals(kind(joined, "reasoning"), kind(evs, "reasoning"));
        const others = (list: ProviderEvent[]) => list.filter((e) => e.type === "notice");
        assertEquals(others(joined), others(evs));
        if (max <= 0) assertEquals(joined, evs);
        for (const e of joined) {
          if ((e.type === "text" || e.type === "reasoning") && e.text.length > max) {
            // Only a piece that was that long by itself.
            assert(evs.some((o) => o.type === e.type && o.text === e.text), e.text);
          }
        }
        // Joining only ever merges: never more events than came.
        assert(joined.length <= evs.length);
      },
    ),
    { numRuns: 500 },
  );
});

Deno.test("a turn whose stream comes in one read sends fewer deltas, each within a small frame", async () => {
  const answer = "x".repeat(1500);
  const pieces = [];
  for (let i = 0; i < answer.length; i += 10) pieces.push(text(answer.slice(i, i + 10)));
  // One write of the whole body (the reply kind benchmarks use): it comes in one read or few.
  const raw = enc.encode(sse(...pieces, stop, "data: [DONE]\n\n"));
  const mock = await MockOpenAI.start([{ kind: "raw", body: raw }]);
  const maxFrame = 2048;
  await withServer(mock, { config: { max_server_frame_bytes: maxFrame } }, async (p) => {
    const { sessionId } = await p.open();
    const started = await p.startTurn(sessionId, "go", "3");
    const done = await p.terminal(started.turn_id);
    assertEquals(done.type, "turn.completed", JSON.stringify(done));
    const deltas = p.turnEvents(started.turn_id).filter((e) => e.type === "assistant.delta");
    assertEquals(deltas.map((d) => d.content).join(""), answer);
    assert(
      deltas.length < pieces.length / 2,
      `${deltas.length} deltas for ${pieces.length} pieces`,
    );
    // Each within a free-text field's budget of the frame, whatever the escaping.
    const most = Math.floor(fieldBudget(maxFrame) / 6);
    for (const d of deltas) {
      assert(String(d.content).length <= most, `a delta of ${String(d.content).length} chars`);
    }
  });
});

Deno.test("under the default frame limit a joined delta stops at MAX_JOINED_TEXT_CHARS", async () => {
  const answer = "y".repeat(100_000);
  const pieces = [];
  // Pieces of 1,000 characters: one 64 KiB read holds more than the cap.
  for (let i = 0; i < answer.length; i += 1000) pieces.push(text(answer.slice(i, i + 1000)));
  const raw = enc.encode(sse(...pieces, stop, "data: [DONE]\n\n"));
  const mock = await MockOpenAI.start([{ kind: "raw", body: raw }]);
  await withServer(mock, {}, async (p) => {
    const { sessionId } = await p.open();
    const started = await p.startTurn(sessionId, "go", "3");
    assertEquals((await p.terminal(started.turn_id)).type, "turn.completed");
    const sizes = p.turnEvents(started.turn_id).filter((e) => e.type === "assistant.delta")
      .map((d) => String(d.content).length);
    assertEquals(sizes.reduce((a, b) => a + b, 0), answer.length);
    // Joined (some delta holds many pieces), and none past the cap.
    assert(Math.max(...sizes) > 1000, sizes.join());
    assert(sizes.every((n) => n <= MAX_JOINED_TEXT_CHARS), sizes.join());
    assert(sizes.length >= Math.ceil(answer.length / MAX_JOINED_TEXT_CHARS), sizes.join());
  });
});
