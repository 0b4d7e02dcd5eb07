/**
 * Local models as they really run, over the real server against scripted llama.cpp-shaped
 * servers: the window the server reports caps `context_max_tokens`, an overflow answer is
 * compacted and retried once, a loading model is waited for, a refusal of tools is remembered
 * by the next process, and a `length` finish with a full context says so.
 */
import { assert, assertEquals, assertMatch } from "../support/assert.ts";
import { jsonError, LocalModelServer, textAnswer } from "../support/local_model_server.ts";
import { type Ev, ServerProcess } from "../support/server_process.ts";

const NOT_FOUND = () => new Response("not found", { status: 404 });

/** llama.cpp's overflow answer, as `server-context.cpp` writes it. */
function overflow(nPrompt: number, nCtx: number): Response {
  return jsonError(400, {
    code: 400,
    message: `request (${nPrompt} tokens) exceeds the available context size (${nCtx} tokens), ` +
      `try increasing it`,
    type: "exceed_context_size_error",
    n_prompt_tokens: nPrompt,
    n_ctx: nCtx,
  });
}

/** llama.cpp's answer while it loads the model (`server-http.cpp`). */
const LOADING = () =>
  jsonError(503, { message: "Loading model", type: "unavailable_error", code: 503 });

async function withLocal(
  server: LocalModelServer,
  options: { config?: Record<string, unknown>; state?: string },
  fn: (scv: ServerProcess, sessionId: string) => Promise<void>,
): Promise<void> {
  const scv = await ServerProcess.start({
    config: { base_url: server.baseUrl, model: "local", ...options.config },
    ...(options.state ? { env: { XDG_STATE_HOME: options.state } } : {}),
  });
  try {
    const { sessionId } = await scv.open(undefined, { notices: true });
    await fn(scv, sessionId);
  } finally {
    await scv.kill();
  }
}

function notices(scv: ServerProcess, turnId: string): string[] {
  return scv.events.filter((e: Ev) => e.type === "turn.notice" && e.turn_id === turnId)
    .map((e) => e.message as string);
}

Deno.test("the window llama.cpp reports at /v1/models caps context_max_tokens, said in a notice and in the next session.started", async () => {
  const state = await Deno.makeTempDir();
  const server = new LocalModelServer((req) => {
    if (req.path === "/v1/models") {
      return Response.json({
        object: "list",
        data: [{ id: "qwen.gguf", meta: { n_ctx: 2048, n_ctx_train: 32768 } }],
      });
    }
    if (req.path.endsWith("/chat/completions")) return textAnswer("hi");
    return NOT_FOUND();
  });
  try {
    await withLocal(server, { state }, async (scv, sessionId) => {
      const started = scv.events.find((e) => e.type === "session.started")!;
      assertEquals(started.context_max_tokens, 128000, "nothing learnt before the first turn");
      const { t, done } = await scv.runTurn(sessionId, "hello");
      assertEquals(done.type, "turn.completed");
      const said = notices(scv, t.turn_id);
      assert(
        said.some((m) => /context window is 2048 tokens \(\/v1\/models meta\.n_ctx\)/.test(m)),
        JSON.stringify(said),
      );
    });
    // The next process knows it from the start.
    await withLocal(server, { state }, (scv) => {
      const started = scv.events.find((e) => e.type === "session.started")!;
      assertEquals(started.context_max_tokens, 2048);
      return Promise.resolve();
    });
  } finally {
    await server.close();
    await Deno.remove(state, { recursive: true });
  }
});

