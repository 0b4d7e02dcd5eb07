/**
 * In-process tests of the Chat Completions provider as a pull stream, over a scripted `fetch`:
 * cancellation, early release of the body, error mapping, refusals retried by shape, redaction.
 */
import { assert, assertEquals, assertMatch, assertRejects } from "../../support/assert.ts";
import { OpenAIProvider, type OpenAIProviderOptions } from "../../../server/provider/openai.ts";
import {
  ProviderError,
  type ProviderEvent,
  type ProviderRequest,
  type ToolSpec,
} from "../../../server/provider/types.ts";

const enc = new TextEncoder();

/** A body that sends `parts` then optionally stays open; records whether it was cancelled. */
function body(parts: string[], hang = false) {
  const state = { cancelled: false, pulled: 0 };
  let i = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(c) {
      state.pulled++;
      if (i < parts.length) c.enqueue(enc.encode(parts[i++]!));
      else if (!hang) c.close();
      else return new Promise<void>(() => {});
    },
    cancel() {
      state.cancelled = true;
    },
  });
  return { stream, state };
}

interface Seen {
  url: string;
  headers: Headers;
  json: Record<string, unknown>;
}

/** A fetch answering each request with the next of `answers`, recording each request. */
function scripted(answers: Array<() => Response>): { fetch: typeof fetch; seen: Seen[] } {
  const seen: Seen[] = [];
  const f = ((input: string | URL | Request, init?: RequestInit) => {
    seen.push({
      url: String(input),
      headers: new Headers(init?.headers),
      json: JSON.parse(String(init?.body)),
    });
    const next = answers[seen.length - 1];
    if (!next) return Promise.reject(new Error("no answer scripted"));
    const signal = init?.signal;
    if (signal?.aborted) return Promise.reject(signal.reason);
    return Promise.resolve(next());
  }) as typeof fetch;
  return { fetch: f, seen };
}

const sse = (...chunks: unknown[]) =>
  chunks.map((c) => typeof c === "string" ? c : `data: ${JSON.stringify(c)}\n\n`);
const text = (t: string) => ({ choices: [{ index: 0, delta: { content: t } }] });
const stop = { choices: [{ index: 0, delta: {}, finish_reason: "stop" }] };
const TOOLS: ToolSpec[] = [{
  type: "function",
  function: { name: "bash", description: "run", parameters: { type: "object" } },
}];

function provider(f: typeof fetch, extra: Partial<OpenAIProviderOptions> = {}): OpenAIProvider {
  return new OpenAIProvider({
    baseUrl: "http://127.0.0.1:9/v1",
    idleTimeoutMs: 30_000,
    retryBaseMs: 1,
    fetch: f,
    ...extra,
  });
}

function request(signal = new AbortController().signal, tools: ToolSpec[] = []): ProviderRequest {
  return { model: "m", messages: [{ role: "user", content: "hi" }], tools, signal };
}

async function collect(
  p: OpenAIProvider,
  r: ProviderRequest = request(),
): Promise<ProviderEvent[]> {
  const out: ProviderEvent[] = [];
  for await (const ev of p.stream(r)) out.push(ev);
  return out;
}

Deno.test("the provider yields text events, then done with the whole message, last", async () => {
  const b = body(sse(text("Hel"), text("lo"), stop, "data: [DONE]\n\n"));
  const { fetch } = scripted([() => new Response(b.stream)]);
  const events = await collect(provider(fetch));
  assertEquals(events, [
    { type: "text", text: "Hel" },
    { type: "text", text: "lo" },
    { type: "done", message: { role: "assistant", content: "Hello" }, finishReason: "stop" },
  ]);
});

Deno.test("breaking out of the stream early cancels the HTTP body", async () => {
  const b = body(sse(text("a"), text("b")), true);
  const { fetch } = scripted([() => new Response(b.stream)]);
  for await (const ev of provider(fetch).stream(request())) {
    assertEquals(ev, { type: "text", text: "a" });
    break;
  }
  assert(b.state.cancelled, "the body was cancelled");
});

Deno.test("aborting mid-stream throws the signal's reason and yields nothing after", async () => {
  const ac = new AbortController();
  const b = body(sse(text("a")), true);
  const { fetch } = scripted([() => new Response(b.stream)]);
  const seen: ProviderEvent[] = [];
  const reason = new DOMException("stop", "AbortError");
  const err = await assertRejects(async () => {
    for await (const ev of provider(fetch).stream(request(ac.signal))) {
      seen.push(ev);
      ac.abort(reason);
    }
  });
  assertEquals(err, reason);
  assertEquals(seen.length, 1);
  assert(b.state.cancelled, "the body was cancelled");
});

