/**
 * Resuming recorded sessions over the real server: history, seq and configuration survive a
 * restart; wrong cwd, unknown ids and `last` without sessions are refused with the contract's
 * codes; one process at a time may hold a session.
 */
import { assert, assertEquals, assertMatch } from "../../support/assert.ts";
import { MockOpenAI, text } from "../../support/mock_openai.ts";
import { ANTHROPIC } from "../provider/api_dialects.ts";
import { replay } from "../../../server/sessions/records.ts";
import type { ServerProcess } from "../../support/server_process.ts";
import {
  sessionFile,
  startServer,
  startSession,
  waitFor,
  withRecording,
  withServer,
  withStateDir,
  withStoppedServer,
  workspace,
} from "./support.ts";

/** The highest seq a server sent. */
function lastSeqOf(server: ServerProcess): number {
  return Math.max(0, ...server.events.map((e) => typeof e.seq === "number" ? e.seq : 0));
}

Deno.test("a resumed session continues seq and sends the earlier messages to the provider", async () => {
  const usage = (n: number) => ({ usage: { prompt_tokens: 100 * n, completion_tokens: n } });
  await withRecording([
    text("one", usage(1)),
    text("two", usage(2)),
    text("three", usage(3)),
  ], async ({ mock, state, cwd }) => {
    const a = await startServer(state, mock.baseUrl);
    let id: string;
    let lastSeq: number;
    try {
      const started = await startSession(a, cwd);
      id = started.session_id;
      await a.runTurn(id, "first prompt");
      const { done } = await a.runTurn(id, "second prompt");
      lastSeq = done.seq;
      assertEquals(await a.stop(), 0);
    } catch (e) {
      await a.kill();
      throw e;
    }
    await withServer(state, mock.baseUrl, async (b) => {
      const resumed = await startSession(b, cwd, id);
      assertEquals(resumed.type, "session.started");
      assertEquals(resumed.session_id, id);
      assertEquals(resumed.resumed, true);
      assertEquals(resumed.last_seq, lastSeq);
      const { t, done } = await b.runTurn(id, "third prompt");
      assertEquals(t.seq, lastSeq + 1);
      assertEquals(done.type, "turn.completed");
      const sent = mock.requests[2]!.body.messages.filter((m) => m.role !== "system");
      assertEquals(sent.map((m) => [m.role, m.content]), [
        ["user", "first prompt"],
        ["assistant", "one"],
        ["user", "second prompt"],
        ["assistant", "two"],
        ["user", "third prompt"],
      ]);
      assertEquals(b.schemaErrors, []);
      assertEquals(await b.stop(), 0);
      // The usage totals went on from where the first server left them.
      const recorded = replay(await Deno.readTextFile(sessionFile(state, id)));
      assertEquals(recorded.usage, { input_tokens: 600, output_tokens: 6 });
      assertEquals(recorded.turns, 3);
      assertEquals(recorded.seq, lastSeqOf(b));
    });
  });
});

Deno.test("resume last opens the newest session recorded for the cwd", async () => {
  await withRecording(() => text("ok"), async ({ mock, state, cwd }) => {
    const other = await workspace(state);
    const a = await startServer(state, mock.baseUrl);
    let newest: string;
    try {
      const older = (await startSession(a, cwd)).session_id;
      await a.runTurn(older, "older");
      newest = (await startSession(a, cwd)).session_id;
      await a.runTurn(newest, "newest");
      const elsewhere = (await startSession(a, other)).session_id;
      await a.runTurn(elsewhere, "another directory, later");
      await a.stop();
    } catch (e) {
      await a.kill();
      throw e;
    }
    await withServer(state, mock.baseUrl, async (b) => {
      const resumed = await startSession(b, cwd, "last");
      assertEquals(resumed.session_id, newest);
    });
  });
});

Deno.test("resuming an unknown id is session_not_found and names the id", async () => {
  await withRecording([], async ({ mock, state, cwd }) => {
    await withServer(state, mock.baseUrl, async (s) => {
      const unknown = crypto.randomUUID();
      const reply = await startSession(s, cwd, unknown);
      assertEquals(reply.type, "error");
      assertEquals(reply.code, "session_not_found");
      assertMatch(reply.message, new RegExp(unknown));
      const traversal = await startSession(s, cwd, "../../etc/passwd");
      assertEquals(traversal.code, "session_not_found");
      assertEquals(traversal.fatal, false);
    });
  });
});

