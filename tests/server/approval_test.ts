/**
 * Integration tests of tool calls through the real server: the approval flow under each
 * policy, denial, confinement, cancellation during a running tool and during an approval wait,
 * timeouts, truncation, and missing Deno permissions.
 */
import { exists, processesWith, until } from "../support/probes.ts";
import { assert, assertEquals, assertMatch } from "../support/assert.ts";
import { type Ev, type ServerProcess, withServer } from "../support/server_process.ts";
import { MockOpenAI, text, toolCalls } from "../support/mock_openai.ts";

function types(events: Ev[]): string[] {
  return events.map((e) => e.type).filter((t) => t !== "assistant.delta");
}

async function approve(p: ServerProcess, sessionId: string, approved: boolean): Promise<Ev> {
  const req = await p.nextOf("approval.requested");
  await p.send({
    type: "approval.resolve",
    request_id: `a-${req.approval_id}`,
    session_id: sessionId,
    approval_id: req.approval_id,
    approved,
  });
  return req;
}

Deno.test("on-risk: a bash call is proposed, approval requested, started only after approval, then completed", async () => {
  const mock = await MockOpenAI.start([
    toolCalls([{ id: "call_123", name: "bash", arguments: { command: "echo out; echo err >&2" } }]),
    text("done"),
  ]);
  await withServer(mock, { config: { approval_policy: "on-risk" } }, async (p) => {
    const { sessionId, cwd } = await p.open();
    const t = await p.startTurn(sessionId, "run it");
    const req = await p.nextOf("approval.requested");
    assertEquals(req.call_id, "call_123");
    assertEquals(req.name, "bash");
    assertEquals(req.risk, "process");
    assertEquals(req.cwd, cwd);
    assertEquals(req.summary, "Run shell command: echo out; echo err >&2");
    assertMatch(req.approval_id, /^[0-9a-f-]{36}$/);
    // Nothing starts while the approval is pending: a later request is answered first.
    await p.send({ type: "turn.cancel", request_id: "probe", session_id: sessionId, turn_id: "x" });
    assertEquals((await p.nextOf("error")).code, "turn_not_found");
    assert(!p.turnEvents(t.turn_id).some((e) => e.type === "tool.started"));
    await p.send({
      type: "approval.resolve",
      request_id: "res",
      session_id: sessionId,
      approval_id: req.approval_id,
      approved: true,
    });
    const done = await p.terminal(t.turn_id);
    assertEquals(done.type, "turn.completed");
    assertEquals(types(p.turnEvents(t.turn_id)), [
      "turn.started",
      "assistant.completed",
      "tool.proposed",
      "approval.requested",
      "tool.started",
      "tool.completed",
      "assistant.completed",
      "turn.completed",
    ]);
    const completed = p.eventOf(t.turn_id, "tool.completed");
    assertEquals(completed.success, true);
    assertMatch(completed.output, /out/);
    assertMatch(completed.output, /err/);
    // A successful approval.resolve has no reply of its own.
    assert(!p.events.some((e) => e.request_id === "res"));
    assertEquals(p.schemaErrors, []);
  });
});

Deno.test("an already-resolved approval_id is rejected with approval_not_found", async () => {
  const mock = await MockOpenAI.start([
    toolCalls([{ name: "bash", arguments: { command: "true" } }]),
    text("done"),
  ]);
  await withServer(mock, {}, async (p) => {
    const { sessionId } = await p.open();
    const t = await p.startTurn(sessionId, "go");
    const req = await approve(p, sessionId, true);
    await p.terminal(t.turn_id);
    await p.send({
      type: "approval.resolve",
      request_id: "twice",
      session_id: sessionId,
      approval_id: req.approval_id,
      approved: true,
    });
    const err = await p.nextOf("error");
    assertEquals([err.code, err.request_id], ["approval_not_found", "twice"]);
  });
});

