/**
 * No piece of the key survives a cut: every path by which a provider's own text reaches a
 * `turn.failed` message (a non-JSON event, an SSE error, an error event of each API, an HTTP
 * error body, a JSON body instead of a stream) redacts before it cuts, for any message, any key
 * and any position of the key around the cuts at 200 and 2,000 characters.
 */
import fc from "fast-check";
import { assert } from "../../support/assert.ts";
import { AnthropicProvider } from "../../../server/provider/anthropic.ts";
import { OpenAIProvider } from "../../../server/provider/openai.ts";
import { OpenAIResponsesProvider } from "../../../server/provider/openai_responses.ts";
import type { ProviderOptions } from "../../../server/provider/options.ts";
import { MIN_FRAGMENT_CHARS, Redactor } from "../../../server/provider/redact.ts";
import { type Provider, ProviderError } from "../../../server/provider/types.ts";

/** Every piece of `key` that is {@link MIN_FRAGMENT_CHARS} long. */
function pieces(key: string): string[] {
  const out: string[] = [];
  for (let i = 0; i + MIN_FRAGMENT_CHARS <= key.length; i++) {
    out.push(key.slice(i, i + MIN_FRAGMENT_CHARS));
  }
  return out;
}

type Make = (o: ProviderOptions) => Provider;
const chat: Make = (o) => new OpenAIProvider({ ...o, retryBaseMs: 1 });
const anthropic: Make = (o) => new AnthropicProvider(o);
const responses: Make = (o) => new OpenAIResponsesProvider(o);
const j = (v: unknown) => JSON.stringify(v);

/** One path: the provider, and the answer quoting `msg` (status, content type, body). */
interface Path {
  name: string;
  make: Make;
  answer(msg: string): { status: number; type: string; body: string };
}
const stream = (body: string) => ({ status: 200, type: "text/event-stream", body });

const PATHS: Path[] = [
  { name: "chat, non-JSON event", make: chat, answer: (m) => stream(`data: <${m}\n\n`) },
  {
    name: "chat, error chunk",
    make: chat,
    answer: (m) => stream(`data: ${j({ error: { message: m } })}\n\n`),
  },
  {
    name: "chat, SSE error event",
    make: chat,
    answer: (m) => stream(`event: error\ndata: ${m}\n\n`),
  },
  {
    name: "chat, vLLM error object",
    make: chat,
    answer: (m) => stream(`data: ${j({ object: "error", message: m })}\n\n`),
  },
  {
    name: "anthropic, error event",
    make: anthropic,
    answer: (m) => stream(`event: error\ndata: ${j({ type: "error", error: { message: m } })}\n\n`),
  },
  { name: "anthropic, non-JSON event", make: anthropic, answer: (m) => stream(`data: <${m}\n\n`) },
  {
    name: "responses, error event",
    make: responses,
    answer: (m) => stream(`data: ${j({ type: "error", message: m })}\n\n`),
  },
  {
    name: "responses, response.failed",
    make: responses,
    answer: (m) =>
      stream(`data: ${j({ type: "response.failed", response: { error: { message: m } } })}\n\n`),
  },
  {
    name: "HTTP 400 body",
    make: chat,
    answer: (m) => ({ status: 400, type: "application/json", body: j({ error: { message: m } }) }),
  },
  {
    name: "HTTP 502 text body",
    make: anthropic,
    answer: (m) => ({ status: 418, type: "text/html", body: `<html>${m}</html>` }),
  },
  {
    name: "JSON instead of a stream",
    make: responses,
    answer: (m) => ({ status: 200, type: "application/json", body: j({ error: { message: m } }) }),
  },
];