Deno.test("resume last with no session recorded for the cwd is session_not_found", async () => {
  await withRecording([], async ({ mock, state, cwd }) => {
    await withServer(state, mock.baseUrl, async (s) => {
      const reply = await startSession(s, cwd, "last");
      assertEquals(reply.type, "error");
      assertEquals(reply.code, "session_not_found");
      assertMatch(reply.message, /no recorded session/);
    });
  });
});

Deno.test("resuming a session recorded for another cwd is invalid_request", async () => {
  await withRecording([text("ok")], async ({ mock, state, cwd }) => {
    const other = await workspace(state);
    const id = await withStoppedServer(state, mock.baseUrl, async (a) => {
      const id = (await startSession(a, cwd)).session_id;
      await a.runTurn(id, "hello");
      await a.stop();
      return id;
    });
    await withServer(state, mock.baseUrl, async (b) => {
      const reply = await startSession(b, other, id);
      assertEquals(reply.type, "error");
      assertEquals(reply.code, "invalid_request");
      assertMatch(reply.message, /was recorded for/);
      // The refusal released the file: the right directory still resumes it.
      const ok = await startSession(b, cwd, id);
      assertEquals(ok.type, "session.started");
    });
  });
});

Deno.test("a session open in one server cannot be resumed by another at the same time", async () => {
  await withRecording([text("ok")], async ({ mock, state, cwd }) => {
    const a = await startServer(state, mock.baseUrl);
    const b = await startServer(state, mock.baseUrl);
    try {
      const id = (await startSession(a, cwd)).session_id;
      await a.runTurn(id, "hello");
      const reply = await startSession(b, cwd, id);
      assertEquals(reply.type, "error");
      assertEquals(reply.code, "invalid_request");
      assertMatch(reply.message, /open in another scv process/);
      assertEquals(await a.stop(), 0);
      const later = await startSession(b, cwd, id);
      assertEquals(later.type, "session.started");
    } finally {
      await a.kill();
      await b.kill();
    }
  });
});

Deno.test("session.configure's model and policy apply to the next turn and survive a resume", async () => {
  await withRecording(() => text("ok"), async ({ mock, state, cwd }) => {
    const id = await withStoppedServer(state, mock.baseUrl, async (a) => {
      const id = (await startSession(a, cwd)).session_id;
      await a.send({
        type: "session.configure",
        request_id: "cfg",
        session_id: id,
        model: "second-model",
        approval_policy: "always",
      });
      const configured = await a.nextOf("session.configured");
      assertEquals(configured.model, "second-model");
      assertEquals(configured.approval_policy, "always");
      assertEquals(configured.seq, 1);
      await a.runTurn(id, "hello");
      assertEquals(mock.requests.at(-1)!.body.model, "second-model");
      await a.stop();
      return id;
    }, { config: { model: "first-model" } });
    const b = await startServer(state, mock.baseUrl, { config: { model: "first-model" } });
    try {
      const resumed = await startSession(b, cwd, id);
      assertEquals(resumed.model, "second-model");
      await b.runTurn(id, "again");
      assertEquals(mock.requests.at(-1)!.body.model, "second-model");
    } finally {
      await b.kill();
    }
  });
});

Deno.test("session.configure refuses a turn in progress and an unknown policy", async () => {
  await withRecording([{ kind: "silent" }], async ({ mock, state, cwd }) => {
    await withServer(state, mock.baseUrl, async (s) => {
      const id = (await startSession(s, cwd)).session_id;
      await s.send({
        type: "session.configure",
        request_id: "bad",
        session_id: id,
        approval_policy: "sometimes",
      });
      const bad = await s.next((e) => e.request_id === "bad");
      assertEquals(bad.code, "invalid_request");
      const t = await s.startTurn(id, "hang");
      await s.send({ type: "session.configure", request_id: "busy", session_id: id, model: "x" });
      const busy = await s.next((e) => e.request_id === "busy");
      assertEquals(busy.code, "turn_active");
      await s.cancelTurn(id, t.turn_id);
    });
  });
});

Deno.test("a session that never got a prompt leaves no file", async () => {
  await withRecording([], async ({ mock, state, cwd }) => {
    await withServer(state, mock.baseUrl, async (s) => {
      await startSession(s, cwd);
      assertEquals(await s.stop(), 0);
    });
    await waitFor(async () => {
      try {
        await Deno.stat(state.sessions);
        return true;
      } catch {
        return false;
      }
    }, "the sessions directory");
    const files = [...Deno.readDirSync(state.sessions)].map((e) => e.name)
      .filter((n) => n.endsWith(".jsonl") && n !== "index.jsonl");
    assertEquals(files, []);
    assert((Deno.statSync(state.sessions).mode! & 0o777) === 0o700, "directory is 0700");
  });
});

