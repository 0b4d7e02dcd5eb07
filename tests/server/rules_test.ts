/**
 * Approval rules through the real server: the user's and the workspace's rules files, the
 * built-in rules, `remember: "session"`, `rules.list`, and the startup errors of bad files.
 */
import { assert, assertEquals, assertMatch } from "../support/assert.ts";
import { type Ev, ServerProcess, withServer } from "../support/server_process.ts";
import { MockOpenAI, text, toolCalls } from "../support/mock_openai.ts";
import { BUILTIN_RULES } from "../../server/core/rules/builtin.ts";

const BUILTIN_COUNT = BUILTIN_RULES.length;

const bash = (id: string, command: string) =>
  toolCalls([{ id, name: "bash", arguments: { command } }]);

async function writeUserRules(p: ServerProcess, rules: unknown[]): Promise<void> {
  await Deno.mkdir(`${p.tempDir}/xdg-config/scv`, { recursive: true });
  await Deno.writeTextFile(`${p.tempDir}/xdg-config/scv/rules.jsonc`, JSON.stringify(rules));
}

async function resolve(p: ServerProcess, sessionId: string, req: Ev, extra = {}): Promise<void> {
  await p.send({
    type: "approval.resolve",
    request_id: `r-${req.approval_id}`,
    session_id: sessionId,
    approval_id: req.approval_id,
    approved: true,
    ...extra,
  });
}

Deno.test("a deny rule refuses a bash call without asking, its justification shown to the model", async () => {
  const mock = await MockOpenAI.start([bash("c1", "ls && curl https://example.com"), text("ok")]);
  await withServer(mock, { config: { approval_policy: "never" } }, async (p) => {
    await writeUserRules(p, [
      { tool: "bash", prefix: ["curl"], decision: "deny", justification: "no network from here" },
    ]);
    const { sessionId } = await p.open();
    const { t, done } = await p.runTurn(sessionId, "fetch it");
    assertEquals(done.type, "turn.completed");
    const events = p.turnEvents(t.turn_id).map((e) => e.type);
    assert(!events.includes("approval.requested") && !events.includes("tool.started"), `${events}`);
    const completed = p.eventOf(t.turn_id, "tool.completed");
    assertEquals(completed.success, false);
    assertMatch(completed.output, /no network from here/);
    assertMatch(completed.output, /rules\.jsonc rule 1/);
    const sent = JSON.stringify(mock.requests.at(-1)?.body);
    assertMatch(sent, /no network from here/);
    assertEquals(p.schemaErrors, []);
  });
});

Deno.test("an ask rule asks under auto and says which rule asked", async () => {
  const mock = await MockOpenAI.start([bash("c1", "git status"), text("ok")]);
  await withServer(mock, { config: { approval_policy: "auto", sandbox: "off" } }, async (p) => {
    await writeUserRules(p, [
      { tool: "bash", prefix: ["git"], decision: "ask", justification: "git asks here" },
    ]);
    const { sessionId } = await p.open();
    const t = await p.startTurn(sessionId, "status");
    const req = await p.nextOf("approval.requested");
    assertEquals(req.rule.source, "user");
    assertEquals(req.rule.description, "bash git");
    assertEquals(req.rule.decision, "ask");
    assertEquals(req.rule.index, 1);
    assertEquals(req.rule.justification, "git asks here");
    assertMatch(req.rule.file, /xdg-config\/scv\/rules\.jsonc$/);
    await resolve(p, sessionId, req);
    assertEquals((await p.terminal(t.turn_id)).type, "turn.completed");
    assertEquals(p.schemaErrors, []);
  });
});

Deno.test("a built-in rule asks about git reset --hard under auto; under never it runs", async () => {
  for (const policy of ["auto", "never"] as const) {
    const mock = await MockOpenAI.start([bash("c1", "git reset --hard || true"), text("ok")]);
    await withServer(mock, { config: { approval_policy: policy, sandbox: "off" } }, async (p) => {
      const { sessionId } = await p.open();
      const t = await p.startTurn(sessionId, "reset");
      if (policy === "auto") {
        const req = await p.nextOf("approval.requested");
        assertEquals(req.rule.source, "builtin");
        assertEquals(req.rule.description, "bash git reset --hard");
        await resolve(p, sessionId, req);
      }
      assertEquals((await p.terminal(t.turn_id)).type, "turn.completed");
      const types = p.turnEvents(t.turn_id).map((e) => e.type);
      assertEquals(types.includes("approval.requested"), policy === "auto", policy);
      assert(types.includes("tool.started"), policy);
    });
  }
});

Deno.test("an unresolvable command asks under auto, with the parser's reason", async () => {
  const mock = await MockOpenAI.start([bash("c1", "X=echo; $X hi"), text("ok")]);
  await withServer(mock, { config: { approval_policy: "auto", sandbox: "off" } }, async (p) => {
    const { sessionId } = await p.open();
    const t = await p.startTurn(sessionId, "go");
    const req = await p.nextOf("approval.requested");
    assertEquals(req.rule.source, "parser");
    assertMatch(req.rule.justification, /command name/);
    await resolve(p, sessionId, req);
    assertEquals((await p.terminal(t.turn_id)).type, "turn.completed");
  });
});

