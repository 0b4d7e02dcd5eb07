/**
 * A scripted OpenAI-compatible Chat Completions server for tests, on 127.0.0.1 with a free
 * port; it answers the Responses (`/responses`) and Anthropic (`/messages`) endpoints the same
 * way, so their scripts are raw SSE text (`done: false`: no `[DONE]`). Each request takes the next {@link MockReply} of the script (or asks a function), and
 * every request body is recorded for assertions.
 *
 * @example
 * ```ts ignore
 * const mock = await MockOpenAI.start([text("Hello")]);
 * // point OPENAI_BASE_URL (or config.base_url) at mock.baseUrl
 * await mock.close();
 * ```
 *
 * @module
 */

/** One scripted answer. */
export type MockReply =
  | {
    kind: "stream";
    /** SSE events: objects are sent as `data: JSON`, strings as raw SSE text. */
    events: Array<Record<string, unknown> | string>;
    /** Pause before each event, in ms. */
    delayMs?: number;
    /** After the events, keep the connection open without sending anything more. */
    hang?: boolean;
    /** Send `data: [DONE]` at the end (default true unless hang). */
    done?: boolean;
  }
  | { kind: "status"; status: number; body: string; headers?: Record<string, string> }
  /** A complete, pre-encoded SSE body sent as it is (benchmarks: no per-event cost). */
  | { kind: "raw"; body: Uint8Array<ArrayBuffer> }
  /** Sends headers, then never a byte of body. */
  | { kind: "silent" }
  /** Streams this many bytes of endless deltas (to exceed a cap), in chunks of `chunk` chars. */
  | { kind: "flood"; bytes: number; chunk?: number };

/** A recorded request. */
export interface MockRequest {
  body: {
    model: string;
    messages: Array<Record<string, unknown>>;
    tools?: Array<Record<string, unknown>>;
    stream: boolean;
    stream_options?: Record<string, unknown>;
    [key: string]: unknown;
  };
  headers: Headers;
  /** The path and query asked for, e.g. `/v1/chat/completions`. */
  path: string;
}

/** A script: a list of replies taken in order, or a function of the request. */
export type MockScript = MockReply[] | ((req: MockRequest, index: number) => MockReply);

/** A chunk carrying assistant text. */
export function textChunk(content: string): Record<string, unknown> {
  return { id: "c", object: "chat.completion.chunk", choices: [{ index: 0, delta: { content } }] };
}

/**
 * A reply streaming `text` in pieces of `pieceSize` characters, then a usage chunk; `delayMs`
 * apart, so that each comes in a read of its own, or all in one write.
 */
export function text(
  content: string,
  options: {
    pieceSize?: number;
    usage?: { prompt_tokens: number; completion_tokens: number };
    delayMs?: number;
  } = {},
): MockReply {
  const size = options.pieceSize ?? 8;
  const events: Array<Record<string, unknown>> = [
    { choices: [{ index: 0, delta: { role: "assistant", content: "" } }] },
  ];
  for (let i = 0; i < content.length; i += size) events.push(textChunk(content.slice(i, i + size)));
  events.push({ choices: [{ index: 0, delta: {}, finish_reason: "stop" }] });
  if (options.usage) events.push({ choices: [], usage: options.usage });
  return { kind: "stream", events, ...(options.delayMs ? { delayMs: options.delayMs } : {}) };
}

/** A reply asking for tool calls; each call's arguments may be an object or raw text. */
export function toolCalls(
  calls: Array<{ id?: string; name: string; arguments: unknown }>,
  options: { content?: string; usage?: { prompt_tokens: number; completion_tokens: number } } = {},
): MockReply {
  const events: Array<Record<string, unknown>> = [];
  if (options.content) events.push(textChunk(options.content));
  calls.forEach((c, index) => {
    const args = typeof c.arguments === "string" ? c.arguments : JSON.stringify(c.arguments);
    const half = Math.floor(args.length / 2);
    // Split the arguments over two chunks, as real providers do.
    events.push({
      choices: [{
        index: 0,
        delta: {
          tool_calls: [{
            index,
            id: c.id ?? `call_${index}`,
            type: "function",
            function: { name: c.name, arguments: args.slice(0, half) },
          }],
        },
      }],
    });
    events.push({
      choices: [{
        index: 0,
        delta: { tool_calls: [{ index, function: { arguments: args.slice(half) } }] },
      }],
    });
  });
  events.push({ choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }] });
  if (options.usage) events.push({ choices: [], usage: options.usage });
  return { kind: "stream", events };
}

const encoder = new TextEncoder();

