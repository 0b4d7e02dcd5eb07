/**
 * Integration tests of the connection rules of the Peon protocol: handshake, request errors,
 * sessions, framing limits and shutdown, over the real `main.ts server`.
 */
import { assert, assertEquals, assertMatch } from "../../support/assert.ts";
import { ServerProcess } from "../../support/server_process.ts";

async function withProc(
  options: Parameters<typeof ServerProcess.start>[0],
  fn: (p: ServerProcess) => Promise<void>,
): Promise<void> {
  const p = await ServerProcess.start(options);
  try {
    await fn(p);
    assertEquals(p.schemaErrors, []);
  } finally {
    await p.kill();
  }
}

Deno.test("initialize is answered with initialized, protocol_version 1 and the server info", async () => {
  await withProc({}, async (p) => {
    await p.send({
      type: "initialize",
      request_id: "1",
      protocol_version: 1,
      client: { name: "t", version: "0" },
    });
    const ev = await p.nextOf("initialized");
    assertEquals(ev, {
      type: "initialized",
      request_id: "1",
      protocol_version: 1,
      server: { name: "scv-server", version: "0.3.0" },
    });
  });
});

Deno.test("a version mismatch is a fatal error and the server exits with status 2", async () => {
  await withProc({}, async (p) => {
    await p.send({ type: "initialize", request_id: "1", protocol_version: 2 });
    const ev = await p.nextOf("error");
    assertEquals(ev.code, "version_mismatch");
    assertEquals(ev.fatal, true);
    assertEquals(ev.request_id, "1");
    assertEquals(await p.exited(), 2);
  });
});

Deno.test("messages before initialize get not_initialized", async () => {
  await withProc({}, async (p) => {
    await p.send({ type: "session.start", request_id: "a", cwd: "/tmp" });
    const ev = await p.nextOf("error");
    assertEquals([ev.code, ev.request_id, ev.fatal], ["not_initialized", "a", false]);
    // The connection goes on: initialize still works.
    await p.send({ type: "initialize", request_id: "b", protocol_version: 1 });
    await p.nextOf("initialized");
  });
});

Deno.test("an unknown message type is invalid_request with its request_id, not fatal", async () => {
  await withProc({}, async (p) => {
    await p.open();
    await p.send({ type: "turn.pause", request_id: "x1" });
    const ev = await p.nextOf("error");
    assertEquals([ev.code, ev.request_id, ev.fatal], ["invalid_request", "x1", false]);
    assertMatch(ev.message, /turn\.pause/);
  });
});

Deno.test("an unknown message type before initialize is still rejected as unknown", async () => {
  await withProc({}, async (p) => {
    await p.send({ type: "nope", request_id: "x" });
    const ev = await p.nextOf("error");
    assertEquals(ev.code, "invalid_request");
  });
});

Deno.test("a frame that is not JSON is invalid_json and the connection goes on", async () => {
  await withProc({}, async (p) => {
    await p.send("{not json");
    const ev = await p.nextOf("error");
    assertEquals([ev.code, ev.fatal, "request_id" in ev], ["invalid_json", false, false]);
    await p.send({ type: "initialize", request_id: "1", protocol_version: 1 });
    await p.nextOf("initialized");
  });
});

Deno.test("a JSON value that is not an object is invalid_request", async () => {
  await withProc({}, async (p) => {
    await p.send("[1,2]");
    assertEquals((await p.nextOf("error")).code, "invalid_request");
  });
});

Deno.test("unknown fields are ignored", async () => {
  await withProc({}, async (p) => {
    await p.send({ type: "initialize", request_id: "1", protocol_version: 1, extra: { a: 1 } });
    await p.nextOf("initialized");
  });
});

Deno.test("a message missing a required field is invalid_request naming the field", async () => {
  await withProc({}, async (p) => {
    await p.open();
    await p.send({ type: "turn.start", request_id: "r", prompt: "hi" });
    const ev = await p.nextOf("error");
    assertEquals(ev.code, "invalid_request");
    assertMatch(ev.message, /session_id/);
  });
});

Deno.test("a second initialize is invalid_request", async () => {
  await withProc({}, async (p) => {
    await p.open();
    await p.send({ type: "initialize", request_id: "again", protocol_version: 1 });
    const ev = await p.nextOf("error");
    assertEquals([ev.code, ev.request_id], ["invalid_request", "again"]);
  });
});