Deno.test("an allow rule runs a command the policy would ask about, and says so", async () => {
  const mock = await MockOpenAI.start([bash("c1", "echo hi | wc -c"), text("ok")]);
  await withServer(mock, { config: { approval_policy: "on-risk" } }, async (p) => {
    await writeUserRules(p, [
      { tool: "bash", prefix: ["echo"], decision: "allow", match: ["echo x"] },
      { tool: "bash", prefix: ["wc"], decision: "allow" },
    ]);
    const { sessionId } = await p.open();
    const { t, done } = await p.runTurn(sessionId, "count");
    assertEquals(done.type, "turn.completed");
    assert(!p.turnEvents(t.turn_id).some((e) => e.type === "approval.requested"));
    assertEquals(p.eventOf(t.turn_id, "tool.started").auto_approved, "rule");
  });
});

Deno.test("remember session allows the same command later without asking, and only that one", async () => {
  const mock = await MockOpenAI.start([
    bash("c1", "echo one"),
    text("1"),
    bash("c2", "echo one"),
    text("2"),
    bash("c3", "echo two"),
    text("3"),
  ]);
  await withServer(mock, { config: { approval_policy: "on-risk" } }, async (p) => {
    const { sessionId } = await p.open();
    const first = await p.startTurn(sessionId, "first");
    await resolve(p, sessionId, await p.nextOf("approval.requested"), { remember: "session" });
    await p.terminal(first.turn_id);
    assertEquals(p.eventOf(first.turn_id, "tool.started").auto_approved, undefined);
    const { t: second } = await p.runTurn(sessionId, "second");
    assert(!p.turnEvents(second.turn_id).some((e) => e.type === "approval.requested"));
    assertEquals(p.eventOf(second.turn_id, "tool.started").auto_approved, "session rule");
    const third = await p.startTurn(sessionId, "third");
    const req = await p.nextOf("approval.requested");
    assertEquals(req.call_id, "c3");
    await resolve(p, sessionId, req);
    await p.terminal(third.turn_id);
    // rules.list shows the remembered rule after the file and built-in rules.
    await p.send({ type: "rules.list", request_id: "rl", session_id: sessionId });
    const listed = await p.next((e) => e.type === "rules.list" && e.request_id === "rl");
    const last = listed.rules.at(-1);
    assertEquals(last.source, "session");
    assertEquals(last.description, "bash `echo one`");
    assert(listed.rules.some((r: Ev) => r.source === "builtin"));
    assertEquals(p.schemaErrors, []);
  });
});

Deno.test("a workspace's rules file may deny but an allow in it stops the session with its name", async () => {
  const mock = await MockOpenAI.start([]);
  await withServer(mock, {}, async (p) => {
    await p.send({ type: "initialize", request_id: "init", protocol_version: 1 });
    await p.nextOf("initialized");
    const ws = await Deno.makeTempDir({ dir: p.tempDir, prefix: "ws-" });
    await Deno.mkdir(`${ws}/.scv`);
    await Deno.writeTextFile(
      `${ws}/.scv/rules.jsonc`,
      '[{"tool": "bash", "prefix": ["rm"], "decision": "deny"},\n {"tool": "bash", "prefix": ["git"], "decision": "allow"}]',
    );
    await p.send({ type: "session.start", request_id: "s1", cwd: ws });
    const error = await p.nextOf("error");
    assertEquals(error.request_id, "s1");
    assertEquals(error.code, "invalid_request");
    assertMatch(
      error.message,
      /\.scv\/rules\.jsonc": rule 2: a workspace's rules may only ask or deny/,
    );
    assert(!p.events.some((e) => e.type === "session.started"));
  });
});

Deno.test("a user rules file whose rule fails its example stops the server at startup", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.mkdir(`${dir}/scv`);
    await Deno.writeTextFile(
      `${dir}/scv/rules.jsonc`,
      '[{"tool": "bash", "prefix": ["git", "status"], "decision": "allow", "match": ["git stash"]}]',
    );
    const p = await ServerProcess.start({ env: { XDG_CONFIG_HOME: dir } });
    assertEquals(await p.exited(), 2);
    assertMatch(
      p.stderr,
      /Cannot load rules ".*scv\/rules\.jsonc": rule 1: does not match its "match" example "git stash"/,
    );
    await p.kill();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("rules.list leaves out the last rules that do not fit the frame and counts them", async () => {
  const mock = await MockOpenAI.start([]);
  await withServer(mock, { config: { max_server_frame_bytes: 4096 } }, async (p) => {
    await writeUserRules(
      p,
      Array.from({ length: 200 }, (_, i) => ({
        tool: "bash",
        prefix: [`tool-number-${i}`],
        decision: "ask",
      })),
    );
    const { sessionId } = await p.open();
    await p.send({ type: "rules.list", request_id: "rl", session_id: sessionId });
    const listed = await p.next((e) => e.type === "rules.list" && e.request_id === "rl");
    assert(listed.rules.length > 0 && listed.omitted > 0, JSON.stringify(listed).slice(0, 200));
    assertEquals(listed.rules[0].description, "bash tool-number-0");
    assertEquals(listed.rules.length + listed.omitted, 200 + BUILTIN_COUNT);
    const raw = p.rawLines.find((l) => l.includes('"rules.list"'))!;
    assert(new TextEncoder().encode(raw).length <= 4096);
    // An unknown session is session_not_found.
    await p.send({ type: "rules.list", request_id: "rl2", session_id: "nope" });
    assertEquals((await p.next((e) => e.request_id === "rl2")).code, "session_not_found");
  });
});
