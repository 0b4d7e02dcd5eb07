/**
 * Hooks over the real server, with real shell scripts as hooks: each event's JSON field by field,
 * exit 2, permission decisions, additional context, `continue: false`, Stop's block, a hook that
 * hangs, a hook that floods its stdout, the hook's environment, and an example from Claude Code's
 * hooks documentation used unchanged.
 */
import { assert, assertEquals, assertMatch } from "../../support/assert.ts";
import {
  MockOpenAI,
  type MockReply,
  type MockRequest,
  text,
  toolCalls,
} from "../../support/mock_openai.ts";
import { type Ev, ServerProcess } from "../../support/server_process.ts";
import type { Config } from "../../../server/config.ts";

type Route = (prompt: string, req: MockRequest) => MockReply | undefined;

/** The last user message of a request. */
function lastUser(req: MockRequest): string {
  const m = req.body.messages.findLast((m) =>
    m.role === "user" && !String(m.content).startsWith("<hook-context>")
  );
  return String(m?.content ?? "");
}

/** A bash call for `prompt` "run CMD", then a text answer once the result is back. */
const bashRoute: Route = (prompt, req) => {
  const last = req.body.messages.at(-1)!;
  if (last.role === "tool") return text("done");
  if (prompt.startsWith("run ")) {
    return toolCalls([{ id: "call_1", name: "bash", arguments: { command: prompt.slice(4) } }]);
  }
  return undefined;
};

interface HookEnv {
  server: ServerProcess;
  mock: MockOpenAI;
  sessionId: string;
  cwd: string;
  dir: string;
  turn: (prompt: string) => Promise<{ done: Ev; of: (type: string) => Ev[] }>;
}

/** Writes a hook script into `dir` and returns the command that runs it. */
async function script(dir: string, name: string, body: string): Promise<string> {
  const path = `${dir}/${name}`;
  await Deno.writeTextFile(path, `#!/bin/bash\n${body}\n`);
  await Deno.chmod(path, 0o755);
  return path;
}

async function withHooks(
  hooks: (dir: string) => Promise<Config["hooks"]>,
  fn: (h: HookEnv) => Promise<void>,
  options: { route?: Route; config?: Partial<Config>; env?: Record<string, string> } = {},
): Promise<void> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "scv-hooks-" }));
  const route = options.route ?? bashRoute;
  const mock = await MockOpenAI.start((req) => route(lastUser(req), req) ?? text("Hello."));
  const server = await ServerProcess.start({
    config: {
      base_url: mock.baseUrl,
      approval_policy: "never",
      sandbox: "off",
      hooks: await hooks(dir),
      ...options.config,
    },
    env: { ...options.env },
  });
  try {
    const { sessionId, cwd } = await server.open(undefined, { notices: true });
    const turn = async (prompt: string) => {
      const { t, done } = await server.runTurn(sessionId, prompt);
      const events = server.turnEvents(t.turn_id);
      return { done, of: (type: string) => events.filter((e) => e.type === type) };
    };
    await fn({ server, mock, sessionId, cwd, dir, turn });
    assertEquals(server.schemaErrors, []);
  } finally {
    await server.kill();
    await mock.close();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

const cmd = (command: string, timeout?: number) => ({
  type: "command" as const,
  command,
  ...(timeout !== undefined ? { timeout } : {}),
});

/** The JSON lines a logging hook wrote. */
async function logged(path: string): Promise<Array<Record<string, unknown>>> {
  const text = await Deno.readTextFile(path).catch(() => "");
  return text.split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));
}

/** Waits until `check` holds, polling the file system (no fixed sleep stands in for it). */
async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** Deno's cache, which a test that moves HOME must keep (it lives under HOME by default). */
function denoDir(): string {
  const out = new Deno.Command(Deno.execPath(), { args: ["info", "--json"] }).outputSync();
  return JSON.parse(new TextDecoder().decode(out.stdout)).denoDir;
}

/** Whether process `pid` exists, as `ps` sees it. */
async function alive(pid: number): Promise<boolean> {
  const out = await new Deno.Command("ps", { args: ["-o", "pid=", "-p", String(pid)] }).output();
  return new TextDecoder().decode(out.stdout).trim() !== "";
}

