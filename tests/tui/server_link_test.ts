import { assert, assertEquals, assertRejects } from "../support/assert.ts";
import { PeonClient } from "../../protocol/client.ts";
import { handshake } from "../../tui/server_link.ts";

/** The `initialized` reply to `req`. */
function initialized(req: Record<string, unknown>) {
  return {
    type: "initialized",
    request_id: req.request_id,
    protocol_version: 1,
    server: { name: "s", version: "0" },
  };
}

/** A client whose "server" answers each request with `answer(request)`, or not at all. */
function clientWith(answer: (req: Record<string, unknown>) => unknown | undefined) {
  const toServer = new TransformStream<Uint8Array, Uint8Array>();
  const toClient = new TransformStream<Uint8Array, Uint8Array>();
  void (async () => {
    const w = toClient.writable.getWriter();
    const dec = new TextDecoder();
    let buf = "";
    try {
      for await (const chunk of toServer.readable) {
        buf += dec.decode(chunk, { stream: true });
        let nl: number;
        while ((nl = buf.indexOf("\n")) !== -1) {
          const reply = answer(JSON.parse(buf.slice(0, nl)));
          buf = buf.slice(nl + 1);
          if (reply !== undefined) {
            await w.write(new TextEncoder().encode(JSON.stringify(reply) + "\n"));
          }
        }
      }
    } catch {
      // The client aborted its side.
    }
    await w.close().catch(() => {});
  })();
  return new PeonClient(toClient.readable, toServer.writable);
}

Deno.test("handshake gives up in plain words when the server does not answer initialize", async () => {
  const client = clientWith(() => undefined);
  const e = await assertRejects(() => handshake(client, "/w", 100));
  assert(e.message.includes('did not answer "initialize" within 0.1 s'), e.message);
  assert(e.message.includes("Peon server"), e.message);
  await client.abort();
});

Deno.test("handshake gives up when session.start gets no answer", async () => {
  const client = clientWith((req) => req.type === "initialize" ? initialized(req) : undefined);
  const e = await assertRejects(() => handshake(client, "/w", 100));
  assert(e.message.includes('did not answer "session.start"'), e.message);
  await client.abort();
});

Deno.test("handshake resolves with session.started", async () => {
  const client = clientWith((req) =>
    req.type === "initialize" ? initialized(req) : {
      type: "session.started",
      request_id: req.request_id,
      session_id: "s1",
      cwd: "/w",
      model: "m",
      context_max_tokens: 1000,
      max_server_frame_bytes: 8388608,
      max_transcript_bytes: 1000,
      max_transcript_items: 10,
      max_prompt_history_bytes: 100,
      max_prompt_history_items: 10,
    }
  );
  const started = await handshake(client, "/w", 1000);
  assertEquals(started?.session_id, "s1");
  await client.close();
});

function started(req: Record<string, unknown>, id: string) {
  return {
    type: "session.started",
    request_id: req.request_id,
    session_id: id,
    cwd: "/w",
    model: "m",
    context_max_tokens: 1000,
    max_server_frame_bytes: 8388608,
    max_transcript_bytes: 1000,
    max_transcript_items: 10,
    max_prompt_history_bytes: 100,
    max_prompt_history_items: 10,
  };
}

/** A server with no recorded session: every resume is `session_not_found`. */
function nothingRecorded(seen: Record<string, unknown>[]) {
  return clientWith((req) => {
    seen.push(req);
    if (req.type === "initialize") return initialized(req);
    if (req.resume !== undefined) {
      return {
        type: "error",
        request_id: req.request_id,
        code: "session_not_found",
        message: "No session is recorded for this workspace",
        fatal: false,
      };
    }
    return started(req, "fresh");
  });
}

Deno.test("handshake asks for reasoning and turn notices in initialize", async () => {
  const seen: Record<string, unknown>[] = [];
  const client = nothingRecorded(seen);
  await handshake(client, "/w", 1000);
  assertEquals(seen[0]?.capabilities, { reasoning: true, notices: true });
  await client.close();
});

Deno.test("scv -c with nothing recorded starts a new session and says so", async () => {
  const seen: Record<string, unknown>[] = [];
  const said: string[] = [];
  const client = nothingRecorded(seen);
  const s = await handshake(client, "/w", 1000, { kind: "resume", resume: "last" }, (t) => {
    said.push(t);
  });
  assertEquals(s?.session_id, "fresh");
  assertEquals(seen.map((r) => r.resume), [undefined, "last", undefined]);
  assert(said[0]?.includes("a new one starts"), said.join("|"));
  await client.close();
});

Deno.test("scv --resume with an unknown id fails with the server's words", async () => {
  const client = nothingRecorded([]);
  const e = await assertRejects(() =>
    handshake(client, "/w", 1000, { kind: "resume", resume: "nope" })
  );
  assert(e.message.includes("session_not_found"), e.message);
  await client.close();
});

Deno.test("the picker's handshake only initializes: no session is started", async () => {
  const seen: Record<string, unknown>[] = [];
  const client = nothingRecorded(seen);
  assertEquals(await handshake(client, "/w", 1000, { kind: "pick" }), undefined);
  assertEquals(seen.map((r) => r.type), ["initialize"]);
  await client.close();
});