Deno.test("without write permission for the state directory a session still runs, with one notice", async () => {
  await withRecording([text("ok")], async ({ mock, state, cwd }) => {
    const s = await startServer(state, mock.baseUrl, {
      denoFlags: [
        "--no-prompt",
        "--allow-read",
        `--allow-write=${cwd}`,
        "--allow-env",
        "--allow-net",
        "--allow-run=bash",
      ],
    });
    try {
      const id = (await startSession(s, cwd)).session_id;
      const { done } = await s.runTurn(id, "hello");
      assertEquals(done.type, "turn.completed");
      await s.send({ type: "session.list", request_id: "list" });
      const list = await s.next((e) => e.request_id === "list");
      assertEquals(list.code, "invalid_request");
      assertEquals(await s.stop(), 0);
      const notices = s.stderr.split("\n").filter((l) => l.includes("record"));
      assertEquals(notices.length, 1, s.stderr);
      assertMatch(notices[0]!, /sessions are not recorded: cannot use/);
    } finally {
      await s.kill();
    }
  });
});

Deno.test("a session resumes when a dummy key and a literal provider header spell part of its workspace path", async () => {
  // OPENAI_API_KEY=ollama (Ollama's documented dummy key) in ~/src/ollama-tools, and
  // OpenRouter's `X-Title: scv`: neither may rewrite the recorded cwd.
  const mock = await MockOpenAI.start([text("one"), text("two")]);
  try {
    await withStateDir(async (state) => {
      const dir = `${state.home}/ollama-scv-tools`;
      await Deno.mkdir(dir);
      const cwd = await Deno.realPath(dir);
      const options = {
        config: { provider_headers: { "X-Title": "scv" } },
        env: { OPENAI_API_KEY: "ollama" },
      };
      const id = await withStoppedServer(state, mock.baseUrl, async (a) => {
        const id = (await startSession(a, cwd)).session_id;
        await a.runTurn(id, "ask ollama about scv");
        assertEquals(await a.stop(), 0);
        return id;
      }, options);
      const b = await startServer(state, mock.baseUrl, options);
      try {
        const resumed = await startSession(b, cwd, "last");
        assertEquals(resumed.type, "session.started", JSON.stringify(resumed));
        assertEquals(resumed.session_id, id);
        const { done } = await b.runTurn(id, "again");
        assertEquals(done.type, "turn.completed");
        const sent = mock.requests[1]!.body.messages.filter((m) => m.role === "user");
        // Neither the literal header value nor a dummy key is a secret: the prompt comes back as
        // it was written.
        assertEquals(sent[0]!.content, "ask ollama about scv");
        assertEquals(await b.stop(), 0);
      } catch (e) {
        await b.kill();
        throw e;
      }
    });
  } finally {
    await mock.close();
  }
});

Deno.test("an Anthropic session recorded with a one-letter dummy key resumes with its signed thinking intact", async () => {
  // Before: the key "k" was replaced inside every string, `"type":"thinking"` included, and
  // the resumed tool turn was refused (a final assistant message must start with thinking).
  const refused: string[] = [];
  await withRecording((req) => {
    const refusal = ANTHROPIC.refuses(req.body);
    if (refusal) {
      refused.push(refusal.body);
      return { kind: "status", status: refusal.status, body: refusal.body };
    }
    const messages = req.body.messages as Array<{ role: string; content: unknown }>;
    const last = messages.at(-1)!;
    const answersTool = Array.isArray(last.content) &&
      (last.content as Array<{ type?: string }>).some((b) => b.type === "tool_result");
    return answersTool
      ? ANTHROPIC.text("done", "checked the listing")
      : ANTHROPIC.tools([{ name: "glob", arguments: { pattern: "*" } }], "thinking about it");
  }, async ({ mock, state, cwd }) => {
    const options = {
      config: { provider: "anthropic" as const, approval_policy: "never" as const },
      env: { ANTHROPIC_API_KEY: "k" },
    };
    const id = await withStoppedServer(state, mock.baseUrl, async (a) => {
      const id = (await startSession(a, cwd)).session_id;
      assertEquals((await a.runTurn(id, "list the files")).done.type, "turn.completed");
      assertEquals(await a.stop(), 0);
      return id;
    }, options);
    const b = await startServer(state, mock.baseUrl, options);
    try {
      assertEquals((await startSession(b, cwd, id)).type, "session.started");
      const { done } = await b.runTurn(id, "list them again");
      assertEquals(done.type, "turn.completed", JSON.stringify(done));
      assertEquals(refused, []);
      assertEquals(await b.stop(), 0);
    } catch (e) {
      await b.kill();
      throw e;
    }
  });
});
