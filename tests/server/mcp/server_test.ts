/**
 * MCP servers that misbehave, crash or are slow, against the real `scv server` (the scripted
 * server in tests/fixtures/mcp_script_server.ts): each failure is a clear message naming the
 * server, the session and the other servers go on, and no server process outlives scv.
 */
import assert from "node:assert/strict";
import { MockOpenAI, type MockScript, text, toolCalls } from "../../support/mock_openai.ts";
import { type Ev, ServerProcess } from "../../support/server_process.ts";
import { processesWith } from "../../support/probes.ts";
import {
  alive,
  eventually,
  freePort,
  MCP_SERVER_FLAGS,
  reap,
  scriptServer,
  stopScv,
} from "../../support/mcp_peers.ts";

/** Starts scv (never approving: policy `never`) with these servers and a scripted model. */
async function start(
  servers: Record<string, unknown>,
  script: MockScript,
  config: Record<string, unknown> = {},
): Promise<{ server: ServerProcess; mock: MockOpenAI; done: () => Promise<void> }> {
  const mock = await MockOpenAI.start(script);
  const server = await ServerProcess.start({
    config: {
      base_url: mock.baseUrl,
      approval_policy: "never",
      mcp_servers: servers,
      ...config,
    } as never,
    denoFlags: MCP_SERVER_FLAGS,
  });
  return {
    server,
    mock,
    done: async () => {
      await stopScv(server);
      await mock.close();
    },
  };
}

/** The statuses a second `session.start` reports (after a turn waited for every server). */
async function statusesAfterTurn(server: ServerProcess): Promise<Record<string, Ev>> {
  const { sessionId, cwd } = await server.open();
  await server.runTurn(sessionId, "go");
  await server.send({ type: "session.start", request_id: "again", cwd });
  const ev = await server.next((e) => e.type === "session.started" && e.request_id === "again");
  return Object.fromEntries(ev.mcp_servers.map((s: Ev) => [s.name, s]));
}

function completedOf(server: ServerProcess, turnId: string): Ev[] {
  return server.turnEvents(turnId).filter((e) => e.type === "tool.completed");
}

