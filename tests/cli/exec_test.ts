/**
 * `scv exec` end to end: text and JSON output, exit codes, stdin prompts, denial without a
 * human to ask, and SIGINT.
 */
import { exists } from "../support/probes.ts";
import { assert, assertEquals, assertMatch } from "../support/assert.ts";
import { MockOpenAI, text, textChunk, toolCalls } from "../support/mock_openai.ts";
import { SERVER_FLAGS } from "../support/server_process.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;
const decoder = new TextDecoder();

interface ExecRun {
  code: number;
  stdout: string;
  stderr: string;
}

async function execScv(
  mock: MockOpenAI,
  args: string[],
  options: { stdin?: string; cwd?: string } = {},
): Promise<ExecRun> {
  const dir = options.cwd ?? await Deno.makeTempDir();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", ...SERVER_FLAGS, MAIN, "exec", "--cwd", dir, ...args],
    env: {
      OPENAI_BASE_URL: mock.baseUrl,
      XDG_CONFIG_HOME: dir,
      XDG_STATE_HOME: `${dir}/.state`,
      NO_COLOR: "1",
    },
    stdin: options.stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (options.stdin !== undefined) {
    const w = child.stdin.getWriter();
    await w.write(new TextEncoder().encode(options.stdin));
    await w.close();
  }
  const out = await child.output();
  return { code: out.code, stdout: decoder.decode(out.stdout), stderr: decoder.decode(out.stderr) };
}

Deno.test("exec prints the streamed answer to stdout and exits 0", async () => {
  const mock = await MockOpenAI.start([text("The answer is 42.")]);
  try {
    const r = await execScv(mock, ["what is the answer?"]);
    assertEquals(r.code, 0);
    assertEquals(r.stdout, "The answer is 42.\n");
    assertEquals(mock.requests[0]!.body.messages.at(-1), {
      role: "user",
      content: "what is the answer?",
    });
  } finally {
    await mock.close();
  }
});

Deno.test("exec --json prints session.started and the turn's Peon events as NDJSON", async () => {
  const mock = await MockOpenAI.start([text("hi there")]);
  try {
    const r = await execScv(mock, ["--json", "hello"]);
    assertEquals(r.code, 0);
    const events = r.stdout.trim().split("\n").map((l) => JSON.parse(l));
    assertEquals(events[0].type, "session.started");
    assertMatch(r.stderr, new RegExp(`scv exec: session ${events[0].session_id}`));
    assertEquals(events[1].type, "turn.started");
    assertEquals(events.at(-1).type, "turn.completed");
    assertEquals(events.find((e) => e.type === "assistant.completed").content, "hi there");
  } finally {
    await mock.close();
  }
});

Deno.test("exec exits 1 with the failure code on stderr when the provider returns 500", async () => {
  const mock = await MockOpenAI.start(() => ({
    kind: "status",
    status: 500,
    body: '{"error":{"message":"boom"}}',
    headers: { "retry-after": "0" },
  }));
  try {
    const r = await execScv(mock, ["hi"]);
    assertEquals(r.code, 1);
    assertMatch(r.stderr, /turn failed \(provider_error\): Provider returned HTTP 500.*boom/);
  } finally {
    await mock.close();
  }
});

Deno.test("exec reads the prompt from stdin when it is -", async () => {
  const mock = await MockOpenAI.start([text("ok")]);
  try {
    const r = await execScv(mock, ["-"], { stdin: "prompt from stdin\nsecond line" });
    assertEquals(r.code, 0);
    assertEquals(mock.requests[0]!.body.messages.at(-1), {
      role: "user",
      content: "prompt from stdin\nsecond line",
    });
  } finally {
    await mock.close();
  }
});

