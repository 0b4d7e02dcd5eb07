/**
 * scv against the real MCP servers pinned in .ci/npm: server-everything over stdio and over
 * Streamable HTTP, server-filesystem over stdio; the model is the scripted mock provider.
 */
import assert from "node:assert/strict";
import { MockOpenAI, type MockScript, text, toolCalls } from "../../support/mock_openai.ts";
import { type Ev, ServerProcess } from "../../support/server_process.ts";
import {
  alive,
  eventually,
  MCP_SERVER_FLAGS,
  peerBin,
  startEverythingHttp,
  stopScv,
} from "../../support/mcp_peers.ts";
import { processesWith } from "../../support/probes.ts";

/** Runs `fn` with scv serving `mcp_servers` and a mock provider playing `script`. */
async function withMcp(
  servers: Record<string, unknown>,
  script: MockScript,
  fn: (server: ServerProcess, mock: MockOpenAI) => Promise<void>,
  env: Record<string, string> = {},
): Promise<void> {
  const mock = await MockOpenAI.start(script);
  const server = await ServerProcess.start({
    config: { base_url: mock.baseUrl, mcp_servers: servers } as never,
    denoFlags: MCP_SERVER_FLAGS,
    env,
  });
  try {
    await fn(server, mock);
  } finally {
    // EOF, not a kill: scv stops its MCP servers on the way out.
    await stopScv(server);
    await mock.close();
  }
}

/** The tool names of the n-th provider request. */
function toolNames(mock: MockOpenAI, n: number): string[] {
  return (mock.requests[n]?.body.tools ?? []).map((t) =>
    (t as { function: { name: string } }).function.name
  );
}

/** Approves every approval request of a turn until its terminal event. */
async function approveAll(server: ServerProcess, sessionId: string, turnId: string): Promise<Ev> {
  while (true) {
    const ev = await server.next((e) =>
      e.turn_id === turnId &&
      (e.type === "approval.requested" || e.type === "turn.completed" ||
        e.type === "turn.failed" || e.type === "turn.cancelled"), 60000);
    if (ev.type !== "approval.requested") return ev;
    await server.send({
      type: "approval.resolve",
      request_id: `a-${ev.approval_id}`,
      session_id: sessionId,
      approval_id: ev.approval_id,
      approved: true,
    });
  }
}

const everything = () => ({ command: peerBin("mcp-server-everything") });

Deno.test("session.started reports a stdio MCP server as starting, then ready with its tools", async () => {
  await withMcp({ everything: everything() }, [text("hi")], async (server, mock) => {
    const { sessionId } = await server.open();
    const first = server.events.find((e) => e.type === "session.started")!;
    assert.deepEqual(first.mcp_servers, [{ name: "everything", status: "starting", tools: 0 }]);
    // The first provider call waits for the server, so its tools are offered to the model.
    const { done } = await server.runTurn(sessionId, "hello");
    assert.equal(done.type, "turn.completed");
    assert.ok(toolNames(mock, 0).includes("mcp__everything__echo"), toolNames(mock, 0).join());
    await server.send({ type: "session.start", request_id: "s2", cwd: first.cwd });
    const second = await server.next((e) => e.type === "session.started" && e.request_id === "s2");
    assert.equal(second.mcp_servers[0].status, "ready");
    assert.ok(second.mcp_servers[0].tools >= 10, JSON.stringify(second.mcp_servers));
    assert.deepEqual(server.schemaErrors, []);
  });
});

Deno.test("a model calls server-everything's echo over stdio after approval and sees its text", async () => {
  await withMcp(
    { everything: everything() },
    [toolCalls([{ name: "mcp__everything__echo", arguments: { message: "ping" } }]), text("ok")],
    async (server, mock) => {
      const { sessionId } = await server.open();
      const t = await server.startTurn(sessionId, "echo ping");
      const done = await approveAll(server, sessionId, t.turn_id);
      assert.equal(done.type, "turn.completed");
      const approval = server.eventOf(t.turn_id, "approval.requested");
      assert.equal(approval.summary, "MCP everything: echo");
      assert.equal(approval.risk, "process");
      const completed = server.eventOf(t.turn_id, "tool.completed");
      assert.equal(completed.success, true);
      assert.equal(completed.output, "Echo: ping");
      const toolMessage = mock.requests[1]!.body.messages.find((m) => m.role === "tool");
      assert.equal(toolMessage?.content, "Echo: ping");
    },
  );
});