Deno.test("an overflow answer is compacted to the window it names and retried once, and the turn completes", async () => {
  const server = new LocalModelServer((req, chat) => {
    if (!req.path.endsWith("/chat/completions")) return NOT_FOUND();
    if (chat === 2) return overflow(3300, 2500);
    return textAnswer(`answer ${chat}`);
  });
  try {
    await withLocal(server, {}, async (scv, sessionId) => {
      assertEquals((await scv.runTurn(sessionId, "a".repeat(4000))).done.type, "turn.completed");
      assertEquals((await scv.runTurn(sessionId, "b".repeat(4000))).done.type, "turn.completed");
      const { t, done } = await scv.runTurn(sessionId, "third");
      assertEquals(done.type, "turn.completed", JSON.stringify(done));
      assertEquals(server.chats.length, 4, "one retry, no more");
      const refused = server.chats[2]!.body.messages.length;
      const retried = server.chats[3]!.body.messages.length;
      assert(retried < refused, `${retried} messages retried, ${refused} refused`);
      assertEquals(server.chats[3]!.body.messages.at(-1).content, "third");
      assert(scv.events.some((e) => e.type === "context.compacted" && e.turn_id === t.turn_id));
      assert(notices(scv, t.turn_id).some((m) => /context window is full/.test(m)));
    });
  } finally {
    await server.close();
  }
});

