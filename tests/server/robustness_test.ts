/**
 * Faults and bad input at the edges of the server: frames that would not fit, lenient SSE,
 * EOF races, a client that stops reading, a broken stdout.
 */
import { processesWith, until } from "../support/probes.ts";
import { assert, assertEquals, assertMatch } from "../support/assert.ts";
import { withServer } from "../support/server_process.ts";
import { MockOpenAI, type MockReply, text, textChunk, toolCalls } from "../support/mock_openai.ts";
import { RawServer } from "../support/raw_server.ts";

const encoder = new TextEncoder();

Deno.test("a provider error message too long for the frame limit still ends the turn with turn.failed", async () => {
  const mock = await MockOpenAI.start(() => ({
    kind: "status",
    status: 400,
    body: JSON.stringify({ error: { message: "bad request: " + "detail ".repeat(1000) } }),
  }));
  await withServer(mock, { config: { max_server_frame_bytes: 4096 } }, async (p) => {
    const { sessionId } = await p.open();
    const t = await p.startTurn(sessionId, "hi");
    const done = await p.terminal(t.turn_id, 5000);
    assertEquals([done.type, done.code], ["turn.failed", "provider_error"]);
    assertMatch(done.message, /HTTP 400: bad request/);
    for (const line of p.rawLines) assert(encoder.encode(line).length <= 4096);
  });
});

Deno.test("an assistant delta too big for the frame limit fails the turn with response_limit", async () => {
  const mock = await MockOpenAI.start([{
    kind: "stream",
    events: [textChunk("z".repeat(5000))],
    hang: true,
  }]);
  await withServer(mock, { config: { max_server_frame_bytes: 4096 } }, async (p) => {
    const { sessionId } = await p.open();
    const t = await p.startTurn(sessionId, "hi");
    const done = await p.terminal(t.turn_id, 5000);
    assertEquals([done.type, done.code], ["turn.failed", "response_limit"]);
    assertMatch(done.message, /assistant delta/);
  });
});

Deno.test("SSE comments, unknown fields and a bad retry line are ignored", async () => {
  const mock = await MockOpenAI.start([{
    kind: "stream",
    events: [
      ": keep-alive comment\n\n",
      textChunk("Hel"),
      "foo: bar\n\n",
      "KEEPALIVE\n\n",
      "retry: soon\n\n",
      textChunk("lo"),
      { choices: [{ index: 0, delta: {}, finish_reason: "stop" }] },
    ],
  }]);
  await withServer(mock, {}, async (p) => {
    const { sessionId } = await p.open();
    const { t, done } = await p.runTurn(sessionId, "hi");
    assertEquals(done.type, "turn.completed");
    const completed = p.eventOf(t.turn_id, "assistant.completed");
    assertEquals(completed.content, "Hello");
  });
});

Deno.test("an SSE event over 1 MiB split across many body chunks fails with response_limit", async () => {
  const line = `data: ${JSON.stringify(textChunk("s".repeat(1024 * 1024 + 100)))}\n\n`;
  const pieces: string[] = [];
  for (let i = 0; i < line.length; i += 16 * 1024) pieces.push(line.slice(i, i + 16 * 1024));
  const mock = await MockOpenAI.start([{ kind: "stream", events: pieces }]);
  await withServer(mock, {}, async (p) => {
    const { sessionId } = await p.open();
    const { done } = await p.runTurn(sessionId, "hi");
    assertEquals([done.type, done.code], ["turn.failed", "response_limit"]);
  });
});

Deno.test("EOF right after turn.start still shows turn.started before turn.cancelled", async () => {
  const mock = await MockOpenAI.start([{ kind: "stream", events: [textChunk("x")], hang: true }]);
  await withServer(mock, {}, async (p) => {
    const { sessionId } = await p.open();
    await p.send({ type: "turn.start", request_id: "r1", session_id: sessionId, prompt: "go" });
    await p.closeStdin();
    assertEquals(await p.exited(), 0);
    const evs = p.events.filter((e) => e.request_id === "r1");
    assertEquals(evs[0]?.type, "turn.started");
    assertEquals(evs.at(-1)?.type, "turn.cancelled");
    assertEquals(evs.map((e) => e.seq), evs.map((_, i) => i + 1));
  });
});