Deno.test("arguments that break an MCP tool's schema fail before any approval is asked", async () => {
  await withMcp(
    { everything: everything() },
    [toolCalls([{ name: "mcp__everything__echo", arguments: { message: 42 } }]), text("ok")],
    async (server) => {
      const { sessionId } = await server.open();
      const { t, done } = await server.runTurn(sessionId, "echo 42");
      assert.equal(done.type, "turn.completed");
      const completed = server.eventOf(t.turn_id, "tool.completed");
      assert.equal(completed.success, false);
      assert.match(completed.output, /Invalid arguments for mcp__everything__echo: .*message/);
      assert.equal(
        server.turnEvents(t.turn_id).some((e) => e.type === "approval.requested"),
        false,
      );
    },
  );
});

Deno.test("a denied MCP tool call does not reach the server", async () => {
  await withMcp(
    { everything: everything() },
    [toolCalls([{ name: "mcp__everything__echo", arguments: { message: "no" } }]), text("ok")],
    async (server) => {
      const { sessionId } = await server.open();
      const t = await server.startTurn(sessionId, "echo");
      const approval = await server.nextOf("approval.requested", 60000);
      await server.send({
        type: "approval.resolve",
        request_id: "deny",
        session_id: sessionId,
        approval_id: approval.approval_id,
        approved: false,
      });
      await server.terminal(t.turn_id, 60000);
      const completed = server.eventOf(t.turn_id, "tool.completed");
      assert.equal(completed.success, false);
      assert.match(completed.output, /denied/);
      assert.equal(server.turnEvents(t.turn_id).some((e) => e.type === "tool.started"), false);
    },
  );
});

Deno.test("cancelling a turn during server-everything's long-running operation ends the call within 3 s", async () => {
  await withMcp(
    { everything: everything() },
    [
      toolCalls([{
        name: "mcp__everything__trigger-long-running-operation",
        arguments: { duration: 60, steps: 3 },
      }]),
      text("never"),
    ],
    async (server) => {
      const { sessionId } = await server.open();
      const t = await server.startTurn(sessionId, "slow");
      const approval = await server.nextOf("approval.requested", 60000);
      await server.send({
        type: "approval.resolve",
        request_id: "yes",
        session_id: sessionId,
        approval_id: approval.approval_id,
        approved: true,
      });
      await server.next((e) => e.type === "tool.started" && e.turn_id === t.turn_id);
      const { done, ms } = await server.cancelTurn(sessionId, t.turn_id);
      assert.equal(done.type, "turn.cancelled");
      assert.ok(ms < 3000, `cancel took ${ms} ms`);
      const completed = server.eventOf(t.turn_id, "tool.completed");
      assert.equal(completed.success, false);
    },
  );
});

Deno.test("an MCP server gets only the core environment and its configured env, never the provider key", async () => {
  await withMcp(
    { everything: { ...everything(), env: { GREETING: "${SCV_TEST_GREETING}-x" } } },
    [toolCalls([{ name: "mcp__everything__get-env", arguments: {} }]), text("ok")],
    async (server) => {
      const { sessionId } = await server.open();
      const t = await server.startTurn(sessionId, "env");
      await approveAll(server, sessionId, t.turn_id);
      const completed = server.eventOf(t.turn_id, "tool.completed");
      assert.equal(completed.success, true, completed.output);
      const env = JSON.parse(completed.output);
      assert.equal(env.GREETING, "hello-x");
      assert.ok(env.PATH, "PATH is passed");
      assert.equal(env.OPENAI_API_KEY, undefined);
      assert.equal(env.SCV_TEST_SECRET_TOKEN, undefined);
      assert.equal(env.SCV_TEST_GREETING, undefined);
    },
    { SCV_TEST_GREETING: "hello", OPENAI_API_KEY: "sk-test", SCV_TEST_SECRET_TOKEN: "t" },
  );
});

Deno.test("a model calls server-everything over Streamable HTTP on 127.0.0.1", async () => {
  const http = await startEverythingHttp();
  try {
    await withMcp(
      { web: { url: http.url } },
      [toolCalls([{ name: "mcp__web__get-sum", arguments: { a: 2, b: 3 } }]), text("ok")],
      async (server, mock) => {
        const { sessionId } = await server.open();
        const t = await server.startTurn(sessionId, "sum");
        const done = await approveAll(server, sessionId, t.turn_id);
        assert.equal(done.type, "turn.completed");
        assert.ok(toolNames(mock, 0).includes("mcp__web__get-sum"));
        const completed = server.eventOf(t.turn_id, "tool.completed");
        assert.equal(completed.success, true, completed.output);
        assert.match(completed.output, /5/);
      },
    );
  } finally {
    await http.stop();
  }
});

