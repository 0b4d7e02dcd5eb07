/**
 * Processes that must not survive: SIGHUP (a closed terminal) ends `scv server` like EOF, and
 * SIGTERM or SIGHUP cancels `scv exec`'s turn; either way the tool processes of the call are
 * gone afterwards (shown alive first).
 */
import assert from "node:assert/strict";
import { MockOpenAI, text, toolCalls } from "../support/mock_openai.ts";
import { SERVER_FLAGS, ServerProcess } from "../support/server_process.ts";
import { processesWith } from "../support/probes.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;

/**
 * A `sleep` command line no other run on the machine has: a process left by another checkout's
 * run of these tests must neither count as this call's process nor as its survivor.
 */
function uniqueSleep(seconds: number): string {
  return `sleep ${seconds}.${crypto.getRandomValues(new Uint32Array(1))[0]}`;
}

async function eventually(check: () => Promise<boolean>, ms = 30_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return false;
}

for (const sandbox of ["auto", "off"] as const) {
  Deno.test(`scv server ends on SIGHUP like EOF and leaves no tool process (sandbox ${sandbox})`, async () => {
    const marker = uniqueSleep(2718);
    const mock = await MockOpenAI.start((_r, i) =>
      i === 0 ? toolCalls([{ name: "bash", arguments: { command: marker } }]) : text("x")
    );
    const server = await ServerProcess.start({
      config: { base_url: mock.baseUrl, approval_policy: "never", sandbox },
    });
    try {
      const { sessionId } = await server.open();
      await server.startTurn(sessionId, "go");
      await server.nextOf("tool.started");
      assert.ok(await eventually(async () => (await processesWith(marker)).length > 0));
      server.child.kill("SIGHUP");
      assert.equal(await server.exited(), 0);
      assert.ok(server.events.some((e) => e.type === "turn.cancelled"));
      assert.ok(await eventually(async () => (await processesWith(marker)).length === 0, 5000));
    } finally {
      await server.kill();
      await mock.close();
    }
  });
}

for (const signal of ["SIGTERM", "SIGHUP"] as const) {
  Deno.test(`scv exec cancels its turn on ${signal} and leaves no tool process`, async () => {
    const marker = uniqueSleep(3172);
    const mock = await MockOpenAI.start((_r, i) =>
      i === 0 ? toolCalls([{ name: "bash", arguments: { command: marker } }]) : text("x")
    );
    const dir = await Deno.makeTempDir({ prefix: "scv-exec-sig-" });
    try {
      const child = new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          ...SERVER_FLAGS,
          MAIN,
          "exec",
          "--approval-policy",
          "auto",
          "--cwd",
          dir,
          "go",
        ],
        env: {
          OPENAI_BASE_URL: mock.baseUrl,
          XDG_CONFIG_HOME: `${dir}/cfg`,
          XDG_STATE_HOME: `${dir}/state`,
        },
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      }).spawn();
      const stderr = child.stderr.pipeThrough(new TextDecoderStream());
      const stdout = child.stdout.pipeThrough(new TextDecoderStream());
      const errText = (async () => {
        let s = "";
        for await (const c of stderr) s += c;
        return s;
      })();
      const outText = (async () => {
        let s = "";
        for await (const c of stdout) s += c;
        return s;
      })();
      assert.ok(await eventually(async () => (await processesWith(marker)).length > 0));
      child.kill(signal);
      const status = await child.status;
      const err = await errText;
      await outText;
      assert.equal(status.code, 130, err);
      assert.match(err, new RegExp(`${signal}: cancelling`));
      assert.match(err, /turn cancelled/);
      assert.deepEqual(await processesWith(marker), []);
    } finally {
      await mock.close();
      await Deno.remove(dir, { recursive: true });
    }
  });
}

Deno.test("scv acp ends on SIGHUP like EOF, with status 0 rather than death by the signal", async () => {
  const dir = await Deno.makeTempDir({ prefix: "scv-acp-sig-" });
  try {
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", ...SERVER_FLAGS, MAIN, "acp"],
      env: { XDG_CONFIG_HOME: `${dir}/cfg`, XDG_STATE_HOME: `${dir}/state` },
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    // Answered initialize: the agent is up and its signal handlers are in place.
    const writer = child.stdin.getWriter();
    await writer.write(
      new TextEncoder().encode(
        JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: { protocolVersion: 1, clientCapabilities: {} },
        }) + "\n",
      ),
    );
    const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let seen = "";
    while (!seen.includes('"id":1')) {
      const { value, done } = await reader.read();
      if (done) break;
      seen += value;
    }
    assert.match(seen, /"protocolVersion"/);
    child.kill("SIGHUP");
    const status = await child.status;
    assert.deepEqual([status.code, status.signal], [0, null]);
    await reader.cancel();
    await child.stderr.cancel();
    await writer.close().catch(() => {});
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
