/**
 * A scripted local model server for tests (llama.cpp, Ollama, LM Studio and vLLM shapes), on
 * 127.0.0.1 with a free port: every path is answered by one handler, and every request is
 * recorded (chat requests with their parsed body).
 *
 * @module
 */

/** A recorded request. */
export interface LocalRequest {
  method: string;
  /** The path, e.g. `/v1/chat/completions` or `/props`. */
  path: string;
  /** The parsed JSON body (chat requests), else undefined. */
  // deno-lint-ignore no-explicit-any
  body: any;
}

/** Answers one request; `chat` counts only `/chat/completions` requests, from 0. */
export type LocalHandler = (req: LocalRequest, chat: number) => Response | Promise<Response>;

/** An SSE answer with these chunks and `[DONE]`. */
export function sse(chunks: Array<Record<string, unknown>>): Response {
  const body = chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join("") + "data: [DONE]\n\n";
  return new Response(body, { headers: { "content-type": "text/event-stream" } });
}

/** A streamed text answer ending with `finish_reason`, with usage when given. */
export function textAnswer(
  text: string,
  usage?: { prompt_tokens: number; completion_tokens: number },
  finishReason = "stop",
): Response {
  return sse([
    { choices: [{ index: 0, delta: { role: "assistant", content: text } }] },
    { choices: [{ index: 0, delta: {}, finish_reason: finishReason }] },
    ...(usage ? [{ choices: [], usage }] : []),
  ]);
}

/** A JSON error answer. */
export function jsonError(status: number, error: Record<string, unknown>): Response {
  return Response.json({ error }, { status });
}

/** The scripted server. */
export class LocalModelServer {
  /** Every request, in order. */
  readonly requests: LocalRequest[] = [];
  /** The chat requests only. */
  readonly chats: LocalRequest[] = [];
  /** `http://127.0.0.1:PORT/v1`. */
  readonly baseUrl: string;
  #server: Deno.HttpServer;

  /** Starts serving with `handler`. */
  constructor(handler: LocalHandler) {
    this.#server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (r) => {
      const url = new URL(r.url);
      const text = await r.text();
      let body: unknown;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        body = undefined;
      }
      const req: LocalRequest = { method: r.method, path: url.pathname, body };
      this.requests.push(req);
      const isChat = url.pathname.endsWith("/chat/completions");
      if (isChat) this.chats.push(req);
      return await handler(req, isChat ? this.chats.length - 1 : -1);
    });
    this.baseUrl = `http://127.0.0.1:${(this.#server.addr as Deno.NetAddr).port}/v1`;
  }

  /** Stops the server. */
  async close(): Promise<void> {
    await this.#server.shutdown();
  }
}
