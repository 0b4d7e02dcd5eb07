/**
 * The scv 0.2 session requests over the real server: session.list (order, filter, limit, frame
 * bound), session.history (transcript bounds, heads), session.compact (now, nothing to drop,
 * recorded), and their refusals.
 */
import { assert, assertEquals, assertMatch } from "../../support/assert.ts";
import { text, toolCalls } from "../../support/mock_openai.ts";
import type { Ev, ServerProcess } from "../../support/server_process.ts";
import {
  startServer,
  startSession,
  withRecording,
  withServer,
  withStoppedServer,
  workspace,
} from "./support.ts";

async function request(server: ServerProcess, message: Record<string, unknown>): Promise<Ev> {
  const requestId = `r-${crypto.randomUUID().slice(0, 8)}`;
  await server.send({ ...message, request_id: requestId });
  return await server.next((e) => e.request_id === requestId && e.type !== "history.item");
}

Deno.test("session.list answers newest first with titles cut to 80 characters, per cwd and limit", async () => {
  await withRecording(() => text("ok"), async ({ mock, state, cwd }) => {
    const other = await workspace(state);
    await withServer(state, mock.baseUrl, async (s) => {
      const ids: string[] = [];
      for (const [dir, prompt] of [[cwd, "a".repeat(200)], [other, "b"], [cwd, "c\n\nc"]]) {
        const id = (await startSession(s, dir!)).session_id;
        await s.runTurn(id, prompt!);
        ids.push(id);
      }
      const all = await request(s, { type: "session.list" });
      assertEquals(all.type, "session.list");
      assertEquals(all.sessions.map((e: Ev) => e.session_id), [...ids].reverse());
      assertEquals(all.truncated, false);
      const mine = await request(s, { type: "session.list", cwd, limit: 1 });
      assertEquals(mine.sessions.length, 1);
      assertEquals(mine.sessions[0].session_id, ids[2]);
      assertEquals(mine.sessions[0].title, "c c");
      assertEquals(mine.truncated, true);
      const oldest = (await request(s, { type: "session.list", cwd })).sessions.at(-1);
      assertEquals(oldest.title, "a".repeat(80));
      assertEquals(oldest.turns, 1);
      const bad = await request(s, { type: "session.list", cwd: "relative/dir" });
      assertEquals(bad.code, "invalid_request");
      assertEquals(s.schemaErrors, []);
    });
  });
});

Deno.test("session.list stays within max_server_frame_bytes and says it was truncated", async () => {
  await withRecording(() => text("ok"), async ({ mock, state, cwd }) => {
    const limit = 4096;
    const s = await startServer(state, mock.baseUrl, {
      config: { max_server_frame_bytes: limit },
    });
    try {
      for (let i = 0; i < 20; i++) {
        const id = (await startSession(s, cwd)).session_id;
        await s.runTurn(id, `prompt number ${i} `.repeat(8));
      }
      const reply = await request(s, { type: "session.list", limit: 20 });
      assertEquals(reply.type, "session.list");
      assertEquals(reply.truncated, true);
      assert(reply.sessions.length > 0 && reply.sessions.length < 20);
      const line = s.rawLines.find((l) => l.includes('"type":"session.list"'))!;
      assert(new TextEncoder().encode(line).length <= limit, `${line.length} bytes`);
    } finally {
      await s.kill();
    }
  });
});

Deno.test("session.list and resume are refused when persist_sessions is false", async () => {
  await withRecording(() => text("ok"), async ({ mock, state, cwd }) => {
    await withServer(state, mock.baseUrl, async (s) => {
      const id = (await startSession(s, cwd)).session_id;
      await s.runTurn(id, "not recorded");
      const list = await request(s, { type: "session.list" });
      assertEquals(list.code, "invalid_request");
      assertMatch(list.message, /persist_sessions is false/);
      assertEquals((await startSession(s, cwd, "last")).code, "invalid_request");
    }, { config: { persist_sessions: false } });
    const exists = await Deno.stat(state.sessions).then(() => true, () => false);
    assertEquals(exists, false, "nothing was written");
  });
});