Deno.test("every hook event fires with Claude Code's documented fields on stdin", async () => {
  await withHooks(async (dir) => {
    const log = await script(dir, "log.sh", `{ cat; echo; } >> "${dir}/events.jsonl"`);
    const all = [{ hooks: [cmd(log)] }];
    return {
      SessionStart: all,
      UserPromptSubmit: all,
      PreToolUse: [{ matcher: "Bash", hooks: [cmd(log)] }],
      PostToolUse: [{ matcher: "Bash|Write", hooks: [cmd(log)] }],
      Stop: all,
      SessionEnd: all,
    };
  }, async ({ server, sessionId, cwd, dir, turn }) => {
    const { done } = await turn("run echo hi-from-bash");
    assertEquals(done.type, "turn.completed");
    await server.send({ type: "session.clear", request_id: "clr", session_id: sessionId });
    await server.nextOf("session.cleared");
    // The cleared session starts again (source "clear") in the background: wait for it.
    await until(async () => (await logged(`${dir}/events.jsonl`)).length === 7, "SessionStart");
    assertEquals(await server.stop(), 0);
    const events = await logged(`${dir}/events.jsonl`);
    assertEquals(events.map((e) => e.hook_event_name), [
      "SessionStart",
      "UserPromptSubmit",
      "PreToolUse",
      "PostToolUse",
      "Stop",
      "SessionEnd",
      "SessionStart",
      "SessionEnd",
    ]);
    for (const e of events) {
      assertEquals([e.session_id, e.cwd, e.permission_mode], [sessionId, cwd, "bypassPermissions"]);
      assertEquals(typeof e.transcript_path, "string");
    }
    const [start, prompt, pre, post, stop, endClear, startClear, endExit] = events;
    assertEquals(startClear!.source, "clear");
    assertEquals([start!.source, start!.model], ["startup", "gpt-4.1-mini"]);
    assertEquals(prompt!.prompt, "run echo hi-from-bash");
    assertEquals([pre!.tool_name, pre!.tool_input, pre!.tool_use_id], [
      "Bash",
      { command: "echo hi-from-bash" },
      "call_1",
    ]);
    assertEquals([post!.tool_name, post!.tool_use_id], ["Bash", "call_1"]);
    const response = post!.tool_response as Record<string, unknown>;
    assertMatch(String(response.stdout), /hi-from-bash/);
    assertEquals(response.success, true);
    assertEquals(stop!.stop_hook_active, false);
    assertEquals(stop!.last_assistant_message, "done");
    assertEquals([endClear!.reason, endExit!.reason], ["clear", "other"]);
    // The session's record, once it exists, is the transcript.
    assertMatch(String(stop!.transcript_path), new RegExp(`${sessionId}\\.jsonl$`));
  });
});

Deno.test("file tools reach hooks as Write with an absolute file_path and content", async () => {
  const route: Route = (prompt, req) => {
    if (req.body.messages.at(-1)!.role === "tool") return text("written");
    if (prompt === "write") {
      return toolCalls([{ name: "write_file", arguments: { path: "a.txt", content: "hello" } }]);
    }
  };
  await withHooks(async (dir) => ({
    PreToolUse: [{
      matcher: "Write",
      hooks: [
        cmd(await script(dir, "log.sh", `cat >> "${dir}/w.jsonl"; echo >> "${dir}/w.jsonl"`)),
      ],
    }],
  }), async ({ cwd, dir, turn }) => {
    await turn("write");
    const [pre] = await logged(`${dir}/w.jsonl`);
    assertEquals([pre!.tool_name, pre!.tool_input], ["Write", {
      file_path: `${cwd}/a.txt`,
      content: "hello",
    }]);
  }, { route });
});

Deno.test("a PreToolUse hook exiting 2 blocks the bash call and the model reads its stderr", async () => {
  await withHooks(async (dir) => ({
    PreToolUse: [{
      matcher: "Bash",
      hooks: [
        cmd(
          await script(
            dir,
            "block.sh",
            `cat > /dev/null; echo "no bash today: use the Read tool" >&2; exit 2`,
          ),
        ),
      ],
    }],
  }), async ({ mock, cwd, turn }) => {
    const { done, of } = await turn(`run touch ${cwd}/ran`);
    assertEquals(done.type, "turn.completed");
    assertEquals(of("tool.started"), []);
    assertEquals(of("tool.completed").map((e) => [e.success, e.output]), [[
      false,
      "no bash today: use the Read tool",
    ]]);
    const followUp = mock.requests.at(-1)!.body.messages.at(-1)!;
    assertEquals([followUp.role, followUp.content], ["tool", "no bash today: use the Read tool"]);
    assert(!(await Deno.stat(`${cwd}/ran`).then(() => true, () => false)), "the command ran");
  });
});