Deno.test("session.start canonicalizes cwd through symlinks", async () => {
  await withProc({}, async (p) => {
    await p.send({ type: "initialize", request_id: "1", protocol_version: 1 });
    await p.nextOf("initialized");
    const real = await Deno.makeTempDir({ dir: p.tempDir });
    const link = `${p.tempDir}/link`;
    await Deno.symlink(real, link);
    await p.send({ type: "session.start", request_id: "s", cwd: `${link}/./` });
    const ev = await p.nextOf("session.started");
    assertEquals(ev.cwd, await Deno.realPath(real));
    assertEquals(ev.model, "gpt-4.1-mini");
    assertEquals(ev.context_max_tokens, 128000);
    assertEquals(ev.max_server_frame_bytes, 8388608);
    assertEquals(ev.max_transcript_bytes, 8388608);
    assertEquals(ev.max_transcript_items, 10000);
    assertEquals(ev.max_prompt_history_bytes, 1048576);
    assertEquals(ev.max_prompt_history_items, 200);
    assert(!("seq" in ev), "session.started carries no seq");
  });
});

Deno.test("session.start rejects a relative, missing, non-directory or non-string cwd", async () => {
  await withProc({}, async (p) => {
    await p.send({ type: "initialize", request_id: "1", protocol_version: 1 });
    await p.nextOf("initialized");
    const file = `${p.tempDir}/file.txt`;
    await Deno.writeTextFile(file, "x");
    const cases: Array<[unknown, RegExp]> = [
      ["relative/dir", /absolute/],
      [`${p.tempDir}/missing`, /does not exist/],
      [file, /not a directory/],
      [42, /cwd/],
    ];
    for (const [i, [cwd, re]] of cases.entries()) {
      await p.send({ type: "session.start", request_id: `s${i}`, cwd });
      const ev = await p.nextOf("error");
      assertEquals([ev.code, ev.request_id], ["invalid_request", `s${i}`]);
      assertMatch(ev.message, re);
    }
    await p.send({ type: "session.start", request_id: "nocwd" });
    assertEquals((await p.nextOf("error")).code, "invalid_request");
  });
});

Deno.test("requests naming an unknown session get session_not_found", async () => {
  await withProc({}, async (p) => {
    await p.open();
    const msgs = [
      { type: "turn.start", request_id: "a", session_id: "nope", prompt: "hi" },
      { type: "turn.cancel", request_id: "b", session_id: "nope", turn_id: "t" },
      {
        type: "approval.resolve",
        request_id: "c",
        session_id: "nope",
        approval_id: "x",
        approved: true,
      },
      { type: "session.clear", request_id: "d", session_id: "nope" },
    ];
    for (const m of msgs) {
      await p.send(m);
      const ev = await p.nextOf("error");
      assertEquals([ev.code, ev.request_id], ["session_not_found", m.request_id]);
    }
  });
});

Deno.test("turn.cancel of a turn that is not running gets turn_not_found", async () => {
  await withProc({}, async (p) => {
    const { sessionId } = await p.open();
    await p.send({ type: "turn.cancel", request_id: "c", session_id: sessionId, turn_id: "nope" });
    const ev = await p.nextOf("error");
    assertEquals([ev.code, ev.request_id], ["turn_not_found", "c"]);
  });
});

Deno.test("approval.resolve of an unknown approval gets approval_not_found", async () => {
  await withProc({}, async (p) => {
    const { sessionId } = await p.open();
    await p.send({
      type: "approval.resolve",
      request_id: "r",
      session_id: sessionId,
      approval_id: crypto.randomUUID(),
      approved: true,
    });
    const ev = await p.nextOf("error");
    assertEquals([ev.code, ev.request_id], ["approval_not_found", "r"]);
  });
});

Deno.test("empty and whitespace-only prompts are rejected", async () => {
  await withProc({}, async (p) => {
    const { sessionId } = await p.open();
    for (const [i, prompt] of ["", "  \n\t "].entries()) {
      await p.send({ type: "turn.start", request_id: `e${i}`, session_id: sessionId, prompt });
      const ev = await p.nextOf("error");
      assertEquals([ev.code, ev.request_id], ["invalid_request", `e${i}`]);
      assertMatch(ev.message, /empty/);
    }
  });
});