Deno.test("a slow client is not mistaken for a silent provider", async () => {
  // 2,000 deltas (about 600 KiB) and a 300 ms idle timeout: the client stops reading for a
  // second mid-stream, so the server waits on its output, not on the provider.
  const events = Array.from({ length: 2000 }, (_, i) => textChunk(`chunk ${i} `.repeat(30)));
  events.push({ choices: [{ index: 0, delta: {}, finish_reason: "stop" }] });
  const mock = await MockOpenAI.start([{ kind: "stream", events }]);
  const server = await RawServer.start({ base_url: mock.baseUrl, provider_timeout_ms: 300 });
  try {
    const sid = await server.open();
    await server.startTurn(sid, "go", "t");
    await server.until('"assistant.delta"');
    // The slow client itself: a second without reading, three idle timeouts long.
    await new Promise((r) => setTimeout(r, 1000));
    const end = await server.until(/"turn\.(completed|failed|cancelled)"/);
    assertMatch(end, /"turn\.completed"/);
  } finally {
    await server.kill();
    await mock.close();
  }
});

/** About 1 MiB of deltas, just under the assistant-text cap: enough to fill any pipe. */
function flood(): MockReply {
  const events: Array<Record<string, unknown>> = Array.from(
    { length: 5000 },
    () => textChunk("y".repeat(200)),
  );
  events.push({ choices: [{ index: 0, delta: {}, finish_reason: "stop" }] });
  return { kind: "stream", events };
}

Deno.test("turn.cancel interrupts a turn waiting on a full output, and nothing is lost", async () => {
  const mock = await MockOpenAI.start([flood()]);
  const server = await RawServer.start({ base_url: mock.baseUrl });
  try {
    const sid = await server.open();
    await server.startTurn(sid, "go", "t");
    const started = JSON.parse(await server.until('"turn.started"'));
    const firstDelta = JSON.parse(await server.until('"assistant.delta"'));
    await new Promise((r) => setTimeout(r, 1000)); // stdout fills; the turn waits for room
    await server.send(JSON.stringify({
      type: "turn.cancel",
      request_id: "c",
      session_id: sid,
      turn_id: started.turn_id,
    }));
    // Read everything that was queued: the seq numbers run on without a gap to turn.cancelled.
    let last = firstDelta.seq;
    while (true) {
      const line = await server.until(/"seq":/);
      const ev = JSON.parse(line);
      assertEquals(ev.seq, last + 1, "no frame was dropped or repeated");
      last = ev.seq;
      if (ev.type === "turn.cancelled") break;
      assertEquals(ev.type, "assistant.delta");
    }
    assert(last < 5002, "the turn was cut short, not run to its end");
  } finally {
    await server.kill();
    await mock.close();
  }
});

Deno.test("a client that stops reading: the blocked send times out, cleanup aborts, exit 1", async () => {
  // A connection-level error reply waits 3 s for room, gives up, and cleanup's 3 s grace ends
  // in an abort of the output.
  const mock = await MockOpenAI.start([flood()]);
  const server = await RawServer.start({ base_url: mock.baseUrl });
  try {
    const sid = await server.open();
    await server.startTurn(sid, "go", "t");
    await server.until('"assistant.delta"');
    await new Promise((r) => setTimeout(r, 1500)); // from here on nobody reads stdout
    const t0 = Date.now();
    await server.send('{"type":"nope","request_id":"x"}');
    const status = await server.child.status;
    const elapsed = Date.now() - t0;
    assertEquals(status.code, 1);
    assert(elapsed < 9000, `exited after ${elapsed} ms`);
  } finally {
    await server.kill();
    await mock.close();
  }
});

Deno.test("a broken stdout during a running tool ends the server with status 1 and kills the tool", async () => {
  // A command line no other process has, so concurrent runs cannot confuse the check.
  const marker = `sleep 107${Math.floor(Math.random() * 1e6)}`;
  const mock = await MockOpenAI.start([
    toolCalls([{ id: "c", name: "bash", arguments: { command: marker } }]),
    text("unused"),
  ]);
  const server = await RawServer.start({ base_url: mock.baseUrl, approval_policy: "never" });
  try {
    const sid = await server.open();
    await server.startTurn(sid, "go", "t");
    await server.until('"tool.started"');
    // The command runs before the output breaks, so its absence afterwards means it was killed.
    await until(async () => (await processesWith(marker)).length > 0, "the command runs");
    await server.closeStdout();
    // A server learns of a closed stdout only when it writes, and the pipe may close a moment
    // after the cancel: keep asking for a reply until one breaks the pipe.
    const t0 = Date.now();
    let exited = false;
    const status = server.child.status.finally(() => (exited = true));
    while (!exited && Date.now() - t0 < 5000) {
      await server.send('{"type":"nope","request_id":"x"}').catch(() => {});
      await new Promise((r) => setTimeout(r, 100));
    }
    status.catch(() => {});
    const { code } = await status;
    assertEquals(code, 1);
    assert(Date.now() - t0 < 9000);
    assertEquals(await processesWith(marker), []);
  } finally {
    await server.kill();
    await mock.close();
  }
});