Deno.test("an SSE event over 1 MiB split over many chunks fails with response_limit", async () => {
  const piece = "y".repeat(64 * 1024);
  const parts = ['data: {"choices":[{"delta":{"content":"', ...Array(17).fill(piece), '"}}]}\n\n'];
  const { fetch } = scripted([() => new Response(body(parts).stream)]);
  const e = await assertRejects(() => collect(provider(fetch)), ProviderError);
  assertEquals([e.code, e.message], [
    "response_limit",
    "Provider sent an SSE event over 1048576 bytes",
  ]);
});

Deno.test("an SSE error field mid-stream is a provider_error even when [DONE] follows", async () => {
  const parts = sse(
    text("par"),
    'error: {"code":500,"message":"slot unavailable","type":"server_error"}\n\n',
    "data: [DONE]\n\n",
  );
  const { fetch } = scripted([() => new Response(body(parts).stream)]);
  const e = await assertRejects(() => collect(provider(fetch)), ProviderError);
  assertEquals([e.code, e.message], [
    "provider_error",
    "Provider reported an error: slot unavailable",
  ]);
});

Deno.test("a refused stream_options is dropped and the request sent again, once, and not again", async () => {
  const refusal = JSON.stringify({
    object: "error",
    message: {
      detail: [{
        type: "extra_forbidden",
        loc: ["body", "stream_options"],
        msg: "Extra inputs are not permitted",
      }],
    },
    type: "invalid_request_error",
  });
  const ok = () => new Response(body(sse(text("ok"), stop)).stream);
  const { fetch, seen } = scripted([() => new Response(refusal, { status: 422 }), ok, ok]);
  const p = provider(fetch);
  const events = await collect(p);
  assertEquals(events.at(-1)!.type, "done");
  assertEquals(seen.map((s) => "stream_options" in s.json), [true, false]);
  await collect(p);
  assertEquals(seen.map((s) => "stream_options" in s.json), [true, false, false]);
});

Deno.test("a model that refuses tools is asked again without them and the user gets a notice", async () => {
  const refusal = JSON.stringify({
    error: { message: "registry.ollama.ai/library/gemma:2b does not support tools" },
  });
  const ok = () => new Response(body(sse(text("plain"), stop)).stream);
  const { fetch, seen } = scripted([() => new Response(refusal, { status: 400 }), ok, ok]);
  const p = provider(fetch);
  const events = await collect(p, request(undefined, TOOLS));
  assertEquals(seen.map((s) => "tools" in s.json), [true, false]);
  const notice = events.find((e) => e.type === "notice");
  assert(notice?.type === "notice");
  assertMatch(notice.message, /cannot use tools.*does not support tools/);
  // The next call of that model goes without tools at once, and still says so.
  const again = await collect(p, request(undefined, TOOLS));
  assertEquals(seen.map((s) => "tools" in s.json), [true, false, false]);
  assert(again.some((e) => e.type === "notice"));
});

Deno.test("an HTTP 400 that is not about tools is not retried", async () => {
  const { fetch, seen } = scripted([
    () => new Response('{"error":{"message":"bad model"}}', { status: 400 }),
  ]);
  const e = await assertRejects(
    () => collect(provider(fetch), request(undefined, TOOLS)),
    ProviderError,
  );
  assertEquals(e.message, "Provider returned HTTP 400: bad model");
  assertEquals(seen.length, 1);
});

Deno.test("an error body whose message is an object or a list is shown as the provider's words", async () => {
  const { fetch } = scripted([
    () =>
      new Response(
        JSON.stringify([{
          error: { code: 400, message: "API key not valid. Please pass a valid API key." },
        }]),
        { status: 400 },
      ),
  ]);
  const e = await assertRejects(() => collect(provider(fetch)), ProviderError);
  assertEquals(
    e.message,
    "Provider returned HTTP 400: API key not valid. Please pass a valid API key.",
  );
});

Deno.test("the API key and header secrets are redacted from an HTTP error before it is cut", async () => {
  const key = "sk-live-" + "z".repeat(30);
  // The provider echoes the key right where a 2000-character cut would fall.
  const echo = "e".repeat(1995) + key;
  const { fetch } = scripted([
    () => new Response(JSON.stringify({ error: { message: echo } }), { status: 401 }),
  ]);
  const e = await assertRejects(() => collect(provider(fetch, { apiKey: key })), ProviderError);
  assert(!e.message.includes("sk-live"), "no fragment of the key");
  assert(!e.message.includes("zzzz"), "no fragment of the key");
});