Deno.test("a denied call completes with success false, a model-visible message, and the turn goes on", async () => {
  const mock = await MockOpenAI.start([
    toolCalls([{ id: "c1", name: "bash", arguments: { command: "touch should-not-exist" } }]),
    text("ok, I will not"),
  ]);
  await withServer(mock, {}, async (p) => {
    const { sessionId, cwd } = await p.open();
    const t = await p.startTurn(sessionId, "go");
    await approve(p, sessionId, false);
    const done = await p.terminal(t.turn_id);
    assertEquals(done.type, "turn.completed");
    const evs = p.turnEvents(t.turn_id);
    assert(!evs.some((e) => e.type === "tool.started"), "a denied call never starts");
    const completed = evs.find((e) => e.type === "tool.completed")!;
    assertEquals(completed.success, false);
    assertMatch(completed.output, /denied/);
    const toolMsg = mock.requests[1]!.body.messages.find((m) => m.role === "tool")!;
    assertMatch(String(toolMsg.content), /denied/);
    assertEquals(await exists(`${cwd}/should-not-exist`), false);
  });
});

Deno.test("policy always asks even for read tools; never asks for nothing; on-risk skips reads", async () => {
  for (const [policy, asks] of [["always", true], ["on-risk", false], ["never", false]] as const) {
    const mock = await MockOpenAI.start([
      toolCalls([{ name: "read_file", arguments: { path: "a.txt" } }]),
      text("read"),
    ]);
    await withServer(mock, { config: { approval_policy: policy } }, async (p) => {
      const { sessionId, cwd } = await p.open();
      await Deno.writeTextFile(`${cwd}/a.txt`, "alpha\n");
      const t = await p.startTurn(sessionId, "read it");
      if (asks) {
        const req = await approve(p, sessionId, true);
        assertEquals([req.risk, req.summary], ["read", "Read file: a.txt"]);
      }
      await p.terminal(t.turn_id);
      const evs = p.turnEvents(t.turn_id);
      assertEquals(evs.some((e) => e.type === "approval.requested"), asks, policy);
      const completed = evs.find((e) => e.type === "tool.completed")!;
      assertEquals(completed.success, true);
      assertMatch(completed.output, /alpha/);
    });
  }
});

Deno.test("policy never runs a bash call without asking", async () => {
  const mock = await MockOpenAI.start([
    toolCalls([{ name: "bash", arguments: { command: "echo ran" } }]),
    text("done"),
  ]);
  await withServer(mock, { config: { approval_policy: "never" } }, async (p) => {
    const { sessionId } = await p.open();
    const { t } = await p.runTurn(sessionId, "go");
    const evs = p.turnEvents(t.turn_id);
    assert(!evs.some((e) => e.type === "approval.requested"));
    assertEquals(evs.find((e) => e.type === "tool.completed")!.output.trim(), "ran");
  });
});

Deno.test("the --approval-policy flag applies to scv server", async () => {
  const mock = await MockOpenAI.start([
    toolCalls([{ name: "bash", arguments: { command: "echo ran" } }]),
    text("done"),
  ]);
  await withServer(mock, {
    config: { approval_policy: "always" },
    args: ["--approval-policy", "never"],
  }, async (p) => {
    const { sessionId } = await p.open();
    const { t } = await p.runTurn(sessionId, "go");
    assert(!p.turnEvents(t.turn_id).some((e) => e.type === "approval.requested"));
  });
});

Deno.test("a read outside the workspace is announced with risk write", async () => {
  const mock = await MockOpenAI.start([
    toolCalls([{ name: "read_file", arguments: { path: "../outside.txt" } }]),
    text("done"),
  ]);
  await withServer(mock, { config: { approval_policy: "on-risk" } }, async (p) => {
    const { sessionId, cwd } = await p.open();
    await Deno.writeTextFile(`${cwd}/../outside.txt`, "secret-ish\n");
    const t = await p.startTurn(sessionId, "read it");
    const req = await approve(p, sessionId, false);
    assertEquals(req.risk, "write");
    assertEquals(req.summary, "Read file: ../outside.txt");
    await p.terminal(t.turn_id);
  });
});

Deno.test("a write outside the workspace is refused and writes nothing", async () => {
  const mock = await MockOpenAI.start([
    toolCalls([{ name: "write_file", arguments: { path: "../escaped.txt", content: "x" } }]),
    text("done"),
  ]);
  await withServer(mock, { config: { approval_policy: "never" } }, async (p) => {
    const { sessionId, cwd } = await p.open();
    const { t } = await p.runTurn(sessionId, "write it");
    const completed = p.eventOf(t.turn_id, "tool.completed");
    assertEquals(completed.success, false);
    assertMatch(completed.output, /outside the workspace/);
    assertEquals(await exists(`${cwd}/../escaped.txt`), false);
  });
});