Deno.test("a prompt one byte over max_prompt_bytes is invalid_request", async () => {
  // The prompt of exactly the limit is accepted (it then fails at the unreachable provider).
  await withProc(
    { config: { max_prompt_bytes: 10, base_url: "http://127.0.0.1:9/v1" } },
    async (p) => {
      const { sessionId } = await p.open();
      await p.send({
        type: "turn.start",
        request_id: "over",
        session_id: sessionId,
        prompt: "é".repeat(5) + "x",
      });
      const ev = await p.nextOf("error");
      assertEquals([ev.code, ev.request_id], ["invalid_request", "over"]);
      assertMatch(ev.message, /11 bytes exceeds max_prompt_bytes \(10\)/);
      await p.send({
        type: "turn.start",
        request_id: "exact",
        session_id: sessionId,
        prompt: "é".repeat(5),
      });
      const started = await p.nextOf("turn.started");
      assertEquals(started.request_id, "exact");
    },
  );
});

Deno.test("a client frame over max_client_frame_bytes is invalid_request and the stream resynchronises", async () => {
  await withProc({ config: { max_client_frame_bytes: 100 } }, async (p) => {
    const big = JSON.stringify({
      type: "initialize",
      request_id: "big",
      protocol_version: 1,
      pad: "x".repeat(500),
    });
    await p.send(big);
    const ev = await p.nextOf("error");
    assertEquals(ev.code, "invalid_request");
    assertMatch(ev.message, /max_client_frame_bytes/);
    // Exactly 100 bytes passes.
    const base = { type: "initialize", request_id: "ok", protocol_version: 1, pad: "" };
    const pad = 100 - JSON.stringify(base).length;
    const exact = JSON.stringify({ ...base, pad: "y".repeat(pad) });
    assertEquals(new TextEncoder().encode(exact).length, 100);
    await p.send(exact);
    const ok = await p.nextOf("initialized");
    assertEquals(ok.request_id, "ok");
  });
});

Deno.test("a 20 MiB line without newline is rejected without buffering it", async () => {
  await withProc({}, async (p) => {
    const chunk = new TextEncoder().encode("x".repeat(1024 * 1024));
    for (let i = 0; i < 20; i++) await p.sendBytes(chunk);
    await p.sendBytes(new TextEncoder().encode("\n"));
    const ev = await p.nextOf("error");
    assertEquals(ev.code, "invalid_request");
    await p.send({ type: "initialize", request_id: "after", protocol_version: 1 });
    assertEquals((await p.nextOf("initialized")).request_id, "after");
  });
});

Deno.test("EOF on stdin with no turn exits with status 0", async () => {
  const p = await ServerProcess.start({});
  await p.open();
  assertEquals(await p.stop(), 0);
});

Deno.test("several sessions on one connection have their own ids", async () => {
  await withProc({}, async (p) => {
    const a = await p.open();
    const dir = await Deno.makeTempDir({ dir: p.tempDir });
    await p.send({ type: "session.start", request_id: "s2", cwd: dir });
    const b = await p.nextOf("session.started");
    assert(a.sessionId !== b.session_id);
  });
});

Deno.test("stdout carries only protocol frames; diagnostics go to stderr", async () => {
  await withProc({}, async (p) => {
    await p.open();
    await p.send("garbage");
    await p.nextOf("error");
    await p.closeStdin();
    await p.exited();
    for (const line of p.rawLines) JSON.parse(line);
  });
});

/** Runs `scv server --config path` with no input; returns its status and stderr. */
async function serverWithConfig(path: string, home: string): Promise<[number, string, string]> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--no-prompt",
      "--allow-read",
      "--allow-env",
      new URL("../../../main.ts", import.meta.url).pathname,
      "server",
      "--config",
      path,
    ],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    env: { XDG_CONFIG_HOME: home, XDG_STATE_HOME: `${home}/state` },
  }).output();
  const d = new TextDecoder();
  return [out.code, d.decode(out.stdout), d.decode(out.stderr)];
}