Deno.test('a PreToolUse permissionDecision "deny" refuses the call even under never, with its reason', async () => {
  const answer = JSON.stringify({
    hookSpecificOutput: {
      hookEventName: "PreToolUse",
      permissionDecision: "deny",
      permissionDecisionReason: "rm is not allowed here",
    },
  });
  await withHooks(async (dir) => ({
    PreToolUse: [{
      matcher: "Bash",
      hooks: [cmd(await script(dir, "deny.sh", `cat >/dev/null; echo '${answer}'`))],
    }],
  }), async ({ mock, cwd, turn }) => {
    const { of } = await turn(`run touch ${cwd}/ran`);
    assertEquals(of("approval.requested"), []);
    assertEquals(of("tool.started"), []);
    assertMatch(of("tool.completed")[0]!.output, /denied this tool call: rm is not allowed here/);
    assertMatch(
      String(mock.requests.at(-1)!.body.messages.at(-1)!.content),
      /rm is not allowed here/,
    );
    assert(!(await Deno.stat(`${cwd}/ran`).then(() => true, () => false)), "the command ran");
  });
});

Deno.test('a PreToolUse permissionDecision "ask" asks even under never, and runs once approved', async () => {
  const answer = JSON.stringify({ hookSpecificOutput: { permissionDecision: "ask" } });
  await withHooks(async (dir) => ({
    PreToolUse: [{ hooks: [cmd(await script(dir, "ask.sh", `cat >/dev/null; echo '${answer}'`))] }],
  }), async ({ server, sessionId, cwd }) => {
    const t = await server.startTurn(sessionId, `run touch ${cwd}/ran`);
    const asked = await server.nextOf("approval.requested");
    assertEquals(asked.name, "bash");
    await server.send({
      type: "approval.resolve",
      request_id: "ok",
      session_id: sessionId,
      approval_id: asked.approval_id,
      approved: true,
    });
    const done = await server.terminal(t.turn_id);
    assertEquals(done.type, "turn.completed");
    assert(await Deno.stat(`${cwd}/ran`).then(() => true, () => false), "the command did not run");
  });
});

Deno.test("additionalContext of UserPromptSubmit and SessionStart reaches the provider request", async () => {
  const prompt = JSON.stringify({
    hookSpecificOutput: {
      hookEventName: "UserPromptSubmit",
      additionalContext: "ticket ABC-123 is open",
    },
  });
  await withHooks(async (dir) => ({
    SessionStart: [{
      hooks: [
        cmd(await script(dir, "start.sh", `cat >/dev/null; echo "branch main, 3 files changed"`)),
      ],
    }],
    UserPromptSubmit: [{
      hooks: [cmd(await script(dir, "ctx.sh", `cat >/dev/null; echo '${prompt}'`))],
    }],
  }), async ({ mock, turn }) => {
    await turn("hello");
    const sent = JSON.stringify(mock.requests[0]!.body.messages);
    assertMatch(sent, /ticket ABC-123 is open/);
    assertMatch(sent, /branch main, 3 files changed/);
    // Only the first turn gets the session's start context; every turn gets its prompt's.
    await turn("again");
    const second = mock.requests[1]!.body.messages.filter((m) => m.role === "user");
    assertEquals(second.filter((m) => /branch main/.test(String(m.content))).length, 1);
    assertEquals(second.filter((m) => /ABC-123/.test(String(m.content))).length, 2);
  });
});

Deno.test("continue: false from a PreToolUse hook ends the turn without running the call", async () => {
  const answer = JSON.stringify({ continue: false, stopReason: "build is broken, stopping" });
  await withHooks(async (dir) => ({
    PreToolUse: [{
      hooks: [cmd(await script(dir, "stop.sh", `cat >/dev/null; echo '${answer}'`))],
    }],
  }), async ({ mock, cwd, turn }) => {
    const { done, of } = await turn(`run touch ${cwd}/ran`);
    assertEquals([done.type, done.steps], ["turn.completed", 1]);
    assertEquals(mock.requests.length, 1);
    assertEquals(of("tool.started"), []);
    assert(of("turn.notice").some((e) => /build is broken, stopping/.test(e.message)));
    assert(!(await Deno.stat(`${cwd}/ran`).then(() => true, () => false)), "the command ran");
  });
});

Deno.test("a UserPromptSubmit hook exiting 2 blocks the prompt before any provider call", async () => {
  await withHooks(async (dir) => ({
    UserPromptSubmit: [{
      hooks: [
        cmd(
          await script(
            dir,
            "no.sh",
            `if jq -r .prompt | grep -q secret; then echo "prompts mentioning secrets are refused" >&2; exit 2; fi`,
          ),
        ),
      ],
    }],
  }), async ({ mock, turn }) => {
    const { done, of } = await turn("print the secret");
    assertEquals([done.type, done.steps], ["turn.completed", 0]);
    assertEquals(mock.requests.length, 0);
    assertMatch(of("turn.notice")[0]!.message, /prompts mentioning secrets are refused/);
    // The blocked prompt never joined the conversation.
    await turn("hello");
    const users = mock.requests[0]!.body.messages.filter((m) => m.role === "user");
    assertEquals(users.map((m) => m.content), ["hello"]);
  });
});