Deno.test("server-filesystem lists the workspace, and a path outside its roots is an error result", async () => {
  const ws = await Deno.makeTempDir({ prefix: "scv-mcp-fs-" });
  await Deno.writeTextFile(`${ws}/hello.txt`, "hi");
  try {
    await withMcp(
      { fs: { command: peerBin("mcp-server-filesystem"), args: [ws] } },
      [
        toolCalls([
          { id: "c1", name: "mcp__fs__list_directory", arguments: { path: ws } },
          { id: "c2", name: "mcp__fs__read_text_file", arguments: { path: "/etc/hostname" } },
        ]),
        text("ok"),
      ],
      async (server, mock) => {
        const { sessionId } = await server.open(ws);
        const t = await server.startTurn(sessionId, "list");
        await approveAll(server, sessionId, t.turn_id);
        assert.ok(toolNames(mock, 0).includes("mcp__fs__read_text_file"));
        const results = server.turnEvents(t.turn_id).filter((e) => e.type === "tool.completed");
        const list = results.find((e) => e.call_id === "c1")!;
        assert.equal(list.success, true, list.output);
        assert.match(list.output, /hello\.txt/);
        const outside = results.find((e) => e.call_id === "c2")!;
        assert.equal(outside.success, false);
        assert.match(outside.output, /denied|outside|not allowed/i);
      },
    );
  } finally {
    await Deno.remove(ws, { recursive: true });
  }
});

Deno.test("a killed server-everything is restarted on the model's next call to it", async () => {
  // An argument server-everything ignores marks its command line, to find its pid.
  const marker = `scv-mcp-${crypto.randomUUID()}`;
  const echo = (id: string) =>
    toolCalls([{ id, name: "mcp__everything__echo", arguments: { message: id } }]);
  await withMcp(
    { everything: { command: peerBin("mcp-server-everything"), args: ["stdio", marker] } },
    [echo("one"), text("1"), echo("two"), text("2")],
    async (server) => {
      const { sessionId } = await server.open();
      const first = await server.startTurn(sessionId, "one");
      await approveAll(server, sessionId, first.turn_id);
      assert.equal(server.eventOf(first.turn_id, "tool.completed").output, "Echo: one");
      const pids = (await processesWith(marker)).map((l) => Number(l.trim().split(/\s+/)[0]));
      assert.ok(pids.length >= 1 && pids.every(alive), `server processes: ${pids}`);
      for (const pid of pids) Deno.kill(pid, "SIGKILL");
      assert.ok(await eventually(() => !pids.some(alive)));
      // scv has seen the crash once it says so (a call racing the crash fails with it).
      assert.ok(await eventually(() => /MCP server "everything" stopped/.test(server.stderr)));
      const second = await server.startTurn(sessionId, "two");
      await approveAll(server, sessionId, second.turn_id);
      const done = server.eventOf(second.turn_id, "tool.completed");
      assert.equal(done.success, true, done.output);
      assert.equal(done.output, "Echo: two");
      assert.match(server.stderr, /MCP server "everything" stopped; it was killed by SIGKILL/);
      assert.match(server.stderr, /MCP server "everything" stopped; restarting it \(once\)/);
    },
  );
});

Deno.test("under on-risk a trusted server's read-only tool runs without asking, risk read", async () => {
  await withMcp(
    { everything: { ...everything(), trust: true } },
    [
      // toggle-simulated-logging is not annotated read-only, so it still asks.
      toolCalls([
        {
          id: "ro",
          name: "mcp__everything__trigger-long-running-operation",
          arguments: { duration: 0.1, steps: 1 },
        },
        { id: "rw", name: "mcp__everything__toggle-simulated-logging", arguments: {} },
      ]),
      text("ok"),
    ],
    async (server) => {
      const { sessionId } = await server.open();
      const t = await server.startTurn(sessionId, "go");
      await approveAll(server, sessionId, t.turn_id);
      const asked = server.turnEvents(t.turn_id).filter((e) => e.type === "approval.requested");
      assert.deepEqual(asked.map((e) => e.call_id), ["rw"]);
      assert.equal(asked[0]!.risk, "process");
      const ro = server.turnEvents(t.turn_id).find((e) =>
        e.type === "tool.completed" && e.call_id === "ro"
      );
      assert.equal(ro?.success, true, ro?.output);
    },
  );
});