/** The running mock server. */
export class MockOpenAI {
  /** Every request received, in order. */
  readonly requests: MockRequest[] = [];
  /** The `authorization` header of each `GET /models`, in order (null when it had none). */
  readonly modelListAuth: (string | null)[] = [];
  #server: Deno.HttpServer;
  #script: MockScript;
  #open = new Set<ReadableStreamDefaultController<Uint8Array>>();
  #timers = new Set<ReturnType<typeof setTimeout>>();
  /** The base URL to configure, ending in `/v1`. */
  readonly baseUrl: string;

  #maxRecorded: number;
  #count = 0;
  #models: string[] | undefined;

  private constructor(script: MockScript, maxRecorded: number, models?: string[]) {
    this.#script = script;
    this.#maxRecorded = maxRecorded;
    this.#models = models;
    this.#server = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen: () => {} },
      (req) => this.#handle(req),
    );
    const addr = this.#server.addr as Deno.NetAddr;
    this.baseUrl = `http://127.0.0.1:${addr.port}/v1`;
  }

  /**
   * Starts a mock server with a script; `maxRecorded` bounds `requests` (long benchmarks);
   * `models` are listed at `GET /v1/models` (otherwise that path is not found).
   */
  static start(
    script: MockScript,
    options: { maxRecorded?: number; models?: string[] } = {},
  ): Promise<MockOpenAI> {
    return Promise.resolve(new MockOpenAI(script, options.maxRecorded ?? Infinity, options.models));
  }

  /** How many requests arrived in all (also those no longer in `requests`). */
  get requestCount(): number {
    return this.#count;
  }

  async #handle(req: Request): Promise<Response> {
    const url = new URL(req.url);
    if (url.pathname.endsWith("/models") && req.method === "GET" && this.#models) {
      this.modelListAuth.push(req.headers.get("authorization"));
      return Response.json({ object: "list", data: this.#models.map((id) => ({ id })) });
    }
    // Every wire API's endpoint under any base path (Azure's /openai/v1, say).
    if (!/\/(?:chat\/completions|responses|messages)$/.test(url.pathname)) {
      return new Response("not found", { status: 404 });
    }
    const body = await req.json();
    const record: MockRequest = { body, headers: req.headers, path: url.pathname + url.search };
    const index = this.#count++;
    this.requests.push(record);
    if (this.requests.length > this.#maxRecorded) this.requests.shift();
    const reply = typeof this.#script === "function"
      ? this.#script(record, index)
      : this.#script[index];
    if (!reply) {
      return Response.json({ error: { message: `mock: no reply scripted for request ${index}` } }, {
        status: 500,
      });
    }
    if (reply.kind === "status") {
      return new Response(reply.body, { status: reply.status, headers: reply.headers ?? {} });
    }
    const sse = { "content-type": "text/event-stream", "cache-control": "no-cache" };
    const open = this.#open;
    const timers = this.#timers;
    const wait = (ms: number) =>
      new Promise<void>((r) => {
        const t = setTimeout(() => {
          timers.delete(t);
          r();
        }, ms);
        timers.add(t);
      });
    if (reply.kind === "raw") return new Response(reply.body, { headers: sse });
    if (reply.kind === "silent") {
      return new Response(
        new ReadableStream<Uint8Array>({
          start: (c) => void open.add(c),
          cancel: () => {},
        }),
        { headers: sse },
      );
    }
    if (reply.kind === "flood") {
      let sent = 0;
      const piece = "x".repeat(reply.chunk ?? 1000);
      return new Response(
        new ReadableStream<Uint8Array>({
          pull(c) {
            if (sent >= reply.bytes) {
              c.enqueue(encoder.encode("data: [DONE]\n\n"));
              c.close();
              return;
            }
            const line = encoder.encode(`data: ${JSON.stringify(textChunk(piece))}\n\n`);
            sent += line.length;
            c.enqueue(line);
          },
        }),
        { headers: sse },
      );
    }
    let cancelled = false;
    const stream = new ReadableStream<Uint8Array>({
      async start(c) {
        open.add(c);
        for (const ev of reply.events) {
          if (reply.delayMs) await wait(reply.delayMs);
          if (cancelled) return;
          const text = typeof ev === "string" ? ev : `data: ${JSON.stringify(ev)}\n\n`;
          c.enqueue(encoder.encode(text));
        }
        if (reply.hang) return;
        if (reply.done ?? true) c.enqueue(encoder.encode("data: [DONE]\n\n"));
        open.delete(c);
        c.close();
      },
      cancel() {
        cancelled = true;
      },
    });
    return new Response(stream, { headers: sse });
  }

  /** Stops the server, ending any hanging responses. */
  async close(): Promise<void> {
    for (const t of this.#timers) clearTimeout(t);
    for (const c of this.#open) {
      try {
        c.close();
      } catch {
        // Already closed or cancelled.
      }
    }
    await this.#server.shutdown();
  }
}
