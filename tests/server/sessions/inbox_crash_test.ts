/**
 * The inbox across a crash (scv 0.3, docs/steering.md "Durable"): a server killed with SIGKILL
 * while a steer and queued prompts wait leaves them recorded; a new server resuming the session
 * lists them in `session.started.queued` and starts none of them; the next turn settles them.
 */
import { assert, assertEquals } from "../../support/assert.ts";
import { text, toolCalls } from "../../support/mock_openai.ts";
import type { Ev, ServerProcess } from "../../support/server_process.ts";
import { startServer, startSession, waitFor, withRecording, withServer } from "./support.ts";

const held = { config: { approval_policy: "always" as const } };

/** Sends a request and waits for the reply carrying its request id. */
async function ask(p: ServerProcess, message: Record<string, unknown>): Promise<Ev> {
  await p.send(message);
  return await p.next((e) => e.request_id === message.request_id);
}

Deno.test("after kill -9 with a steer and queued prompts waiting, resume lists them and starts none", async () => {
  await withRecording([
    toolCalls([{ name: "bash", arguments: { command: "true" } }]),
    text("a new answer"),
  ], async ({ mock, state, cwd }) => {
    const a = await startServer(state, mock.baseUrl, held);
    let id: string;
    try {
      id = (await startSession(a, cwd)).session_id;
      const t = await a.startTurn(id, "run true");
      await a.next((e) => e.type === "approval.requested" && e.turn_id === t.turn_id);
      const steer = { type: "turn.steer", session_id: id, turn_id: t.turn_id };
      assertEquals(
        (await ask(a, { ...steer, request_id: "s1", prompt: "mind the tests" })).type,
        "turn.steer.accepted",
      );
      for (
        const [rid, prompt] of [["q1", "then the docs"], ["q2", "then a release"], ["q3", "gone"]]
      ) {
        const queued = { type: "turn.start", request_id: rid, session_id: id, prompt, queue: true };
        assertEquals((await ask(a, queued)).type, "turn.queued");
      }
      const taken = {
        type: "turn.dequeue",
        request_id: "d",
        session_id: id,
        queued_request_id: "q3",
      };
      assertEquals((await ask(a, taken)).type, "turn.dequeued");
      // The server is alive and holding the turn when it is killed.
      assertEquals(a.child.pid > 0 && !a.events.some((e) => e.type === "turn.completed"), true);
    } finally {
      await a.kill(); // SIGKILL while everything waits
    }
    await withServer(state, mock.baseUrl, async (b) => {
      const resumed = await startSession(b, cwd, id);
      assertEquals(resumed.type, "session.started");
      assertEquals(resumed.queued, [
        { request_id: "s1", prompt: "mind the tests", kind: "steer" },
        { request_id: "q1", prompt: "then the docs", kind: "queue" },
        { request_id: "q2", prompt: "then a release", kind: "queue" },
      ]);
      // None started: a request answered after the resume comes with no turn before it.
      const h = await ask(b, { type: "session.history", request_id: "h", session_id: id });
      assertEquals(h.type, "history.item");
      await b.next((e) => e.type === "history.end" && e.request_id === "h");
      assert(!b.events.some((e) => e.type === "turn.started"), "a waiting prompt was started");
      assertEquals(mock.requests.length, 1);
      // Sending something (the TUI offers what waited) is an ordinary turn, and settles the list.
      const { done } = await b.runTurn(id, "mind the tests");
      assertEquals(done.type, "turn.completed");
    }, held);
    await withServer(state, mock.baseUrl, async (c) => {
      const again = await startSession(c, cwd, id);
      assertEquals(again.type, "session.started");
      assertEquals(again.queued, undefined);
    }, held);
  });
});

Deno.test("a steer that entered and a queued prompt that ran are not listed after a crash", async () => {
  await withRecording([
    toolCalls([{ name: "bash", arguments: { command: "true" } }]),
    text("steered answer"),
    text("queued answer"),
    { kind: "stream", events: [], hang: true },
  ], async ({ mock, state, cwd }) => {
    const a = await startServer(state, mock.baseUrl, held);
    let id: string;
    try {
      id = (await startSession(a, cwd)).session_id;
      const t = await a.startTurn(id, "run true");
      const approval = await a.next((e) => e.type === "approval.requested");
      await ask(a, {
        type: "turn.steer",
        request_id: "s1",
        session_id: id,
        turn_id: t.turn_id,
        prompt: "steer",
      });
      await ask(a, {
        type: "turn.start",
        request_id: "q1",
        session_id: id,
        prompt: "queued",
        queue: true,
      });
      await a.send({
        type: "approval.resolve",
        request_id: "ok",
        session_id: id,
        approval_id: approval.approval_id,
        approved: true,
      });
      const q = await a.next((e) => e.type === "turn.started" && e.request_id === "q1");
      await a.terminal(q.turn_id);
      const last = await a.startTurn(id, "hangs");
      assertEquals(last.type, "turn.started");
      await waitFor(() => mock.requests.length === 4, "the last turn's provider request");
    } finally {
      await a.kill();
    }
    await withServer(state, mock.baseUrl, async (b) => {
      const resumed = await startSession(b, cwd, id);
      assertEquals(resumed.type, "session.started");
      assertEquals(resumed.queued, undefined);
    }, held);
  });
});