Deno.test("session.history keeps the newest items within max_transcript_items and heads big contents", async () => {
  const big = "x".repeat(40000);
  await withRecording([
    text("one"),
    text("two"),
    toolCalls([{
      id: "b1",
      name: "bash",
      arguments: { command: `printf '${"y".repeat(30000)}'` },
    }]),
    text(big),
  ], async ({ mock, state, cwd }) => {
    const s = await startServer(state, mock.baseUrl, {
      config: { max_transcript_items: 4, approval_policy: "never" },
    });
    try {
      const id = (await startSession(s, cwd)).session_id;
      await s.runTurn(id, "p1");
      await s.runTurn(id, "p2");
      await s.runTurn(id, "p3");
      const end = await request(s, { type: "session.history", session_id: id });
      assertEquals(end.type, "history.end");
      const items = s.events.filter((e) =>
        e.type === "history.item" && e.request_id === end.request_id
      );
      assertEquals(end.items, 4);
      assertEquals(items.length, 4);
      assertEquals(end.omitted, 3, "p1, one, p2 left out");
      assertEquals(items.map((i) => i.role), ["assistant", "user", "tool", "assistant"]);
      assertEquals(items[0]!.content, "two");
      assertEquals(items[2]!.name, "bash");
      assertEquals(items.at(-1)!.truncated, true);
      assert(items.at(-1)!.content.length < big.length);
      assert(big.startsWith(items.at(-1)!.content), "the head of the message");
      assertEquals(s.schemaErrors, []);
    } finally {
      await s.kill();
    }
  });
});

Deno.test("session.history, session.compact and session.list refuse what they cannot do", async () => {
  await withRecording([{ kind: "silent" }], async ({ mock, state, cwd }) => {
    await withServer(state, mock.baseUrl, async (s) => {
      const id = (await startSession(s, cwd)).session_id;
      const unknown = await request(s, { type: "session.history", session_id: "nope" });
      assertEquals(unknown.code, "session_not_found");
      const t = await s.startTurn(id, "hang");
      const h = await request(s, { type: "session.history", session_id: id });
      assertEquals(h.code, "turn_active");
      const c = await request(s, { type: "session.compact", session_id: id });
      assertEquals(c.code, "turn_active");
      await s.cancelTurn(id, t.turn_id);
      const long = await request(s, {
        type: "session.compact",
        session_id: id,
        instructions: "z".repeat(262145),
      });
      assertEquals(long.code, "invalid_request");
      assertMatch(long.message, /max_prompt_bytes/);
    });
  });
});

Deno.test("session.compact with one turn removes nothing; with more it keeps the last turn, recorded", async () => {
  await withRecording(() => text("answer"), async ({ mock, state, cwd }) => {
    const id = await withStoppedServer(state, mock.baseUrl, async (a) => {
      const id = (await startSession(a, cwd)).session_id;
      await a.runTurn(id, "only turn");
      const none = await request(a, { type: "session.compact", session_id: id });
      assertEquals(none.type, "context.compacted");
      assertEquals(none.removed_messages, 0);
      assertEquals(none.turn_id, undefined);
      assertEquals(none.before_tokens, none.after_tokens);
      await a.runTurn(id, "second turn");
      const { done } = await a.runTurn(id, "third turn");
      const compacted = await request(a, {
        type: "session.compact",
        session_id: id,
        instructions: "keep the colour blue",
      });
      assertEquals(compacted.removed_messages, 4);
      assertEquals(compacted.seq, done.seq + 1);
      assert(compacted.after_tokens > 0);
      await a.stop();
      return id;
    });
    await withServer(state, mock.baseUrl, async (b) => {
      await startSession(b, cwd, id);
      await b.runTurn(id, "fourth turn");
      const sent = mock.requests.at(-1)!.body.messages.filter((m) => m.role !== "system");
      assertMatch(String(sent[0]!.content), /^\[scv: earlier conversation compacted\]/);
      assertMatch(String(sent[0]!.content), /keep the colour blue/);
      assertEquals(sent.slice(1).map((m) => m.content), [
        "third turn",
        "answer",
        "fourth turn",
      ]);
      const end = await request(b, { type: "session.history", session_id: id });
      const first = b.events.find((e) =>
        e.type === "history.item" && e.request_id === end.request_id
      )!;
      assertEquals(first.compaction, true);
    });
  });
});