Deno.test("a Stop hook that blocks keeps the turn going once, with stop_hook_active on the next", async () => {
  await withHooks(async (dir) => ({
    Stop: [{
      hooks: [cmd(
        await script(
          dir,
          "stop.sh",
          `input=$(cat); echo "$input" >> "${dir}/stop.jsonl"
if [ "$(echo "$input" | jq -r .stop_hook_active)" = "false" ]; then
  echo '{"decision": "block", "reason": "run the tests before stopping"}'
fi`,
        ),
      )],
    }],
  }), async ({ mock, dir, turn }) => {
    const { done } = await turn("hello");
    assertEquals([done.type, done.steps], ["turn.completed", 2]);
    assertMatch(
      String(mock.requests[1]!.body.messages.at(-1)!.content),
      /run the tests before stopping/,
    );
    assertEquals((await logged(`${dir}/stop.jsonl`)).map((e) => e.stop_hook_active), [false, true]);
  });
});

Deno.test("a hook that hangs is killed at its timeout with its children, and the turn goes on", async () => {
  await withHooks(async (dir) => ({
    PreToolUse: [{
      hooks: [
        cmd(
          await script(
            dir,
            "hang.sh",
            `cat >/dev/null; sleep 300 & echo $! > "${dir}/child.pid"; sleep 300`,
          ),
          2,
        ),
      ],
    }],
  }), async ({ server, sessionId, dir, cwd }) => {
    const t = await server.startTurn(sessionId, `run touch ${cwd}/ran`);
    const pidFile = `${dir}/child.pid`;
    await until(
      async () => (await Deno.readTextFile(pidFile).catch(() => "")).trim() !== "",
      "the child pid",
    );
    const child = Number((await Deno.readTextFile(pidFile)).trim());
    assert(await alive(child), "the hook's child was not running");
    const done = await server.terminal(t.turn_id, 30000);
    assertEquals(done.type, "turn.completed");
    const notices = server.turnEvents(t.turn_id).filter((e) => e.type === "turn.notice");
    assert(notices.some((e) => /timed out after 2 s and was killed/.test(e.message)));
    // A timed-out hook does not block: the call ran.
    assert(await Deno.stat(`${cwd}/ran`).then(() => true, () => false), "the call did not run");
    await until(async () => !(await alive(child)), "the child to be gone");
  });
});

Deno.test("a hook writing 50 MB is bounded: the context it adds is cut and the turn completes", async () => {
  await withHooks(async (dir) => ({
    UserPromptSubmit: [{
      hooks: [
        cmd(
          await script(dir, "flood.sh", `cat >/dev/null; head -c 50000000 /dev/zero | tr '\\0' a`),
        ),
      ],
    }],
  }), async ({ mock, turn }) => {
    const { done } = await turn("hello");
    assertEquals(done.type, "turn.completed");
    const sent = JSON.stringify(mock.requests[0]!.body.messages);
    assert(sent.length < 200_000, `the request carried ${sent.length} bytes`);
    assertMatch(sent, /aaaa/);
  }, { config: { max_tool_output_bytes: 65536 } });
});

Deno.test("a failing hook is a turn.notice and blocks nothing", async () => {
  await withHooks(async (dir) => ({
    PreToolUse: [{
      hooks: [
        cmd(await script(dir, "fail.sh", `cat >/dev/null; echo "jq: not found" >&2; exit 1`)),
      ],
    }],
  }), async ({ cwd, turn }) => {
    const { of } = await turn(`run touch ${cwd}/ran`);
    assertMatch(of("turn.notice")[0]!.message, /failed \(exit 1\): jq: not found/);
    assertEquals(of("tool.completed")[0]!.success, true);
  });
});