Deno.test("URL credentials in base_url never appear in an unreachable-provider message", async () => {
  const f = (() => Promise.reject(new TypeError("connection refused"))) as typeof fetch;
  const p = provider(f, { baseUrl: "http://alice:hunter2@127.0.0.1:9/v1" });
  const e = await assertRejects(() => collect(p), ProviderError);
  assertMatch(
    e.message,
    /^Cannot reach the provider at http:\/\/\[redacted\]@127\.0\.0\.1:9\/v1\/chat\/completions/,
  );
  assert(!e.message.includes("hunter2"));
});

Deno.test("a 503 whose error body never ends is still retried, after a bounded wait for the body", async () => {
  const endless = () =>
    new Response(
      new ReadableStream<Uint8Array>({
        start(c) {
          c.enqueue(enc.encode('{"error":{"message":"busy'));
        },
      }),
      { status: 503 },
    );
  const ok = () => new Response(body(sse(text("ok"), stop)).stream);
  const { fetch, seen } = scripted([endless, ok]);
  const events = await collect(provider(fetch, { idleTimeoutMs: 60_000 }));
  assertEquals(events.at(-1)!.type, "done");
  assertEquals(seen.length, 2);
});

Deno.test("a final HTTP error whose body never ends shows what arrived", async () => {
  const endless = () =>
    new Response(
      new ReadableStream<Uint8Array>({
        start(c) {
          c.enqueue(enc.encode("upstream says no"));
        },
      }),
      { status: 400 },
    );
  const { fetch } = scripted([endless]);
  const e = await assertRejects(
    () => collect(provider(fetch, { idleTimeoutMs: 60_000 })),
    ProviderError,
  );
  assertEquals(e.message, "Provider returned HTTP 400: upstream says no");
});

Deno.test("a 200 JSON answer where a stream was asked for is a provider_error with its message", async () => {
  const { fetch } = scripted([
    () =>
      new Response(JSON.stringify({ error: { message: "quota exceeded for this key" } }), {
        status: 200,
        headers: { "content-type": "application/json" },
      }),
  ]);
  const e = await assertRejects(() => collect(provider(fetch)), ProviderError);
  assertEquals(
    [e.code, e.message],
    [
      "provider_error",
      "Provider answered with JSON instead of an event stream: quota exceeded for this key",
    ],
  );
});

Deno.test("the models remembered as refusing tools are bounded: past 64 the memory starts over", async () => {
  const refusal = JSON.stringify({ error: { message: "this model does not support tools" } });
  const seen: Array<{ model: string; tools: boolean }> = [];
  const f = ((_u: string | URL | Request, init?: RequestInit) => {
    const json = JSON.parse(String(init?.body));
    seen.push({ model: json.model, tools: "tools" in json });
    return Promise.resolve(
      "tools" in json
        ? new Response(refusal, { status: 400 })
        : new Response(body(sse(text("ok"), stop)).stream),
    );
  }) as typeof fetch;
  const p = provider(f);
  const ask = (model: string) => collect(p, { ...request(undefined, TOOLS), model });
  await ask("m0");
  await ask("m0");
  // Remembered: the second call of m0 went without tools at once.
  assertEquals(seen.slice(-1), [{ model: "m0", tools: false }]);
  for (let i = 1; i <= 64; i++) await ask(`m${i}`);
  seen.length = 0;
  await ask("m0");
  assertEquals(
    seen[0],
    { model: "m0", tools: true },
    "m0 was forgotten once the bound was crossed",
  );
});

Deno.test("history data kept for other APIs never goes out on Chat Completions", async () => {
  const { fetch, seen } = scripted([() => new Response(body(sse(text("ok"), stop)).stream)]);
  await collect(provider(fetch), {
    ...request(),
    messages: [
      { role: "user", content: "hi" },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "t1", type: "function", function: { name: "glob", arguments: "{}" } }],
        provider_data: {
          anthropic_thinking: [{ type: "thinking", thinking: "x", signature: "s" }],
        },
      },
      { role: "tool", tool_call_id: "t1", content: "none" },
    ],
  });
  const sent = (seen[0]!.json.messages as Array<Record<string, unknown>>)[1]!;
  assertEquals(Object.keys(sent).sort(), ["content", "role", "tool_calls"]);
});

Deno.test("a provider echoing the Basic authorization of base_url credentials has it redacted", async () => {
  const f = ((_u: string | URL | Request, _init?: RequestInit) =>
    Promise.resolve(
      new Response(
        JSON.stringify({
          error: { message: `bad auth Basic ${btoa("alice:hunter2pw")} for alice:hunter2pw` },
        }),
        { status: 401 },
      ),
    )) as typeof fetch;
  const p = provider(f, { baseUrl: "http://alice:hunter2pw@127.0.0.1:9/v1" });
  const e = await assertRejects(() => collect(p), ProviderError);
  assert(
    !e.message.includes("hunter2pw") && !e.message.includes(btoa("alice:hunter2pw")),
    e.message,
  );
});