Deno.test("a prompt that still overflows after compacting fails with context_limit, not provider_error", async () => {
  const server = new LocalModelServer((req) =>
    req.path.endsWith("/chat/completions") ? overflow(900, 800) : NOT_FOUND()
  );
  try {
    await withLocal(server, {}, async (scv, sessionId) => {
      const { done } = await scv.runTurn(sessionId, "hello");
      assertEquals(done.type, "turn.failed");
      assertEquals(done.code, "context_limit");
      // Compacting could not bring the turn under the window the answer named.
      assertMatch(done.message, /the provider's window of 800 tokens/);
      assert(server.chats.length <= 2, `${server.chats.length} requests`);
    });
  } finally {
    await server.close();
  }
});

Deno.test("a model still loading is waited for, with one notice, and the turn completes", async () => {
  const server = new LocalModelServer((req, chat) => {
    if (!req.path.endsWith("/chat/completions")) return NOT_FOUND();
    return chat < 3 ? LOADING() : textAnswer("loaded");
  });
  try {
    await withLocal(server, {}, async (scv, sessionId) => {
      const { t, done } = await scv.runTurn(sessionId, "hello");
      assertEquals(done.type, "turn.completed");
      assertEquals(server.chats.length, 4);
      const loading = notices(scv, t.turn_id).filter((m) => /loading the model/.test(m));
      assertEquals(loading.length, 1);
      assertMatch(loading[0]!, /provider_startup_timeout_ms/);
    });
  } finally {
    await server.close();
  }
});

Deno.test("a model that keeps loading past provider_startup_timeout_ms fails the turn with the server's words", async () => {
  const server = new LocalModelServer((req) =>
    req.path.endsWith("/chat/completions") ? LOADING() : NOT_FOUND()
  );
  try {
    await withLocal(server, { config: { provider_startup_timeout_ms: 1200 } }, async (scv, id) => {
      const { done } = await scv.runTurn(id, "hello");
      assertEquals(done.type, "turn.failed");
      assertEquals(done.code, "provider_error");
      assertMatch(done.message, /HTTP 503.*Loading model/);
      assert(server.chats.length >= 2, "it asked again while waiting");
    });
  } finally {
    await server.close();
  }
});

Deno.test("a cancel ends the wait for a loading model", async () => {
  const server = new LocalModelServer((req) =>
    req.path.endsWith("/chat/completions") ? LOADING() : NOT_FOUND()
  );
  try {
    await withLocal(server, {}, async (scv, sessionId) => {
      const t = await scv.startTurn(sessionId, "hello");
      await scv.next((e) => e.type === "turn.notice" && /loading the model/.test(e.message));
      await scv.send({
        type: "turn.cancel",
        request_id: "c",
        session_id: sessionId,
        turn_id: t.turn_id,
      });
      assertEquals((await scv.terminal(t.turn_id)).type, "turn.cancelled");
    });
  } finally {
    await server.close();
  }
});

/** The paths asked before the `n`th chat request (from 0), in order. */
function askedBeforeChat(server: LocalModelServer, n: number): string[] {
  const paths: string[] = [];
  let chats = 0;
  for (const r of server.requests) {
    if (r.path.endsWith("/chat/completions")) {
      if (chats++ === n) return paths;
    } else paths.push(r.path);
  }
  return paths;
}

Deno.test("a server that listed the model and named no window is not asked for the next process's first turn, only from its second", async () => {
  const state = await Deno.makeTempDir();
  let named = false;
  const server = new LocalModelServer((req) => {
    if (req.path === "/v1/models") {
      const entry = named ? { id: "local", meta: { n_ctx: 2048 } } : { id: "local" };
      return Response.json({ object: "list", data: [entry] });
    }
    if (req.path.endsWith("/chat/completions")) return textAnswer("hi");
    return NOT_FOUND();
  });
  try {
    await withLocal(server, { state }, async (scv, sessionId) => {
      assertEquals((await scv.runTurn(sessionId, "one")).done.type, "turn.completed");
    });
    assertEquals(askedBeforeChat(server, 0).sort(), [
      "/api/show",
      "/api/v0/models",
      "/props",
      "/v1/models",
    ]);
    const memory = JSON.parse(await Deno.readTextFile(`${state}/scv/provider_memory.json`));
    assertEquals(Object.values(memory.windows).map((e) => (e as { none?: true }).none), [true]);
    named = true; // the server now says its window: the next process's second turn learns it
    await withLocal(server, { state }, async (scv, sessionId) => {
      assertEquals((await scv.runTurn(sessionId, "two")).done.type, "turn.completed");
      assertEquals(askedBeforeChat(server, 1).length, 4, "nothing asked before the first turn");
      const { t, done } = await scv.runTurn(sessionId, "three");
      assertEquals(done.type, "turn.completed");
      assertEquals(askedBeforeChat(server, 2).length, 5, "asked again before the second");
      assert(notices(scv, t.turn_id).some((m) => /context window is 2048 tokens/.test(m)));
    });
  } finally {
    await server.close();
    await Deno.remove(state, { recursive: true });
  }
});

Deno.test("a server whose model list lacks the model is asked again by the next process's first turn", async () => {
  const state = await Deno.makeTempDir();
  const server = new LocalModelServer((req) => {
    if (req.path === "/v1/models") {
      return Response.json({ object: "list", data: [{ id: "other" }, { id: "another" }] });
    }
    if (req.path.endsWith("/chat/completions")) return textAnswer("hi");
    return NOT_FOUND();
  });
  try {
    for (let n = 0; n < 2; n++) {
      await withLocal(server, { state }, async (scv, sessionId) => {
        assertEquals((await scv.runTurn(sessionId, "one")).done.type, "turn.completed");
      });
      assertEquals(askedBeforeChat(server, n).length, 4 * (n + 1));
    }
  } finally {
    await server.close();
    await Deno.remove(state, { recursive: true });
  }
});

Deno.test("tools refused are remembered by the next process: one request, without tools or tool instructions", async () => {
  const state = await Deno.makeTempDir();
  const server = new LocalModelServer((req) => {
    if (!req.path.endsWith("/chat/completions")) return NOT_FOUND();
    if (req.body.tools) {
      return jsonError(500, { code: 500, message: "tools param requires --jinja flag" });
    }
    return textAnswer("no tools here");
  });
  try {
    await withLocal(server, { state }, async (scv, sessionId) => {
      assertEquals((await scv.runTurn(sessionId, "one")).done.type, "turn.completed");
    });
    assertEquals(server.chats.length, 2, "the refusal, then the request without tools");
    await withLocal(server, { state }, async (scv, sessionId) => {
      const { t, done } = await scv.runTurn(sessionId, "two");
      assertEquals(done.type, "turn.completed");
      assert(notices(scv, t.turn_id).some((m) => /cannot use tools here/.test(m)));
    });
    assertEquals(server.chats.length, 3, "the next process sent one request");
    const last = server.chats[2]!.body;
    assertEquals(last.tools, undefined);
    const system = last.messages[0].content as string;
    assert(!system.includes("Use the tools"), system);
    assertMatch(system, /No tools are available/);
    // Nothing secret or beyond the base URL and model is kept.
    const file = await Deno.readTextFile(`${state}/scv/provider_memory.json`);
    assertMatch(file, /tools param requires --jinja flag/);
    assertEquals((await Deno.stat(`${state}/scv/provider_memory.json`)).mode! & 0o777, 0o600);
  } finally {
    await server.close();
    await Deno.remove(state, { recursive: true });
  }
});

Deno.test("a refusal of tools older than a day is forgotten", async () => {
  const state = await Deno.makeTempDir();
  const server = new LocalModelServer((req) =>
    req.path.endsWith("/chat/completions") ? textAnswer("ok") : NOT_FOUND()
  );
  try {
    const key = `${server.baseUrl} local`;
    await Deno.mkdir(`${state}/scv`, { recursive: true });
    const old = Date.now() - 25 * 60 * 60 * 1000;
    await Deno.writeTextFile(
      `${state}/scv/provider_memory.json`,
      JSON.stringify({
        version: 1,
        tools_refused: { [key]: { at: old, reason: "stale" } },
        windows: {},
      }),
    );
    await withLocal(server, { state }, async (scv, sessionId) => {
      assertEquals((await scv.runTurn(sessionId, "one")).done.type, "turn.completed");
    });
    assertEquals(server.chats.length, 1);
    assert(server.chats[0]!.body.tools, "the stale refusal was not applied");
  } finally {
    await server.close();
    await Deno.remove(state, { recursive: true });
  }
});

Deno.test("a length finish that fills the context window says the context is full, not the output limit", async () => {
  const server = new LocalModelServer((req) => {
    if (req.path === "/v1/models") {
      return Response.json({ data: [{ id: "m", meta: { n_ctx: 4096 } }] });
    }
    if (!req.path.endsWith("/chat/completions")) return NOT_FOUND();
    return textAnswer(
      "and so on and so",
      { prompt_tokens: 3000, completion_tokens: 1096 },
      "length",
    );
  });
  try {
    await withLocal(server, {}, async (scv, sessionId) => {
      const { t } = await scv.runTurn(sessionId, "go on forever");
      const said = notices(scv, t.turn_id);
      assert(
        said.some((m) => /context window is full \(4096 of 4096 tokens/.test(m)),
        JSON.stringify(said),
      );
      assert(!said.some((m) => /output limit/.test(m)));
    });
  } finally {
    await server.close();
  }
});

Deno.test("a refusal of tools over an hour old is asked again, and cleared when the server takes tools", async () => {
  const state = await Deno.makeTempDir();
  const server = new LocalModelServer((req) =>
    req.path.endsWith("/chat/completions") ? textAnswer("tools work now") : NOT_FOUND()
  );
  try {
    const path = `${state}/scv/provider_memory.json`;
    await Deno.mkdir(`${state}/scv`, { recursive: true });
    const at = Date.now() - 2 * 60 * 60 * 1000;
    await Deno.writeTextFile(
      path,
      JSON.stringify({
        version: 1,
        tools_refused: {
          [`${server.baseUrl} local`]: { at, reason: "tools param requires --jinja flag" },
        },
        windows: {},
      }),
    );
    await withLocal(server, { state }, async (scv, sessionId) => {
      assertEquals((await scv.runTurn(sessionId, "one")).done.type, "turn.completed");
    });
    assert(server.chats[0]!.body.tools, "asked again with tools");
    const file = JSON.parse(await Deno.readTextFile(path));
    assertEquals(file.tools_refused, {}, "the refusal is forgotten");
  } finally {
    await server.close();
    await Deno.remove(state, { recursive: true });
  }
});