Deno.test("exec denies a call that needs approval under on-risk and says how to allow it", async () => {
  const mock = await MockOpenAI.start([
    toolCalls([{ id: "c1", name: "bash", arguments: { command: "touch made-by-bash" } }]),
    text("could not run it"),
  ]);
  const dir = await Deno.makeTempDir();
  try {
    const r = await execScv(mock, ["make a file"], { cwd: dir });
    assertEquals(r.code, 0);
    assertMatch(r.stderr, /denied bash .*--approval-policy never/);
    const made = await exists(`${dir}/made-by-bash`);
    assertEquals(made, false, "the denied command did not run");
    const toolMsg = mock.requests[1]!.body.messages.find((m) => m.role === "tool")!;
    assertMatch(String(toolMsg.content), /denied/);
  } finally {
    await mock.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("exec --approval-policy never runs the call", async () => {
  const mock = await MockOpenAI.start([
    toolCalls([{ id: "c1", name: "bash", arguments: { command: "echo hi > made-by-bash" } }]),
    text("done"),
  ]);
  const dir = await Deno.makeTempDir();
  try {
    const r = await execScv(mock, ["--approval-policy", "never", "make a file"], { cwd: dir });
    assertEquals(r.code, 0, r.stderr);
    assertEquals(await Deno.readTextFile(`${dir}/made-by-bash`), "hi\n");
  } finally {
    await mock.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("SIGINT cancels the exec turn and exits 130", async () => {
  const mock = await MockOpenAI.start([{
    kind: "stream",
    events: [textChunk("working")],
    hang: true,
  }]);
  const dir = await Deno.makeTempDir();
  try {
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", ...SERVER_FLAGS, MAIN, "exec", "--cwd", dir, "long task"],
      env: { OPENAI_BASE_URL: mock.baseUrl, XDG_CONFIG_HOME: dir, XDG_STATE_HOME: `${dir}/.state` },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const reader = child.stdout.getReader();
    const first = await reader.read();
    assertEquals(decoder.decode(first.value), "working");
    reader.releaseLock();
    const t0 = Date.now();
    child.kill("SIGINT");
    const out = await child.output();
    assertEquals(out.code, 130);
    assert(Date.now() - t0 < 3000);
    assertMatch(decoder.decode(out.stderr), /cancelled/);
  } finally {
    await mock.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("exec refuses a stdin prompt over max_prompt_bytes before starting a turn", async () => {
  const mock = await MockOpenAI.start([text("unused")]);
  try {
    const r = await execScv(mock, ["-"], { stdin: "x".repeat(262145) });
    assertEquals(r.code, 2);
    assertMatch(r.stderr, /over max_prompt_bytes \(262144\)/);
    assertEquals(mock.requests.length, 0);
  } finally {
    await mock.close();
  }
});

Deno.test("deno task exec works in the directory it is run from, not the checkout", async () => {
  const mock = await MockOpenAI.start([
    toolCalls([{ name: "bash", arguments: { command: "pwd" } }]),
    text("done"),
  ]);
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "scv-task-" }));
  try {
    const config = new URL("../../deno.json", import.meta.url).pathname;
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["task", "--config", config, "exec", "--json", "--approval-policy", "never", "where?"],
      cwd: dir,
      // Not the INIT_CWD of an outer `deno task test`: deno task keeps one that is already set.
      clearEnv: true,
      env: {
        ...Object.fromEntries(
          ["PATH", "HOME", "DENO_DIR"].flatMap((k) => {
            const v = Deno.env.get(k);
            return v === undefined ? [] : [[k, v]];
          }),
        ),
        OPENAI_BASE_URL: mock.baseUrl,
        XDG_CONFIG_HOME: dir,
        XDG_STATE_HOME: `${dir}/.state`,
        NO_COLOR: "1",
      },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stderr = decoder.decode(out.stderr);
    assertEquals(out.code, 0, stderr);
    const events = decoder.decode(out.stdout).trim().split("\n").map((l) => JSON.parse(l));
    const completed = events.find((e) => e.type === "tool.completed");
    assertEquals(completed?.output, `${dir}\n`, "bash ran in the caller's directory");
  } finally {
    await mock.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("exec without --allow-env warns that the environment is ignored instead of staying silent", async () => {
  const mock = await MockOpenAI.start([text("unused")]);
  const dir = await Deno.makeTempDir();
  try {
    const flags = SERVER_FLAGS.filter((f) => f !== "--allow-env");
    // The provider comes from a file, so the run never looks beyond 127.0.0.1.
    await Deno.writeTextFile(`${dir}/c.jsonc`, JSON.stringify({ base_url: mock.baseUrl }));
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", ...flags, MAIN, "exec", "--cwd", dir, "--config", `${dir}/c.jsonc`, "hi"],
      env: { OPENAI_BASE_URL: "http://127.0.0.1:9/v1", XDG_STATE_HOME: `${dir}/.state` },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stderr = decoder.decode(out.stderr);
    assertMatch(stderr, /^scv: warning: cannot read .*OPENAI_BASE_URL.* without --allow-env/m);
    assertMatch(stderr, /^scv: warning: cannot read .*OPENAI_API_KEY.* without --allow-env/m);
    assertEquals(out.code, 0, stderr);
    assertEquals(decoder.decode(out.stdout), "unused\n");
    assertEquals(mock.requests.length, 1, "the request went to the configured provider");
  } finally {
    await mock.close();
    await Deno.remove(dir, { recursive: true });
  }
});

/** A reasoning model's answer: thinking first, then the text. */
const thinkingAnswer = () => ({
  kind: "stream" as const,
  events: [
    { choices: [{ index: 0, delta: { reasoning_content: "secret chain of thought" } }] },
    textChunk("The answer."),
    { choices: [{ index: 0, delta: {}, finish_reason: "stop" }] },
  ],
});

Deno.test("exec --json includes the reasoning as assistant.reasoning.delta lines", async () => {
  const mock = await MockOpenAI.start([thinkingAnswer()]);
  try {
    const r = await execScv(mock, ["--json", "think"]);
    assertEquals(r.code, 0);
    const lines = r.stdout.trim().split("\n").map((l) => JSON.parse(l));
    const reasoning = lines.filter((e) => e.type === "assistant.reasoning.delta");
    assertEquals(reasoning.map((e) => e.content).join(""), "secret chain of thought");
    assertEquals(lines.find((e) => e.type === "assistant.completed").content, "The answer.");
  } finally {
    await mock.close();
  }
});

Deno.test("plain exec prints the answer and never the reasoning", async () => {
  const mock = await MockOpenAI.start([thinkingAnswer()]);
  try {
    const r = await execScv(mock, ["think"]);
    assertEquals(r.code, 0);
    assertEquals(r.stdout, "The answer.\n");
    assert(!r.stderr.includes("chain of thought"), r.stderr);
  } finally {
    await mock.close();
  }
});

Deno.test("plain exec shows the notice that the model cannot use tools on stderr", async () => {
  const refusal = JSON.stringify({
    error: { message: "registry.ollama.ai/library/gemma:2b does not support tools" },
  });
  const mock = await MockOpenAI.start((req) =>
    req.body.tools ? { kind: "status", status: 400, body: refusal } : text("No tools here.")
  );
  try {
    const r = await execScv(mock, ["hi"]);
    assertEquals(r.code, 0);
    assertEquals(r.stdout, "No tools here.\n");
    assertMatch(
      r.stderr,
      /scv exec: notice: Model ".*" cannot use tools here.*does not support tools/,
    );
  } finally {
    await mock.close();
  }
});

Deno.test("exec --json carries cost_usd and the session's total, which a --continue goes on from", async () => {
  const usage = { usage: { prompt_tokens: 1_000_000, completion_tokens: 500_000 } };
  const mock = await MockOpenAI.start(() => text("priced", usage));
  const dir = await Deno.makeTempDir();
  try {
    // $1.00 + $1.50 = $2.50 a turn at these prices.
    const pricing = { "gpt-4.1-mini": { input: 1, output: 3 } };
    await Deno.writeTextFile(`${dir}/c.jsonc`, JSON.stringify({ pricing }));
    const run = async (more: string[]) => {
      const r = await execScv(mock, ["--json", "--config", `${dir}/c.jsonc`, ...more], {
        cwd: dir,
      });
      assertEquals(r.code, 0, r.stderr);
      return r.stdout.trim().split("\n").map((l) => JSON.parse(l));
    };
    const first = (await run(["one"])).at(-1);
    assertEquals([first.type, first.cost_usd, first.session_cost_usd], [
      "turn.completed",
      2.5,
      2.5,
    ]);
    const events = await run(["--continue", "two"]);
    assertEquals(events[0].session_cost_usd, 2.5);
    const second = events.at(-1);
    assertEquals([second.cost_usd, second.session_cost_usd], [2.5, 5]);
  } finally {
    await mock.close();
    await Deno.remove(dir, { recursive: true });
  }
});