Deno.test("a bad config file is a startup error naming the file and the key", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/bad.jsonc`;
    await Deno.writeTextFile(path, '{ "max_steps": -1, }');
    const [code, stdout, err] = await serverWithConfig(path, dir);
    assertEquals([code, stdout], [2, ""]);
    assertMatch(err, /bad\.jsonc/);
    assertMatch(err, /"max_steps" must be a positive integer, got -1/);
    await Deno.writeTextFile(path, '{ "max_stepz": 3 }');
    const [code2, , err2] = await serverWithConfig(path, dir);
    assertEquals(code2, 2);
    assertMatch(err2, /unknown key "max_stepz"/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a connection opens at most 64 sessions; the 65th is invalid_request", async () => {
  await withProc({}, async (p) => {
    await p.open();
    const dir = await Deno.makeTempDir({ dir: p.tempDir });
    for (let i = 2; i <= 64; i++) {
      await p.send({ type: "session.start", request_id: `s${i}`, cwd: dir });
      await p.next((e) => e.type === "session.started" && e.request_id === `s${i}`);
    }
    await p.send({ type: "session.start", request_id: "s65", cwd: dir });
    const err = await p.nextOf("error");
    assertEquals([err.code, err.request_id], ["invalid_request", "s65"]);
    assertMatch(err.message, /64 sessions/);
  });
});

Deno.test("an error reply never grows with the client's text: a 1 MiB unknown type is answered and the connection goes on", async () => {
  // Default client frame limit (1 MiB), and a server frame limit that a full echo would cross.
  await withProc({ config: { max_server_frame_bytes: 1048576 } }, async (p) => {
    await p.open();
    const base = { type: "", request_id: "BIG" };
    const type = "t".repeat(1048576 - JSON.stringify(base).length);
    await p.send({ ...base, type });
    const ev = await p.nextOf("error");
    assertEquals([ev.code, ev.request_id, ev.fatal], ["invalid_request", "BIG", false]);
    assertEquals(
      ev.message,
      `unknown message type "${"t".repeat(120)}…" (${type.length} characters)`,
    );
    await p.send({ type: "session.start", request_id: "after", cwd: "/tmp" });
    assertEquals((await p.nextOf("session.started")).request_id, "after");
  });
});

Deno.test("ids and paths a client sends are quoted cut short, so a 4096-byte frame limit keeps the right codes", async () => {
  await withProc({ config: { max_server_frame_bytes: 4096 } }, async (p) => {
    await p.open();
    const long = "s".repeat(5000);
    const cases: Array<[Record<string, unknown>, string]> = [
      [
        { type: "turn.start", request_id: "a", session_id: long, prompt: "hi" },
        "session_not_found",
      ],
      [{ type: "session.clear", request_id: "b", session_id: long }, "session_not_found"],
      [{ type: "session.start", request_id: "c", cwd: long }, "invalid_request"],
      [{ type: "session.start", request_id: "d", cwd: `/${long}` }, "invalid_request"],
      [{ type: long, request_id: "e" }, "invalid_request"],
    ];
    for (const [msg, code] of cases) {
      await p.send(msg);
      const ev = await p.next((e) => e.type === "error" && e.request_id === msg.request_id);
      assertEquals(ev.code, code, JSON.stringify(ev).slice(0, 300));
      assert(ev.message.length < 500, ev.message);
    }
    await p.send({ type: "session.start", request_id: "s", cwd: p.tempDir });
    const sessionId = (await p.nextOf("session.started")).session_id;
    for (
      const msg of [
        { type: "turn.cancel", request_id: "f", session_id: sessionId, turn_id: long },
        {
          type: "approval.resolve",
          request_id: "g",
          session_id: sessionId,
          approval_id: long,
          approved: true,
        },
      ]
    ) {
      await p.send(msg);
      const ev = await p.next((e) => e.type === "error" && e.request_id === msg.request_id);
      assertMatch(ev.code, /^(turn|approval)_not_found$/);
      assert(ev.message.length < 500, ev.message);
    }
  });
});

Deno.test("a request_id over 256 bytes is refused without being echoed; 256 bytes is accepted", async () => {
  await withProc({ config: { max_server_frame_bytes: 4096 } }, async (p) => {
    await p.send({ type: "initialize", request_id: "é".repeat(128) + "x", protocol_version: 1 });
    const ev = await p.nextOf("error");
    assertEquals([ev.code, "request_id" in ev, ev.fatal], ["invalid_request", false, false]);
    assertMatch(ev.message, /^request_id takes 257 bytes in a frame, more than the 256 bytes/);
    const exact = "é".repeat(128);
    await p.send({ type: "initialize", request_id: exact, protocol_version: 1 });
    assertEquals((await p.nextOf("initialized")).request_id, exact);
    // After the handshake too, for every request type: the reply that would echo it is refused.
    await p.send({ type: "session.clear", request_id: "r".repeat(5000), session_id: "x" });
    const clear = await p.nextOf("error");
    assertEquals([clear.code, "request_id" in clear], ["invalid_request", false]);
    await p.send({ type: "session.start", request_id: "s", cwd: p.tempDir });
    const sessionId = (await p.nextOf("session.started")).session_id;
    await p.send({
      type: "turn.start",
      request_id: "r".repeat(300),
      session_id: sessionId,
      prompt: "hi",
    });
    const turn = await p.nextOf("error");
    assertEquals([turn.code, "request_id" in turn], ["invalid_request", false]);
    assertEquals(p.events.filter((e) => e.type === "turn.started"), [], "no turn started");
  });
});

Deno.test("a server frame limit too small for session.started refuses the session instead of ending the connection", async () => {
  await withProc({ config: { max_server_frame_bytes: 200 } }, async (p) => {
    await p.send({ type: "initialize", request_id: "1", protocol_version: 1 });
    await p.nextOf("initialized");
    await p.send({ type: "session.start", request_id: "s", cwd: "/tmp" });
    const ev = await p.nextOf("error");
    assertEquals([ev.code, ev.request_id], ["invalid_request", "s"]);
    assertMatch(ev.message, /session\.started reply .* more than max_server_frame_bytes \(200\)/);
    // The session was never announced, so it does not exist; the connection still answers.
    await p.send({ type: "nope", request_id: "n" });
    assertEquals((await p.nextOf("error")).request_id, "n");
  });
});

Deno.test("a request_id is measured as it sits in a frame: escapes count", async () => {
  await withProc({}, async (p) => {
    // 43 control characters are 43 bytes of UTF-8 but 258 bytes once escaped (\u0001 each).
    await p.send({ type: "initialize", request_id: "\u0001".repeat(43), protocol_version: 1 });
    const ev = await p.nextOf("error");
    assertEquals([ev.code, "request_id" in ev], ["invalid_request", false]);
    assertMatch(ev.message, /^request_id takes 258 bytes in a frame/);
    await p.send({ type: "initialize", request_id: "\u0001".repeat(42), protocol_version: 1 });
    assertEquals((await p.nextOf("initialized")).request_id, "\u0001".repeat(42));
  });
});

Deno.test("an error that cannot carry its request_id within a tiny frame limit still gets a reply", async () => {
  await withProc({ config: { max_server_frame_bytes: 300 } }, async (p) => {
    const id = "\u0001".repeat(40); // 240 bytes escaped: accepted, but no room to echo it
    await p.send({ type: "nope", request_id: id });
    const ev = await p.nextOf("error");
    assertEquals([ev.code, "request_id" in ev, ev.fatal], ["invalid_request", false, false]);
    const logged = /a "invalid_request" error did not fit max_server_frame_bytes \(300\)/;
    for (let i = 0; i < 40 && !logged.test(p.stderr); i++) {
      await new Promise((r) => setTimeout(r, 50)); // stderr is read on its own
    }
    assertMatch(p.stderr, logged);
    await p.send({ type: "initialize", request_id: "ok", protocol_version: 1 });
    assertEquals((await p.nextOf("initialized")).request_id, "ok");
  });
});

Deno.test("a turn that could not end within the frame limit is refused before it starts", async () => {
  await withProc({ config: { max_server_frame_bytes: 460 } }, async (p) => {
    await p.send({ type: "initialize", request_id: "1", protocol_version: 1 });
    await p.nextOf("initialized");
    await p.send({ type: "session.start", request_id: "s", cwd: "/" });
    const { session_id } = await p.nextOf("session.started");
    // 200 bytes is a legal request_id, but with it even a short turn.failed would not fit.
    await p.send({ type: "turn.start", request_id: "r".repeat(200), session_id, prompt: "hi" });
    const ev = await p.nextOf("error");
    assertEquals([ev.code, ev.request_id], ["invalid_request", "r".repeat(200)]);
    assertMatch(ev.message, /would not fit max_server_frame_bytes \(460\)/);
    assertEquals(p.events.filter((e) => e.type === "turn.started"), []);
  });
});