Deno.test("arguments that fail the tool's schema complete with success false naming the field", async () => {
  const mock = await MockOpenAI.start([
    toolCalls([{ name: "bash", arguments: { cmd: "ls" } }]),
    text("oops"),
  ]);
  await withServer(mock, {}, async (p) => {
    const { sessionId } = await p.open();
    const { t } = await p.runTurn(sessionId, "go");
    const evs = p.turnEvents(t.turn_id);
    assert(
      !evs.some((e) => e.type === "approval.requested"),
      "invalid calls are not put to the user",
    );
    const completed = evs.find((e) => e.type === "tool.completed")!;
    assertEquals(completed.success, false);
    assertMatch(completed.output, /Invalid arguments for bash: "command"/);
  });
});

Deno.test("arguments that are not a JSON object are described to the model as such", async () => {
  const mock = await MockOpenAI.start([
    toolCalls([{ name: "glob", arguments: [] }, { name: "bash", arguments: "null" }]),
    text("oops"),
  ]);
  await withServer(mock, {}, async (p) => {
    const { sessionId } = await p.open();
    const { t } = await p.runTurn(sessionId, "go");
    const outputs = p.turnEvents(t.turn_id).filter((e) => e.type === "tool.completed")
      .map((e) => [e.success, e.output]);
    assertEquals(outputs, [
      [false, "Invalid arguments for glob: the arguments must be a JSON object, got an array"],
      [false, "Invalid arguments for bash: the arguments must be a JSON object, got null"],
    ]);
  });
});

Deno.test("cancel during a running sleep ends with tool.completed then turn.cancelled within 3 s, no survivor", async () => {
  const marker = `scvmark${crypto.randomUUID().slice(0, 8)}`;
  const mock = await MockOpenAI.start([
    toolCalls([{ name: "bash", arguments: { command: `sleep 100 & sleep 101; echo ${marker}` } }]),
  ]);
  await withServer(mock, { config: { approval_policy: "never" } }, async (p) => {
    const { sessionId } = await p.open();
    const t = await p.startTurn(sessionId, "go");
    await p.nextOf("tool.started");
    await until(async () => (await processesWith("sleep 10")).length >= 2, "both sleeps run");
    const { done, ms } = await p.cancelTurn(sessionId, t.turn_id, "c");
    assert(ms < 3000, "cancelled within 3 s");
    assertEquals(done.type, "turn.cancelled");
    const evs = types(p.turnEvents(t.turn_id));
    assertEquals(evs.slice(-2), ["tool.completed", "turn.cancelled"]);
    const completed = p.eventOf(t.turn_id, "tool.completed");
    assertEquals(completed.success, false);
    assertEquals(await processesWith(`sleep 10`), [], "no process outlives its call");
  });
});

Deno.test("cancel during an approval wait ends the turn and the approval can no longer be resolved", async () => {
  const mock = await MockOpenAI.start([
    toolCalls([{ name: "bash", arguments: { command: "true" } }]),
  ]);
  await withServer(mock, {}, async (p) => {
    const { sessionId } = await p.open();
    const t = await p.startTurn(sessionId, "go");
    const req = await p.nextOf("approval.requested");
    const { done, ms } = await p.cancelTurn(sessionId, t.turn_id, "c");
    assertEquals(done.type, "turn.cancelled");
    assert(ms < 3000);
    assert(!p.turnEvents(t.turn_id).some((e) => e.type === "tool.started"));
    await p.send({
      type: "approval.resolve",
      request_id: "late",
      session_id: sessionId,
      approval_id: req.approval_id,
      approved: true,
    });
    assertEquals((await p.nextOf("error")).code, "approval_not_found");
  });
});

Deno.test("EOF during a running tool kills its processes and the server exits 0", async () => {
  const mock = await MockOpenAI.start([
    toolCalls([{ name: "bash", arguments: { command: "sleep 102" } }]),
  ]);
  await withServer(mock, { config: { approval_policy: "never" } }, async (p) => {
    const { sessionId } = await p.open();
    await p.startTurn(sessionId, "go");
    await p.nextOf("tool.started");
    await until(async () => (await processesWith("sleep 102")).length > 0, "the sleep runs");
    await p.closeStdin();
    assertEquals(await p.exited(), 0);
    assertEquals(await processesWith("sleep 102"), []);
  });
});