Deno.test("a hook's environment is the clean one plus the project directories, never the provider key", async () => {
  await withHooks((dir) =>
    Promise.resolve({
      SessionStart: [{ hooks: [cmd(`env > "${dir}/env.txt"`)] }],
    }), async ({ dir, cwd, turn }) => {
    await turn("hello");
    const env = await Deno.readTextFile(`${dir}/env.txt`);
    assertMatch(env, new RegExp(`^CLAUDE_PROJECT_DIR=${cwd}$`, "m"));
    assertMatch(env, new RegExp(`^SCV_PROJECT_DIR=${cwd}$`, "m"));
    assertMatch(env, /^PATH=/m);
    assert(!env.includes("sk-hook-test-key-0123456789"), "the provider key reached the hook");
    assert(!env.includes("OPENAI_API_KEY"), "the key's variable reached the hook");
    assert(!env.includes("GITHUB_TOKEN"), "a token reached the hook");
  }, {
    env: { OPENAI_API_KEY: "sk-hook-test-key-0123456789", GITHUB_TOKEN: "ghp_x" },
    config: { shell_env_passthrough: ["OPENAI_API_KEY"] },
  });
});

Deno.test("the Bash logging hook of Claude Code's hooks documentation runs unchanged", async () => {
  const home = await Deno.makeTempDir({ prefix: "scv-hooks-home-" });
  await Deno.mkdir(`${home}/.claude`);
  try {
    // Verbatim from the "Get started with Claude Code hooks" page's quickstart.
    const documented = {
      PreToolUse: [{
        matcher: "Bash",
        hooks: [{
          type: "command" as const,
          command:
            'jq -r \'"\\(.tool_input.command) - \\(.tool_input.description // "No description")"\' >> ~/.claude/bash-command-log.txt',
        }],
      }],
    };
    await withHooks(() => Promise.resolve(documented), async ({ turn }) => {
      await turn("run echo documented");
      assertEquals(
        await Deno.readTextFile(`${home}/.claude/bash-command-log.txt`),
        "echo documented - No description\n",
      );
    }, { env: { HOME: home, DENO_DIR: denoDir() } });
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("a workspace's .claude/settings.json hooks do not run, and session.started says so", async () => {
  const mock = await MockOpenAI.start(() => text("Hello."));
  const server = await ServerProcess.start({ config: { base_url: mock.baseUrl } });
  try {
    await server.send({ type: "initialize", request_id: "i", protocol_version: 1 });
    await server.nextOf("initialized");
    const ws = await Deno.realPath(await Deno.makeTempDir({ dir: server.tempDir }));
    await Deno.mkdir(`${ws}/.claude`);
    await Deno.writeTextFile(
      `${ws}/.claude/settings.json`,
      JSON.stringify({
        hooks: { SessionStart: [{ hooks: [{ type: "command", command: `touch ${ws}/pwned` }] }] },
      }),
    );
    await server.send({ type: "session.start", request_id: "s", cwd: ws });
    const started = await server.nextOf("session.started");
    assertMatch(
      started.notice,
      /\.claude\/settings\.json define hooks; scv does not run hooks a workspace defines/,
    );
    const { done } = await server.runTurn(started.session_id, "hi");
    assertEquals(done.type, "turn.completed");
    assert(!(await Deno.stat(`${ws}/pwned`).then(() => true, () => false)), "a workspace hook ran");
  } finally {
    await server.kill();
    await mock.close();
  }
});

Deno.test("session.started lists the hooks without their commands", async () => {
  await withHooks(() =>
    Promise.resolve({
      PreToolUse: [{ matcher: "Bash", hooks: [cmd("echo secret-looking-command")] }],
      Stop: [{ hooks: [cmd("true"), cmd("false")] }],
    }), ({ server }) => {
    const started = server.events.find((e) => e.type === "session.started")!;
    assertEquals(started.hooks, [
      { event: "PreToolUse", matcher: "Bash", commands: 1 },
      { event: "Stop", commands: 2 },
    ]);
    assert(!JSON.stringify(started).includes("secret-looking-command"));
    return Promise.resolve();
  });
});

Deno.test("a Stop hook's file change is in the turn's closing snapshot: with hooks it waits for the end", async () => {
  await withHooks(async (dir) => ({
    Stop: [{
      hooks: [
        cmd(
          await script(
            dir,
            "stop.sh",
            `cat >/dev/null; echo formatted > "$CLAUDE_PROJECT_DIR/by-hook.txt"`,
          ),
        ),
      ],
    }],
  }), async ({ server, sessionId, cwd, turn }) => {
    const { done } = await turn("run echo made > by-call.txt");
    assertEquals(done.type, "turn.completed");
    assertEquals(await Deno.readTextFile(`${cwd}/by-hook.txt`), "formatted\n");
    const request_id = "list-1";
    await server.send({ type: "session.checkpoints", session_id: sessionId, request_id });
    const list = await server.next((e) => e.request_id === request_id);
    // by-call.txt and by-hook.txt: the snapshot came after the Stop hook ran.
    assertEquals(list.turns.map((t: { files_changed: number }) => t.files_changed), [2]);
  });
});
