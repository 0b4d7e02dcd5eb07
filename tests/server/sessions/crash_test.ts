/**
 * Crashes and secrets: the server is killed with SIGKILL mid-turn (while the answer streams,
 * while a tool runs) and a new server resumes the session with every completed step; a torn
 * record is reported once; the provider key is never in any file of the state directory.
 */
import { assert, assertEquals, assertMatch } from "../../support/assert.ts";
import { text, textChunk, toolCalls } from "../../support/mock_openai.ts";
import { processesWith } from "../../support/probes.ts";
import type { Ev, ServerProcess } from "../../support/server_process.ts";
import {
  filesUnder,
  sessionFile,
  startServer,
  startSession,
  withRecording,
  withServer,
} from "./support.ts";

/** The history a server replays for a session, as `history.item` events. */
async function history(server: ServerProcess, sessionId: string): Promise<Ev[]> {
  const requestId = `h-${crypto.randomUUID().slice(0, 8)}`;
  await server.send({ type: "session.history", request_id: requestId, session_id: sessionId });
  await server.next((e) => e.type === "history.end" && e.request_id === requestId);
  return server.events.filter((e) => e.type === "history.item" && e.request_id === requestId);
}

Deno.test("after kill -9 during streaming, resume has every completed step and goes on", async () => {
  await withRecording([
    text("first answer"),
    { kind: "stream", events: [textChunk("half an ans")], hang: true },
    text("third answer"),
  ], async ({ mock, state, cwd }) => {
    const a = await startServer(state, mock.baseUrl);
    let id: string;
    try {
      id = (await startSession(a, cwd)).session_id;
      await a.runTurn(id, "first prompt");
      const t = await a.startTurn(id, "second prompt");
      await a.next((e) => e.type === "assistant.delta" && e.turn_id === t.turn_id);
    } finally {
      await a.kill(); // SIGKILL mid-stream
    }
    await withServer(state, mock.baseUrl, async (b) => {
      const resumed = await startSession(b, cwd, id);
      assertEquals(resumed.type, "session.started");
      const items = await history(b, id);
      assertEquals(items.map((i) => [i.role, i.content]), [
        ["user", "first prompt"],
        ["assistant", "first answer"],
        ["user", "second prompt"],
      ]);
      const { t, done } = await b.runTurn(id, "third prompt");
      assertEquals(done.type, "turn.completed");
      assertEquals(t.seq, resumed.last_seq + 1);
      const sent = mock.requests[2]!.body.messages.filter((m) => m.role !== "system");
      assertEquals(sent.map((m) => m.content), [
        "first prompt",
        "first answer",
        "second prompt",
        "third prompt",
      ]);
    });
  });
});

Deno.test("after kill -9 during a tool, resume answers the cut-off call and keeps the steps", async () => {
  // A unique duration marks the command (and the sleep it may exec) in the process list.
  const marker = `sleep 60.${String(Math.random()).slice(2, 10)}`;
  await withRecording([
    toolCalls([{ id: "done1", name: "bash", arguments: { command: "echo finished step" } }]),
    toolCalls([{ id: "cut1", name: "bash", arguments: { command: marker } }]),
    text("after the crash"),
  ], async ({ mock, state, cwd }) => {
    const a = await startServer(state, mock.baseUrl, { config: { approval_policy: "never" } });
    let id: string;
    try {
      id = (await startSession(a, cwd)).session_id;
      const t = await a.startTurn(id, "run two commands");
      await a.next((e) =>
        e.type === "tool.started" && e.call_id === "cut1" && e.turn_id === t.turn_id
      );
      await waitForProcess(marker);
    } finally {
      await a.kill();
      // The killed server could not stop its command: end it here, by pid.
      await killProcesses(marker);
    }
    await withServer(state, mock.baseUrl, async (b) => {
      assertEquals((await startSession(b, cwd, id)).type, "session.started");
      const items = await history(b, id);
      assertEquals(items.map((i) => [i.role, i.name, i.success]), [
        ["user", undefined, undefined],
        ["tool", "bash", true],
        ["tool", "bash", false],
      ]);
      assertEquals(items[1]!.content, "finished step\n");
      assertEquals(items[1]!.summary, "Run shell command: echo finished step");
      assertMatch(items[2]!.content, /interrupted/);
      const { done } = await b.runTurn(id, "what happened?");
      assertEquals(done.type, "turn.completed");
      const sent = mock.requests[2]!.body.messages;
      const results = sent.filter((m) => m.role === "tool");
      assertEquals(results.map((m) => m.tool_call_id), ["done1", "cut1"]);
      assertMatch(String(results[1]!.content), /interrupted/);
    }, { config: { approval_policy: "never" } });
  });
});