Deno.test("a background grandchild does not outlive a finished bash call", async () => {
  const mock = await MockOpenAI.start([
    toolCalls([{
      name: "bash",
      arguments: {
        command: "(sleep 103 & echo $! > p103) ; nohup sleep 104 >/dev/null 2>&1 & " +
          "echo $! > p104; echo started",
      },
    }]),
    text("done"),
  ]);
  await withServer(mock, { config: { approval_policy: "never" } }, async (p) => {
    const { sessionId, cwd } = await p.open();
    const { done } = await p.runTurn(sessionId, "go");
    assertEquals(done.type, "turn.completed");
    // Both were started (their pids were recorded; in the sandbox's own pid namespace), and
    // neither is left.
    const pids = [await Deno.readTextFile(`${cwd}/p103`), await Deno.readTextFile(`${cwd}/p104`)]
      .map((t) => Number(t.trim()));
    assert(pids.every((pid) => pid > 0), `pids ${pids}`);
    assertEquals(await processesWith("sleep 103"), []);
    assertEquals(await processesWith("sleep 104"), []);
  });
});

Deno.test("a bash call past its timeout is killed and fails with a clear message", async () => {
  const mock = await MockOpenAI.start([
    toolCalls([{
      name: "bash",
      arguments: { command: "echo $$ > pid; exec sleep 105", timeout_ms: 300 },
    }]),
    text("too slow"),
  ]);
  await withServer(mock, { config: { approval_policy: "never" } }, async (p) => {
    const { sessionId, cwd } = await p.open();
    const { t } = await p.runTurn(sessionId, "go");
    const completed = p.eventOf(t.turn_id, "tool.completed");
    assertEquals(completed.success, false);
    assertMatch(completed.output, /timed out/);
    // The command did start (it recorded its pid), and was killed.
    const pid = Number((await Deno.readTextFile(`${cwd}/pid`)).trim());
    assert(pid > 0, `pid ${pid}`);
    assertEquals(await processesWith("sleep 105"), []);
  });
});

Deno.test("tool_timeout_ms caps a longer timeout_ms", async () => {
  const mock = await MockOpenAI.start([
    toolCalls([{ name: "bash", arguments: { command: "sleep 106", timeout_ms: 100000 } }]),
    text("too slow"),
  ]);
  await withServer(
    mock,
    { config: { approval_policy: "never", tool_timeout_ms: 300 } },
    async (p) => {
      const { sessionId } = await p.open();
      const t = await p.startTurn(sessionId, "go");
      const t0 = Date.now();
      await p.terminal(t.turn_id);
      assert(Date.now() - t0 < 5000);
      const completed = p.eventOf(t.turn_id, "tool.completed");
      assertMatch(completed.output, /timed out/);
    },
  );
});

Deno.test("grep searches in its worker under the server's narrow permission flags", async () => {
  const mock = await MockOpenAI.start([
    toolCalls([{ name: "grep", arguments: { pattern: "needle", glob: "*.txt" } }]),
    text("found"),
  ]);
  await withServer(mock, { config: { approval_policy: "never" } }, async (p) => {
    const { sessionId, cwd } = await p.open();
    await Deno.mkdir(`${cwd}/sub`);
    await Deno.writeTextFile(`${cwd}/sub/a.txt`, "hay\nneedle\n");
    await Deno.writeTextFile(`${cwd}/b.md`, "needle\n");
    const { t } = await p.runTurn(sessionId, "go");
    const completed = p.eventOf(t.turn_id, "tool.completed");
    assertEquals([completed.success, completed.output], [true, "sub/a.txt:2:needle"]);
  });
});