Deno.test("bad MCP servers each fail with a clear message while a good one keeps working", async () => {
  const closed = freePort();
  const { server, mock, done } = await start({
    good: scriptServer("ok"),
    junk: scriptServer("junk"),
    silent: scriptServer("silent", { startup_timeout_ms: 1500 }),
    refused: { url: `http://127.0.0.1:${closed}/mcp`, startup_timeout_ms: 5000 },
    missing: { command: "/nonexistent/mcp-server" },
    unset: { url: "http://127.0.0.1:1/${SCV_TEST_UNSET_VAR}" },
  }, [text("first"), toolCalls([{ name: "mcp__good__pid", arguments: {} }]), text("ok")]);
  try {
    const s = await statusesAfterTurn(server);
    assert.equal(s.good!.status, "ready");
    // Junk lines are skipped and counted; the server still works.
    assert.equal(s.junk!.status, "ready");
    assert.match(
      server.stderr,
      /MCP server "junk" wrote 2 line\(s\) on stdout that are not JSON-RPC/,
    );
    assert.equal(s.silent!.status, "failed");
    assert.match(s.silent!.error, /^MCP server "silent" did not answer initialize within 1500 ms/);
    assert.equal(s.refused!.status, "failed");
    assert.match(s.refused!.error, /^MCP server "refused" failed to start: .*(refused|connect)/i);
    assert.equal(s.missing!.status, "failed");
    assert.match(s.missing!.error, /cannot start "\/nonexistent\/mcp-server": command not found/);
    assert.match(s.unset!.error, /\$\{SCV_TEST_UNSET_VAR\} in url is not set in scv's environment/);
    // The good server's tool still runs, in the session of that second session.start.
    const again = server.events.find((e) =>
      e.type === "session.started" && e.request_id === "again"
    )!;
    const { t } = await server.runTurn(again.session_id, "pid");
    const [result] = completedOf(server, t.turn_id);
    assert.equal(result!.success, true);
    assert.match(result!.output, /^\d+$/);
    assert.ok(mock.requests.length >= 2);
    assert.deepEqual(server.schemaErrors, []);
  } finally {
    await done();
  }
});

Deno.test("a tool result over the message bound stops that server with a message and scv goes on", async () => {
  const { server, done } = await start(
    { huge: scriptServer("huge"), good: scriptServer("ok") },
    [
      toolCalls([{ id: "big", name: "mcp__huge__big", arguments: {} }]),
      toolCalls([{ id: "pid", name: "mcp__good__pid", arguments: {} }]),
      text("ok"),
    ],
  );
  try {
    const { sessionId } = await server.open();
    const { t, done: end } = await server.runTurn(sessionId, "big");
    assert.equal(end.type, "turn.completed");
    const [big, pid] = completedOf(server, t.turn_id);
    assert.equal(big!.success, false);
    assert.match(big!.output, /MCP server "huge" .*more than 8388608 bytes/);
    assert.equal(pid!.success, true);
  } finally {
    await done();
  }
});

Deno.test("a large text result is cut to max_tool_output_bytes with truncated set", async () => {
  const { server, done } = await start(
    { s: scriptServer("ok") },
    [toolCalls([{ name: "mcp__s__big", arguments: {} }]), text("ok")],
    { max_tool_output_bytes: 4096 },
  );
  try {
    const { sessionId } = await server.open();
    const { t } = await server.runTurn(sessionId, "big");
    const [big] = completedOf(server, t.turn_id);
    assert.equal(big!.success, true);
    assert.equal(big!.truncated, true);
    assert.ok(new TextEncoder().encode(big!.output).length <= 4096);
  } finally {
    await done();
  }
});

Deno.test("tools with schemas that are not objects or over 64 KiB are left out with a notice", async () => {
  const { server, mock, done } = await start({ bad: scriptServer("badschema") }, [text("ok")]);
  try {
    const s = await statusesAfterTurn(server);
    assert.equal(s.bad!.status, "ready");
    assert.equal(s.bad!.tools, 1);
    const names = (mock.requests[0]!.body.tools ?? []).map((t) =>
      (t as { function: { name: string } }).function.name
    );
    assert.ok(names.includes("mcp__bad__fine"));
    assert.ok(!names.some((n) => /string_schema|no_schema|huge_schema/.test(n)));
    assert.match(server.stderr, /tool "string_schema" skipped: its inputSchema has type "string"/);
    assert.match(
      server.stderr,
      /tool "no_schema" skipped: its inputSchema is not a JSON Schema object/,
    );
    assert.match(
      server.stderr,
      /tool "huge_schema" skipped: its inputSchema takes \d+ bytes, more than 65536/,
    );
  } finally {
    await done();
  }
});

Deno.test("a server's tools are bounded in total size: those past 1 MiB of schemas are left out", async () => {
  // A context large enough for 1 MiB of tool schemas, so the turn reaches the model.
  const { server, mock, done } = await start({ many: scriptServer("many") }, [text("ok")], {
    context_max_tokens: 4_000_000,
  });
  try {
    const s = await statusesAfterTurn(server);
    assert.equal(s.many!.status, "ready");
    // 60 KiB each: 17 fit in 1 MiB.
    assert.equal(s.many!.tools, 17);
    const offered = (mock.requests[0]!.body.tools ?? []).filter((t) =>
      (t as { function: { name: string } }).function.name.startsWith("mcp__many__")
    );
    assert.equal(offered.length, 17);
    assert.match(
      server.stderr,
      /MCP server "many": its tools' schemas and descriptions take more than 1048576 bytes; tool "t17"/,
    );
  } finally {
    await done();
  }
});

Deno.test("a server listing more than 256 tools has only the first 256 offered, with a notice", async () => {
  const { server, done } = await start({ lots: scriptServer("lots") }, [text("ok")]);
  try {
    const s = await statusesAfterTurn(server);
    assert.equal(s.lots!.tools, 256);
    assert.match(
      server.stderr,
      /MCP server "lots" lists more than 256 tools; only the first 256 are offered/,
    );
  } finally {
    await done();
  }
});

Deno.test("tool names with odd characters are sanitized, kept within 64 characters and unique", async () => {
  const { server, mock, done } = await start({ odd: scriptServer("oddnames") }, [text("ok")]);
  try {
    const { sessionId } = await server.open();
    await server.runTurn(sessionId, "go");
    const names = (mock.requests[0]!.body.tools ?? [])
      .map((t) => (t as { function: { name: string } }).function.name)
      .filter((n) => n.startsWith("mcp__odd__"));
    assert.equal(names.length, 3);
    assert.equal(new Set(names).size, 3);
    assert.ok(names.includes("mcp__odd__read_file_"));
    for (const n of names) {
      assert.match(n, /^[A-Za-z0-9_-]{1,64}$/);
    }
  } finally {
    await done();
  }
});

Deno.test("an MCP isError result is a failed tool call carrying the server's text", async () => {
  const { server, done } = await start(
    { s: scriptServer("ok") },
    [toolCalls([{ name: "mcp__s__fail", arguments: {} }]), text("ok")],
  );
  try {
    const { sessionId } = await server.open();
    const { t } = await server.runTurn(sessionId, "fail");
    const [r] = completedOf(server, t.turn_id);
    assert.equal(r!.success, false);
    assert.equal(r!.output, "it went wrong");
  } finally {
    await done();
  }
});

Deno.test("cancelling a slow MCP call sends notifications/cancelled and ends the turn within 3 s", async () => {
  const log = await Deno.makeTempFile({ prefix: "scv-mcp-log-" });
  const { server, done } = await start(
    { s: scriptServer("ok", {}, log) },
    [toolCalls([{ name: "mcp__s__slow", arguments: { ms: 60000 } }]), text("never")],
  );
  try {
    const { sessionId } = await server.open();
    const t = await server.startTurn(sessionId, "slow");
    await server.next((e) => e.type === "tool.started" && e.turn_id === t.turn_id, 30000);
    const { done: end, ms } = await server.cancelTurn(sessionId, t.turn_id);
    assert.equal(end.type, "turn.cancelled");
    assert.ok(ms < 3000, `cancel took ${ms} ms`);
    assert.equal(completedOf(server, t.turn_id)[0]!.success, false);
    const sent = () =>
      Deno.readTextFileSync(log).split("\n").filter(Boolean).map((l) => JSON.parse(l));
    assert.ok(
      await eventually(() => sent().some((m) => m.method === "notifications/cancelled")),
      `no notifications/cancelled in ${JSON.stringify(sent().map((m) => m.method))}`,
    );
    const call = sent().find((m) => m.method === "tools/call");
    const cancel = sent().find((m) => m.method === "notifications/cancelled");
    assert.equal(cancel.params.requestId, call.id);
  } finally {
    await done();
    await Deno.remove(log);
  }
});

Deno.test("a per-server tool_timeout_ms ends a call that runs too long with a failure saying so", async () => {
  const { server, done } = await start(
    { s: scriptServer("ok", { tool_timeout_ms: 1000 }) },
    [toolCalls([{ name: "mcp__s__slow", arguments: { ms: 60000 } }]), text("ok")],
  );
  try {
    const { sessionId } = await server.open();
    const { t } = await server.runTurn(sessionId, "slow");
    const [r] = completedOf(server, t.turn_id);
    assert.equal(r!.success, false);
    assert.match(r!.output, /timed out after 1000 ms|within 1000 ms/);
  } finally {
    await done();
  }
});

Deno.test("a killed MCP server is restarted once on its next call, then its tools fail naming it, its exit and stderr", async () => {
  const pidCall = (id: string) => toolCalls([{ id, name: "mcp__s__pid", arguments: {} }]);
  const { server, done } = await start(
    { s: scriptServer("ok") },
    [pidCall("p1"), text("1"), pidCall("p2"), text("2"), pidCall("p3"), text("3")],
  );
  try {
    const { sessionId } = await server.open();
    const first = await server.runTurn(sessionId, "pid");
    const pid1 = Number(completedOf(server, first.t.turn_id)[0]!.output);
    assert.ok(alive(pid1), "the server runs");
    Deno.kill(pid1, "SIGKILL");
    assert.ok(await eventually(() => !alive(pid1)));
    // scv has seen the crash once it says so (a call racing the crash fails with it).
    assert.ok(await eventually(() => /MCP server "s" stopped; it was killed/.test(server.stderr)));
    const second = await server.runTurn(sessionId, "pid again");
    const r2 = completedOf(server, second.t.turn_id)[0]!;
    assert.equal(r2.success, true, r2.output);
    const pid2 = Number(r2.output);
    assert.notEqual(pid2, pid1);
    Deno.kill(pid2, "SIGKILL");
    assert.ok(await eventually(() => !alive(pid2)));
    assert.ok(
      await eventually(() => /already restarted once/.test(server.stderr)),
      server.stderr,
    );
    const third = await server.runTurn(sessionId, "pid once more");
    const r3 = completedOf(server, third.t.turn_id)[0]!;
    assert.equal(r3.success, false);
    assert.match(r3.output, /MCP server "s" stopped; it was killed by SIGKILL/);
    assert.match(r3.output, /already restarted once/);
  } finally {
    await done();
  }
});

Deno.test("a server that crashes during a call fails it with its exit status and stderr tail", async () => {
  const { server, done } = await start(
    { c: scriptServer("crash") },
    [toolCalls([{ name: "mcp__c__pid", arguments: {} }]), text("ok")],
  );
  try {
    const { sessionId } = await server.open();
    const { t } = await server.runTurn(sessionId, "crash");
    const [r] = completedOf(server, t.turn_id);
    assert.equal(r!.success, false);
    assert.match(r!.output, /MCP server "c" stopped; it exited with status 3/);
    assert.match(r!.output, /stderr: script server: crashing on purpose/);
  } finally {
    await done();
  }
});

Deno.test("a list_changed notification refreshes the tools before the next provider call", async () => {
  const { server, mock, done } = await start(
    { s: scriptServer("ok") },
    [
      toolCalls([{ name: "mcp__s__add_tool", arguments: {} }]),
      toolCalls([{ name: "mcp__s__added", arguments: {} }]),
      text("ok"),
    ],
  );
  try {
    const { sessionId } = await server.open();
    const { t } = await server.runTurn(sessionId, "add");
    const names = (n: number) =>
      (mock.requests[n]!.body.tools ?? []).map((x) =>
        (x as { function: { name: string } }).function.name
      );
    assert.ok(!names(0).includes("mcp__s__added"));
    assert.ok(names(1).includes("mcp__s__added"));
    const [, added] = completedOf(server, t.turn_id);
    assert.equal(added!.output, "the added tool ran");
  } finally {
    await done();
  }
});

Deno.test("under approval_policy auto an untrusted server's read-only tool asks, a trusted one's does not", async () => {
  const { server, done } = await start(
    { plain: scriptServer("ok"), trusted: scriptServer("ok", { trust: true }) },
    [
      toolCalls([{ id: "t", name: "mcp__trusted__read_only", arguments: {} }]),
      toolCalls([{ id: "p", name: "mcp__plain__read_only", arguments: {} }]),
      text("ok"),
    ],
    { approval_policy: "auto" },
  );
  try {
    const { sessionId } = await server.open();
    const t = await server.startTurn(sessionId, "read");
    const approval = await server.nextOf("approval.requested", 30000);
    assert.equal(approval.call_id, "p");
    assert.equal(approval.summary, "MCP plain: read_only");
    const trustedDone = completedOf(server, t.turn_id).find((e) => e.call_id === "t");
    assert.equal(trustedDone?.success, true);
    await server.send({
      type: "approval.resolve",
      request_id: "ok",
      session_id: sessionId,
      approval_id: approval.approval_id,
      approved: true,
    });
    assert.equal((await server.terminal(t.turn_id)).type, "turn.completed");
  } finally {
    await done();
  }
});

for (const how of ["EOF", "SIGTERM"] as const) {
  Deno.test(`no MCP server process outlives scv after ${how}`, async () => {
    // A server that ignores its stdin closing: only scv killing it ends it.
    const { server, done } = await start(
      { s: scriptServer("stubborn") },
      [toolCalls([{ name: "mcp__s__pid", arguments: {} }]), text("ok")],
    );
    let pid: number | undefined;
    try {
      const { sessionId } = await server.open();
      const { t } = await server.runTurn(sessionId, "pid");
      pid = Number(completedOf(server, t.turn_id)[0]!.output);
      assert.ok(alive(pid), "the server runs while scv does");
      if (how === "EOF") await server.closeStdin();
      else server.child.kill("SIGTERM");
      assert.equal(await server.exited(), 0);
      assert.ok(await eventually(() => !alive(pid!)), `pid ${pid} still runs`);
    } finally {
      await done();
      reap(pid);
    }
  });
}

Deno.test("a stdio server scv may not run (--allow-run=bash) fails naming the flag to grant", async () => {
  const mock = await MockOpenAI.start([text("ok")]);
  const server = await ServerProcess.start({
    config: { base_url: mock.baseUrl, mcp_servers: { s: scriptServer("ok") } } as never,
  });
  try {
    const s = await statusesAfterTurn(server);
    assert.equal(s.s!.status, "failed");
    assert.match(s.s!.error, /scv may not run it \(grant it with --allow-run\)/);
  } finally {
    await stopScv(server);
    await mock.close();
  }
});

Deno.test("no MCP server process outlives scv after its stdout breaks", async () => {
  const mock = await MockOpenAI.start([
    toolCalls([{ name: "mcp__s__pid", arguments: {} }]),
    text("ok"),
  ]);
  const dir = await Deno.makeTempDir({ prefix: "scv-mcp-pipe-" });
  const config = `${dir}/c.jsonc`;
  await Deno.writeTextFile(
    config,
    JSON.stringify({
      base_url: mock.baseUrl,
      approval_policy: "never",
      mcp_servers: { s: scriptServer("stubborn") },
    }),
  );
  const main = new URL("../../../main.ts", import.meta.url).pathname;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", ...MCP_SERVER_FLAGS, main, "server", "--config", config],
    env: { XDG_CONFIG_HOME: dir, XDG_STATE_HOME: dir },
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const w = child.stdin.getWriter();
  const send = (m: unknown) => w.write(new TextEncoder().encode(JSON.stringify(m) + "\n"));
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buf = "";
  const until = async (pred: (e: Ev) => boolean): Promise<Ev> => {
    while (true) {
      const nl = buf.indexOf("\n");
      if (nl !== -1) {
        const ev = JSON.parse(buf.slice(0, nl));
        buf = buf.slice(nl + 1);
        if (pred(ev)) return ev;
        continue;
      }
      const { value, done } = await reader.read();
      if (done) throw new Error("scv output ended");
      buf += value;
    }
  };
  let pid: number | undefined;
  try {
    await send({ type: "initialize", request_id: "i", protocol_version: 1 });
    await send({ type: "session.start", request_id: "s", cwd: dir });
    const started = await until((e) => e.type === "session.started");
    await send({
      type: "turn.start",
      request_id: "t",
      session_id: started.session_id,
      prompt: "pid",
    });
    const done = await until((e) => e.type === "tool.completed");
    pid = Number(done.output);
    assert.ok(alive(pid), "the server runs while scv does");
    await reader.cancel();
    // The next reply has nowhere to go: scv's output is broken and it must shut down.
    await send({ type: "session.start", request_id: "s2", cwd: dir }).catch(() => {});
    await send({ type: "session.start", request_id: "s3", cwd: dir }).catch(() => {});
    const status = await child.status;
    assert.notEqual(status.code, 0);
    assert.ok(await eventually(() => !alive(pid!)), `pid ${pid} still runs`);
  } finally {
    await w.close().catch(() => {});
    try {
      child.kill("SIGKILL");
    } catch { /* gone */ }
    await child.status;
    reap(pid);
    await mock.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("mcp.status lists each server's state and tool names, and is empty with no server configured", async () => {
  const { server, done } = await start(
    { s: scriptServer("ok"), silent: scriptServer("silent", { startup_timeout_ms: 1000 }) },
    [text("ok")],
  );
  try {
    await statusesAfterTurn(server);
    await server.send({ type: "mcp.status", request_id: "m" });
    const reply = await server.next((e) => e.type === "mcp.status" && e.request_id === "m");
    const [s, silent] = reply.servers;
    assert.equal(s.status, "ready");
    assert.ok(s.tool_names.includes("mcp__s__pid"), s.tool_names.join());
    assert.equal(s.tool_names.length, s.tools);
    assert.equal(silent.status, "failed");
    assert.deepEqual(silent.tool_names, []);
    assert.deepEqual(server.schemaErrors, []);
  } finally {
    await done();
  }
  const plain = await start({}, []);
  try {
    await plain.server.send({ type: "initialize", request_id: "i", protocol_version: 1 });
    await plain.server.nextOf("initialized");
    await plain.server.send({ type: "mcp.status", request_id: "m" });
    const reply = await plain.server.nextOf("mcp.status");
    assert.deepEqual(reply.servers, []);
  } finally {
    await plain.done();
  }
});

Deno.test("a server still starting when scv gets EOF is killed too", async () => {
  const log = await Deno.makeTempFile({ prefix: "scv-mcp-log-" });
  const { server, done } = await start(
    // The log path, an argument the script ignores, marks its command line for ps.
    {
      s: {
        ...scriptServer("silent", { env: { MCP_LOG: log, MCP_STUBBORN: "1" } }),
        args: [...(scriptServer("silent").args as string[]), log],
      },
    },
    [],
  );
  try {
    await server.open();
    // The server exists once it logged the initialize scv sent it; it never answers.
    const lines = () => Deno.readTextFileSync(log).split("\n").filter(Boolean);
    assert.ok(await eventually(() => lines().some((l) => l.includes('"initialize"'))));
    const before = (await processesWith(log)).map((l) => l.trim().split(/\s+/)[0]);
    assert.equal(before.length, 1, `expected one server process, got ${before}`);
    await server.closeStdin();
    assert.equal(await server.exited(), 0);
    assert.ok(
      await eventually(() => !alive(Number(before[0]))),
      `pid ${before[0]} still runs`,
    );
  } finally {
    await done();
    await Deno.remove(log);
  }
});

Deno.test("a client that asked for notices sees left-out tools as turn.notice in the first turn", async () => {
  const { server, done } = await start({ bad: scriptServer("badschema") }, [text("ok")]);
  try {
    await server.send({
      type: "initialize",
      request_id: "i",
      protocol_version: 1,
      capabilities: { notices: true },
    });
    await server.nextOf("initialized");
    await server.send({ type: "session.start", request_id: "s", cwd: server.tempDir });
    const started = await server.nextOf("session.started");
    const { t } = await server.runTurn(started.session_id, "go");
    const notices = server.turnEvents(t.turn_id).filter((e) => e.type === "turn.notice");
    assert.equal(notices.length, 3, JSON.stringify(notices));
    assert.match(notices[0]!.message, /MCP server "bad": tool "string_schema" skipped/);
    assert.deepEqual(server.schemaErrors, []);
  } finally {
    await done();
  }
});