Deno.test("a record torn by a crash is dropped, reported once, and the file stays readable", async () => {
  await withRecording(() => text("ok"), async ({ mock, state, cwd }) => {
    const a = await startServer(state, mock.baseUrl);
    let id: string;
    try {
      id = (await startSession(a, cwd)).session_id;
      await a.runTurn(id, "kept prompt");
    } finally {
      await a.kill();
    }
    // What a write cut short by the crash leaves: half a record, no newline.
    const half = JSON.stringify({ t: "msg", m: { role: "user", content: "lost" } }).slice(0, 20);
    await Deno.writeTextFile(sessionFile(state, id), half, { append: true });
    await withServer(state, mock.baseUrl, async (b) => {
      const resumed = await startSession(b, cwd, id);
      assertEquals(resumed.type, "session.started");
      assertMatch(resumed.notice, /1 damaged record was dropped .*torn by an interrupted write/);
      const items = await history(b, id);
      assertEquals(items.map((i) => i.content), ["kept prompt", "ok"]);
      await b.runTurn(id, "after");
      assertEquals(await b.stop(), 0);
      assertMatch(b.stderr, /1 damaged record skipped \(the last one torn/);
    });
    await withServer(state, mock.baseUrl, async (c) => {
      const again = await startSession(c, cwd, id);
      assertEquals(again.notice, undefined, "reported once");
      const items = await history(c, id);
      assertEquals(items.map((i) => i.content), ["kept prompt", "ok", "after", "ok"]);
    });
  });
});

Deno.test("the provider key is in no file of the state directory, byte for byte", async () => {
  const key = "sk-scv-test-KEY-7f3a9c";
  await withRecording([
    toolCalls([{ id: "k1", name: "bash", arguments: { command: `echo ${key}` } }]),
    text(`the key is ${key}`),
    { kind: "stream", events: [textChunk(`again ${key}`)], hang: true },
  ], async ({ mock, state, cwd }) => {
    const options = { env: { OPENAI_API_KEY: key }, config: { approval_policy: "never" } };
    const a = await startServer(state, mock.baseUrl, options as never);
    let id: string;
    try {
      id = (await startSession(a, cwd)).session_id;
      const { done } = await a.runTurn(id, `remember ${key}`);
      assertEquals(done.type, "turn.completed");
      // The key really went through the session: the tool printed it, the model said it.
      const output = a.events.find((e) => e.type === "tool.completed")!.output;
      assertEquals(output, `${key}\n`);
      const t = await a.startTurn(id, `once more ${key}`);
      await a.next((e) => e.type === "assistant.delta" && e.turn_id === t.turn_id);
    } finally {
      await a.kill();
    }
    const files = await filesUnder(state.home);
    assert(files.some((f) => f.endsWith(`${id}.jsonl`)), files.join(", "));
    const needle = new TextEncoder().encode(key);
    for (const file of files) {
      const bytes = await Deno.readFile(file);
      assertEquals(indexOf(bytes, needle), -1, `${file} holds the key`);
    }
    const recorded = await Deno.readTextFile(sessionFile(state, id));
    assertMatch(recorded, /remember \[redacted\]/);
    assertMatch(recorded, /the key is \[redacted\]/);
  });
});

/** The first index of `needle` in `haystack`, or -1. */
function indexOf(haystack: Uint8Array, needle: Uint8Array): number {
  outer: for (let i = 0; i + needle.length <= haystack.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

async function waitForProcess(marker: string): Promise<void> {
  const deadline = Date.now() + 20000;
  while ((await processesWith(marker)).length === 0) {
    if (Date.now() > deadline) throw new Error(`no process with ${marker} appeared`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Kills, by pid, the processes whose command line holds `marker` (they exist: see above). */
async function killProcesses(marker: string): Promise<void> {
  for (const line of await processesWith(marker)) {
    const pid = Number(line.trim().split(/\s+/)[0]);
    if (Number.isSafeInteger(pid) && pid > 1) {
      try {
        Deno.kill(pid, "SIGKILL");
      } catch {
        // Already gone.
      }
    }
  }
}