Deno.test("tool_timeout_ms stops a grep over a big tree with a timeout message", async () => {
  const mock = await MockOpenAI.start([
    toolCalls([{ id: "g1", name: "grep", arguments: { pattern: "needle" } }]),
    text("too slow"),
  ]);
  await withServer(
    mock,
    { config: { approval_policy: "never", tool_timeout_ms: 50 } },
    async (p) => {
      const { sessionId, cwd } = await p.open();
      for (let d = 0; d < 40; d++) {
        await Deno.mkdir(`${cwd}/d${d}`);
        for (let f = 0; f < 50; f++) {
          await Deno.writeTextFile(`${cwd}/d${d}/f${f}.txt`, "hay\nneedle\nhay\n");
        }
      }
      const { t, done } = await p.runTurn(sessionId, "go");
      assertEquals(done.type, "turn.completed");
      const completed = p.eventOf(t.turn_id, "tool.completed");
      assertEquals(
        [completed.call_id, completed.success, completed.output],
        ["g1", false, "grep timed out after 50 ms"],
      );
      const toolMsg = mock.requests[1]!.body.messages.find((m) => m.role === "tool")!;
      assertEquals(toolMsg.content, "grep timed out after 50 ms");
    },
  );
});

Deno.test("a cancelled grep stuck in a catastrophic pattern is cancelled, not timed out", async () => {
  const mock = await MockOpenAI.start([
    toolCalls([{ name: "grep", arguments: { pattern: "^(a+)+$" } }]),
    text("unreachable"),
  ]);
  await withServer(mock, { config: { approval_policy: "never" } }, async (p) => {
    const { sessionId, cwd } = await p.open();
    await Deno.writeTextFile(`${cwd}/a.txt`, `${"a".repeat(40)}!\n`);
    const t = await p.startTurn(sessionId, "go");
    await p.nextOf("tool.started");
    const { done, ms } = await p.cancelTurn(sessionId, t.turn_id, "c1");
    assert(ms < 3000, "cancellation took too long");
    assertEquals(done.type, "turn.cancelled");
    const completed = p.eventOf(t.turn_id, "tool.completed");
    assertEquals(completed.success, false);
    assertMatch(completed.output, /cancelled/);
  });
});

Deno.test("output over max_tool_output_bytes keeps head and tail and sets truncated", async () => {
  const mock = await MockOpenAI.start([
    toolCalls([{ name: "bash", arguments: { command: "echo HEAD; seq 1 100000; echo TAIL" } }]),
    text("long"),
  ]);
  await withServer(
    mock,
    { config: { approval_policy: "never", max_tool_output_bytes: 2000 } },
    async (p) => {
      const { sessionId } = await p.open();
      const { t } = await p.runTurn(sessionId, "go");
      const completed = p.eventOf(t.turn_id, "tool.completed");
      assertEquals(completed.truncated, true);
      assert(new TextEncoder().encode(completed.output).length <= 2000);
      assertMatch(completed.output, /^HEAD/);
      assertMatch(completed.output, /TAIL\s*$/);
    },
  );
});

Deno.test("a non-zero exit is success false with the exit code in the output", async () => {
  const mock = await MockOpenAI.start([
    toolCalls([{ name: "bash", arguments: { command: "echo failing; exit 3" } }]),
    text("it failed"),
  ]);
  await withServer(mock, { config: { approval_policy: "never" } }, async (p) => {
    const { sessionId } = await p.open();
    const { t } = await p.runTurn(sessionId, "go");
    const completed = p.eventOf(t.turn_id, "tool.completed");
    assertEquals(completed.success, false);
    assertMatch(completed.output, /exit code 3/);
  });
});

Deno.test("the provider's API key is not in a bash call's environment", async () => {
  const mock = await MockOpenAI.start([
    toolCalls([{ name: "bash", arguments: { command: "env" } }]),
    text("done"),
  ]);
  await withServer(
    mock,
    { config: { approval_policy: "never" }, env: { OPENAI_API_KEY: "sk-env-secret-555" } },
    async (p) => {
      const { sessionId } = await p.open();
      const { t } = await p.runTurn(sessionId, "go");
      const completed = p.eventOf(t.turn_id, "tool.completed");
      assertEquals(completed.success, true);
      assert(!completed.output.includes("sk-env-secret-555"));
      assert(!completed.output.includes("OPENAI_API_KEY"));
    },
  );
});

