/**
 * The context window each local server reports, parsed from its real answer shapes, and the
 * probe: which servers it asks, in what order, bounded in time and size, never throwing.
 */
import { assertEquals } from "../../support/assert.ts";
import {
  probeServerWindow,
  windowFromModels,
  windowFromOllamaShow,
  windowFromProps,
} from "../../../server/provider/window.ts";

Deno.test("each server's window answer is parsed from its own shape", () => {
  assertEquals(
    windowFromModels({
      data: [{
        id: "m.gguf",
        object: "model",
        meta: { n_ctx: 2048, n_ctx_train: 32768, n_vocab: 151936 },
      }],
    }, "local"),
    { tokens: 2048, source: "meta.n_ctx" },
  );
  assertEquals(
    windowFromModels({
      data: [{ id: "a", max_model_len: 1 }, { id: "Qwen/Qwen3-8B", max_model_len: 40960 }],
    }, "Qwen/Qwen3-8B"),
    { tokens: 40960, source: "max_model_len" },
  );
  assertEquals(
    windowFromModels({
      data: [{
        id: "qwen3-8b",
        state: "loaded",
        max_context_length: 32768,
        loaded_context_length: 8192,
      }, { id: "other" }],
    }, "qwen3-8b"),
    { tokens: 8192, source: "loaded_context_length" },
  );
  assertEquals(
    windowFromModels({ data: [{ id: "a" }, { id: "b", max_model_len: 9 }] }, "c"),
    undefined,
  );
  assertEquals(
    windowFromProps({ default_generation_settings: { n_ctx: 4096 }, total_slots: 1 })?.tokens,
    4096,
  );
  assertEquals(
    windowFromOllamaShow({ parameters: 'num_ctx                        16384\nstop "x"' })?.tokens,
    16384,
  );
  assertEquals(
    windowFromOllamaShow({ model_info: { "llama.context_length": 131072 } })?.source,
    "model_info llama.context_length",
  );
  for (const junk of [null, 1, "x", [], { data: "x" }, { data: [{ meta: { n_ctx: -1 } }] }]) {
    assertEquals(windowFromModels(junk, "m"), undefined);
    assertEquals(windowFromProps(junk), undefined);
    assertEquals(windowFromOllamaShow(junk), undefined);
  }
});

Deno.test("the probe asks a hosted API nothing", async () => {
  let asked = 0;
  const fetch = () => (asked++, Promise.resolve(new Response("{}")));
  assertEquals(
    await probeServerWindow({
      baseUrl: "https://api.openai.com/v1",
      model: "m",
      headers: {},
      fetch,
    }),
    { listed: false },
  );
  assertEquals(asked, 0);
});

Deno.test("the probe finds Ollama's window at /api/show after /v1/models says nothing, with the key sent", async () => {
  const asked: string[] = [];
  const fetch = (url: string | URL | Request, init?: RequestInit) => {
    const u = String(url);
    asked.push(
      `${init?.method} ${new URL(u).pathname} ${
        (init?.headers as Record<string, string>).authorization
      }`,
    );
    if (u.endsWith("/v1/models")) {
      return Promise.resolve(Response.json({ data: [{ id: "qwen3:8b", owned_by: "library" }] }));
    }
    if (u.endsWith("/api/show")) {
      return Promise.resolve(Response.json({ parameters: "num_ctx 8192", model_info: {} }));
    }
    return Promise.resolve(new Response("404 page not found", { status: 404 }));
  };
  const w = await probeServerWindow({
    baseUrl: "http://127.0.0.1:11434/v1",
    model: "qwen3:8b",
    headers: { authorization: "Bearer k" },
    fetch,
  });
  assertEquals(w, {
    window: { tokens: 8192, source: "/api/show parameters num_ctx" },
    listed: true,
  });
  assertEquals(asked[0], "GET /v1/models Bearer k");
  assertEquals(asked.slice(1).sort(), [
    "GET /api/v0/models Bearer k",
    "GET /props Bearer k",
    "POST /api/show Bearer k",
  ]);
});

Deno.test("the probe says whether /v1/models listed the model by name", async () => {
  const probe = (data: unknown[]) =>
    probeServerWindow({
      baseUrl: "http://127.0.0.1:8000/v1",
      model: "m",
      headers: {},
      fetch: (url: string | URL | Request) =>
        Promise.resolve(
          String(url).endsWith("/v1/models")
            ? Response.json({ data })
            : new Response("no", { status: 404 }),
        ),
    });
  assertEquals(await probe([{ id: "m" }]), { listed: true });
  assertEquals(await probe([{ id: "x" }, { name: "m" }]), { listed: true });
  // One other model: its window would be taken (the only entry), but the model is not listed.
  assertEquals(await probe([{ id: "other" }]), { listed: false });
  assertEquals(await probe([{ id: "other", max_model_len: 4096 }]), {
    window: { tokens: 4096, source: "/v1/models max_model_len" },
    listed: false,
  });
});

Deno.test("a probe whose server never answers, or answers past the size bound, resolves undefined in time", async () => {
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    onListen: () => {},
    onError: () => new Response(null, { status: 500 }),
  }, (req) => {
    const path = new URL(req.url).pathname;
    if (path === "/v1/models") {
      // Never answers; the handler ends when the client gives up.
      return new Promise<Response>((_, reject) =>
        req.signal.addEventListener("abort", () => reject(new Error("gone")))
      );
    }
    // A body past the bound: cut, so not JSON.
    return new Response(
      `{"default_generation_settings":{"n_ctx":1},"pad":"${"x".repeat(600_000)}"}`,
    );
  });
  try {
    const port = (server.addr as Deno.NetAddr).port;
    const w = await probeServerWindow({
      baseUrl: `http://127.0.0.1:${port}/v1`,
      model: "m",
      headers: {},
      timeoutMs: 300,
    });
    assertEquals(w, { listed: false });
  } finally {
    await server.shutdown();
  }
});