/** The `turn.failed` message the path gives for `msg` with `key` as the provider's key. */
async function failure(path: Path, key: string, msg: string): Promise<string> {
  const a = path.answer(msg);
  const fetch = (() =>
    Promise.resolve(
      new Response(a.body, { status: a.status, headers: { "content-type": a.type } }),
    )) as typeof globalThis.fetch;
  const p = path.make({
    baseUrl: "http://127.0.0.1:9/v1",
    apiKey: key,
    idleTimeoutMs: 30_000,
    retry: { maxAttempts: 1, baseMs: 1, maxWaitMs: 1 },
    fetch,
  });
  try {
    for await (
      const _ of p.stream({
        model: "m",
        messages: [{ role: "user", content: "hi" }],
        tools: [],
        signal: new AbortController().signal,
      })
    ) {
      // Nothing to keep: the call fails.
    }
  } catch (e) {
    assert(e instanceof ProviderError, `${path.name}: ${String(e)}`);
    return e.message;
  }
  throw new Error(`${path.name}: the call did not fail`);
}

/** A key of a realistic alphabet and length, and a message with it near a cut. */
const KEY = fc.stringMatching(/^(sk-|sk-ant-|)[A-Za-z0-9_-]{8,120}$/);
const FILLER = fc.string({
  unit: fc.constantFrom("a", " ", "é", "-", "Z", "9", "😀"),
  maxLength: 30,
});
const CASE = fc.record({
  key: KEY,
  // Where the key starts: around both cuts (plus the length of scv's own words before them).
  at: fc.oneof(
    fc.integer({ min: 150, max: 260 }),
    fc.integer({ min: 1900, max: 2100 }),
    fc.nat(3000),
  ),
  filler: FILLER,
  after: FILLER,
  twice: fc.boolean(),
  partial: fc.nat(120),
});

type Case = typeof CASE extends fc.Arbitrary<infer T> ? T : never;

function message(c: Case, key: string): string {
  const unit = c.filler || "x";
  const pre = unit.repeat(Math.ceil(c.at / unit.length)).slice(0, c.at);
  // A provider may echo part of the key as well as the whole of it.
  const echo = key.slice(0, Math.max(MIN_FRAGMENT_CHARS, c.partial));
  return pre + key + c.after + (c.twice ? ` again ${echo} ${key}` : "");
}

Deno.test("no piece of the key of 8 characters or more survives any cut on any provider path", async () => {
  await fc.assert(
    fc.asyncProperty(CASE, fc.constantFrom(...PATHS), async (c, path) => {
      const got = await failure(path, c.key, message(c, c.key));
      // scv's own words, or filler, may spell part of the key by chance: those are not a leak.
      const without = await failure(path, c.key, message(c, ""));
      for (const piece of pieces(c.key)) {
        assert(
          !got.includes(piece) || without.includes(piece),
          `${path.name}: ${JSON.stringify(piece)} of the key survived in ${JSON.stringify(got)}`,
        );
      }
    }),
    { numRuns: 300 },
  );
});

Deno.test("a cut that ends inside the key shows none of its start", async () => {
  const key = "sk-proj-" + "Q7x9".repeat(12);
  for (const path of PATHS) {
    for (let at = 185; at <= 2005; at += at < 205 || at >= 1985 ? 1 : 1780) {
      const got = await failure(path, key, "=".repeat(at) + key + " tail");
      // Its first character right after the filler would be the start of a cut key.
      assert(!got.includes("=s"), `${path.name} at ${at}: ${got}`);
    }
  }
});

Deno.test("the redactor removes any piece of a secret 8 characters or longer, and keeps shorter ones", () => {
  const r = new Redactor(["sk-abcdefghijklmnop"]);
  fc.assert(
    fc.property(fc.nat(11), fc.integer({ min: 8, max: 19 }), fc.string(), (i, n, around) => {
      const piece = "sk-abcdefghijklmnop".slice(i, i + n);
      fc.pre(piece.length >= 8);
      const out = r.redact(`${around}${piece}${around}`);
      for (const p of pieces("sk-abcdefghijklmnop")) assert(!out.includes(p), out);
    }),
  );
  assert(r.redact("see sk-abcd here") === "see sk-abcd here");
});