Deno.test("several calls in one response run in the model's order", async () => {
  const mock = await MockOpenAI.start([
    toolCalls([
      { id: "first", name: "bash", arguments: { command: "echo one" } },
      { id: "second", name: "bash", arguments: { command: "echo two" } },
    ]),
    text("both"),
  ]);
  await withServer(mock, { config: { approval_policy: "never" } }, async (p) => {
    const { sessionId } = await p.open();
    const { t } = await p.runTurn(sessionId, "go");
    const seq = p.turnEvents(t.turn_id).filter((e) => e.type.startsWith("tool.")).map((e) =>
      `${e.type}:${e.call_id}`
    );
    assertEquals(seq, [
      "tool.proposed:first",
      "tool.started:first",
      "tool.completed:first",
      "tool.proposed:second",
      "tool.started:second",
      "tool.completed:second",
    ]);
    const msgs = mock.requests[1]!.body.messages;
    assertEquals(msgs.filter((m) => m.role === "tool").map((m) => m.tool_call_id), [
      "first",
      "second",
    ]);
  });
});

Deno.test("a read whose path leaves the workspace while approval is pending does not run", async () => {
  const mock = await MockOpenAI.start([
    toolCalls([{ id: "r", name: "read_file", arguments: { path: "link/secret.txt" } }]),
    text("done"),
  ]);
  await withServer(mock, { config: { approval_policy: "always" } }, async (p) => {
    const { sessionId, cwd } = await p.open();
    await Deno.mkdir(`${cwd}/inside`);
    await Deno.writeTextFile(`${cwd}/inside/secret.txt`, "harmless\n");
    const outside = await Deno.makeTempDir({ dir: p.tempDir });
    await Deno.writeTextFile(`${outside}/secret.txt`, "TOPSECRET\n");
    await Deno.symlink(`${cwd}/inside`, `${cwd}/link`);
    const t = await p.startTurn(sessionId, "read it");
    const req = await p.nextOf("approval.requested");
    assertEquals(req.risk, "read");
    // Swap the symlink to point outside before approving.
    await Deno.remove(`${cwd}/link`);
    await Deno.symlink(outside, `${cwd}/link`);
    await p.send({
      type: "approval.resolve",
      request_id: "ok",
      session_id: sessionId,
      approval_id: req.approval_id,
      approved: true,
    });
    await p.terminal(t.turn_id);
    const completed = p.eventOf(t.turn_id, "tool.completed");
    assertEquals(completed.success, false);
    assertMatch(completed.output, /now has risk "write"/);
    assert(!completed.output.includes("TOPSECRET"));
    assert(!p.turnEvents(t.turn_id).some((e) => e.type === "tool.started"));
  });
});

const STUBBORN = new URL("../fixtures/stubborn_tool_server.ts", import.meta.url).pathname;

Deno.test("a tool that ignores cancellation is abandoned and the turn still ends within 3 s", async () => {
  const mock = await MockOpenAI.start([toolCalls([{ id: "s", name: "stubborn", arguments: {} }])]);
  await withServer(mock, { script: STUBBORN, config: { approval_policy: "never" } }, async (p) => {
    const { sessionId } = await p.open();
    const t = await p.startTurn(sessionId, "go");
    await p.nextOf("tool.started");
    const { done, ms } = await p.cancelTurn(sessionId, t.turn_id, "c");
    assert(ms < 3000, "cancellation takes effect within 3 s");
    assertEquals(done.type, "turn.cancelled");
    assertEquals(types(p.turnEvents(t.turn_id)).slice(-2), ["tool.completed", "turn.cancelled"]);
    assertEquals(p.eventOf(t.turn_id, "tool.completed").success, false);
  });
});

Deno.test("a tool that ignores its time limit is abandoned with a timeout message", async () => {
  const mock = await MockOpenAI.start([
    toolCalls([{ id: "s", name: "stubborn", arguments: {} }]),
    text("gave up"),
  ]);
  await withServer(
    mock,
    { script: STUBBORN, config: { approval_policy: "never", tool_timeout_ms: 300 } },
    async (p) => {
      const { sessionId } = await p.open();
      const t = await p.startTurn(sessionId, "go");
      assertEquals((await p.terminal(t.turn_id)).type, "turn.completed");
      const completed = p.eventOf(t.turn_id, "tool.completed");
      assertEquals(completed.success, false);
      assertMatch(completed.output, /timed out after 300 ms/);
    },
  );
});
