/**
 * Whole-command benchmark of `scv exec`, side by side with Codex's native binary when it is
 * installed (`npm install @openai/codex` somewhere and point `CODEX_BIN` at the native binary,
 * `node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex`: the npm
 * `codex` is a Node wrapper that adds Node's start to every Codex figure; without either, the
 * Codex rows are skipped). Codex is set up as the peer benchmark sets it up (bench/peers.sh;
 * `--ephemeral`, no telemetry, update check or plugin sync, a fresh home), and scv runs with
 * `deno task exec`'s flags and the user's Deno cache. Both talk to one scripted mock on
 * 127.0.0.1: the built-in one serves Chat Completions (scv) and the Responses API (Codex) as
 * pre-encoded bodies, each answer in one write; `PEER_MOCK=<peer-bench>/mock_openai.py` uses
 * the peer benchmark's mock instead, which writes each event on its own (what bench/peers.sh
 * measures). docs/performance.md says what each choice changes.
 *
 * Figures (medians of `RUNS`, default 5):
 * - text turn: wall time spawn → exit for a 2,000-delta answer, time to the first byte of the
 *   answer on stdout, peak RSS (VmHWM, polled) and the process's CPU time (utime + stime, polled
 *   from /proc every 5 ms, so it can miss the last few ms; far less load-sensitive than wall);
 * - `--json` throughput: `assistant.delta` lines per second for a 50,000-delta answer (a 100,000-delta one would pass the 4 MiB response cap);
 * - tool turn: one `bash` call (two provider requests), spawn → exit;
 * - `scv --version`.
 *
 * Run: `deno run -A bench/exec_bench.ts [RUNS]` (`deno task bench:exec`); with
 * `SCV_BEFORE_CHECKOUT=DIR` the scv rows are repeated for the checkout in DIR, interleaved.
 * It needs `--allow-all`: Deno lets only that read another process's `/proc/PID/*`, and without
 * it peak RSS and CPU would read as 0.
 */

const RUNS = Number(Deno.args[0] ?? 5);
try {
  Deno.readTextFileSync(`/proc/${Deno.pid}/status`);
} catch {
  throw new Error(
    "exec_bench needs --allow-all to read /proc (peak RSS and CPU); run `deno task bench:exec`",
  );
}
const ROOT = new URL("..", import.meta.url).pathname;
const MAIN = `${ROOT}main.ts`;
const FLAGS = [
  "--no-prompt",
  "--allow-read",
  "--allow-write",
  "--allow-env",
  "--allow-net",
  "--allow-run=bash,bwrap",
];
const encoder = new TextEncoder();

function sse(events: unknown[], done = true): Uint8Array<ArrayBuffer> {
  return encoder.encode(
    events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join("") + (done ? "data: [DONE]\n\n" : ""),
  );
}

function chatText(deltas: number): Uint8Array<ArrayBuffer> {
  const ev: unknown[] = [{ choices: [{ index: 0, delta: { role: "assistant", content: "" } }] }];
  for (let i = 0; i < deltas; i++) {
    ev.push({ choices: [{ index: 0, delta: { content: `tok${i % 10} ` } }] });
  }
  ev.push({ choices: [{ index: 0, delta: {}, finish_reason: "stop" }] });
  ev.push({ choices: [], usage: { prompt_tokens: 10, completion_tokens: deltas } });
  return sse(ev);
}

function chatToolCall(): Uint8Array<ArrayBuffer> {
  return sse([
    {
      choices: [{
        index: 0,
        delta: {
          tool_calls: [{
            index: 0,
            id: "call_1",
            type: "function",
            function: { name: "bash", arguments: JSON.stringify({ command: "echo hi" }) },
          }],
        },
      }],
    },
    { choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }] },
  ]);
}

/** Responses API stream (what Codex speaks), in the event shapes OpenAI documents. */
function responsesEvents(items: Array<"text" | "tool">, deltas: number): Uint8Array<ArrayBuffer> {
  const lines: string[] = [];
  const send = (e: Record<string, unknown>) =>
    lines.push(`event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`);
  send({ type: "response.created", response: { id: "resp_1", status: "in_progress", output: [] } });
  const output: unknown[] = [];
  items.forEach((kind, index) => {
    if (kind === "text") {
      const item = { type: "message", id: "msg_1", role: "assistant", status: "in_progress" };
      send({
        type: "response.output_item.added",
        output_index: index,
        item: { ...item, content: [] },
      });
      let all = "";
      for (let i = 0; i < deltas; i++) {
        const d = `tok${i % 10} `;
        all += d;
        send({
          type: "response.output_text.delta",
          item_id: "msg_1",
          output_index: index,
          content_index: 0,
          delta: d,
        });
      }
      const done = {
        ...item,
        status: "completed",
        content: [{ type: "output_text", text: all, annotations: [] }],
      };
      output.push(done);
      send({ type: "response.output_item.done", output_index: index, item: done });
    } else {
      const call = {
        type: "function_call",
        id: "fc_1",
        call_id: "call_1",
        name: "shell",
        arguments: JSON.stringify({ command: ["bash", "-lc", "echo hi"] }),
        status: "completed",
      };
      send({ type: "response.output_item.added", output_index: index, item: call });
      output.push(call);
      send({ type: "response.output_item.done", output_index: index, item: call });
    }
  });
  send({
    type: "response.completed",
    response: {
      id: "resp_1",
      status: "completed",
      output,
      usage: { input_tokens: 10, output_tokens: deltas, total_tokens: 10 + deltas },
    },
  });
  return encoder.encode(lines.join(""));
}

type Scenario = "text" | "json" | "tool";
let scenario: Scenario = "text";
let requestIndex = 0;
const bodies = {
  chatText: chatText(2000),
  chatJson: chatText(50_000),
  chatTool: chatToolCall(),
  chatAfterTool: chatText(20),
  respText: responsesEvents(["text"], 2000),
  respTool: responsesEvents(["tool"], 0),
  respAfterTool: responsesEvents(["text"], 20),
};

const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
  const url = new URL(req.url);
  await req.arrayBuffer();
  const i = requestIndex++;
  const headers = { "content-type": "text/event-stream" };
  if (url.pathname.endsWith("/chat/completions")) {
    const body = scenario === "json"
      ? bodies.chatJson
      : scenario === "tool"
      ? (i === 0 ? bodies.chatTool : bodies.chatAfterTool)
      : bodies.chatText;
    return new Response(body, { headers });
  }
  if (url.pathname.endsWith("/responses")) {
    const body = scenario === "tool"
      ? (i === 0 ? bodies.respTool : bodies.respAfterTool)
      : bodies.respText;
    return new Response(body, { headers });
  }
  return new Response("not found", { status: 404 });
});

// PEER_MOCK=<path to the peer benchmark's mock_openai.py> serves every turn from that mock
// instead (the one bench/peers.sh uses), so both benchmarks can be read against one mock. It
// takes its scenario from the base URL's path (`/scenario=tool/n=20/v1`); the built-in mock
// above ignores that prefix and answers by `scenario`.
const peerMock = Deno.env.get("PEER_MOCK");
let mockOrigin = `http://127.0.0.1:${server.addr.port}`;
let peerMockChild: Deno.ChildProcess | undefined;
if (peerMock) {
  const portFile = await Deno.makeTempFile({ prefix: "scv-bench-mock-port-" });
  peerMockChild = new Deno.Command("python3", {
    args: [peerMock, "--port", "0", "--port-file", portFile, "--max-seconds", "3600"],
    stdout: "null",
    stderr: "null",
  }).spawn();
  let port = "";
  for (let i = 0; i < 1000 && !port; i++) {
    port = (await Deno.readTextFile(portFile)).trim();
    if (!port) await new Promise((r) => setTimeout(r, 10));
  }
  await Deno.remove(portFile);
  if (!port) throw new Error(`${peerMock} did not start`);
  mockOrigin = `http://127.0.0.1:${port}`;
}
/** The base URL of `s`'s turns: the peer mock reads the scenario from the path. */
const baseUrlFor = (s: Scenario) =>
  `${mockOrigin}/${
    { text: "scenario=text/n=2000", json: "scenario=text/n=50000", tool: "scenario=tool/n=20" }[s]
  }/v1`;

interface Run {
  wallMs: number;
  firstByteMs: number;
  peakRssKiB: number;
  /** User + system CPU of the process (not its children), last seen before it exited. */
  cpuMs: number;
  stdoutBytes: number;
  lines: number;
  status: number;
}

const CLOCK_TICK_MS = 10; // USER_HZ is 100 on Linux

/** utime + stime of `pid` from /proc (ticks of 10 ms); 0 once it is gone. */
async function cpuMsOf(pid: number): Promise<number> {
  try {
    const stat = await Deno.readTextFile(`/proc/${pid}/stat`);
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(f[11]) + Number(f[12])) * CLOCK_TICK_MS;
  } catch {
    return 0;
  }
}

async function vmHwmKiB(pid: number): Promise<number> {
  try {
    const status = await Deno.readTextFile(`/proc/${pid}/status`);
    const m = status.match(/VmHWM:\s+(\d+) kB/);
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

async function timeCommand(
  cmd: string,
  args: string[],
  env: Record<string, string>,
  cwd: string,
): Promise<Run> {
  const t0 = performance.now();
  const child = new Deno.Command(cmd, {
    args,
    env,
    cwd,
    stdin: "null",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  let peak = 0;
  let cpu = 0;
  let polling = true;
  const poller = (async () => {
    while (polling) {
      peak = Math.max(peak, await vmHwmKiB(child.pid));
      cpu = Math.max(cpu, await cpuMsOf(child.pid));
      await new Promise((r) => setTimeout(r, 5));
    }
  })();
  let firstByteMs = -1;
  let bytes = 0;
  let lines = 0;
  for await (const chunk of child.stdout) {
    if (firstByteMs < 0) firstByteMs = performance.now() - t0;
    bytes += chunk.length;
    for (const b of chunk) if (b === 10) lines++;
  }
  const status = await child.status;
  const wallMs = performance.now() - t0;
  polling = false;
  await poller;
  return {
    wallMs,
    firstByteMs,
    peakRssKiB: peak,
    cpuMs: cpu,
    stdoutBytes: bytes,
    lines,
    status: status.code,
  };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? NaN;
}

function medianRun(runs: Run[]): Run {
  return {
    wallMs: median(runs.map((r) => r.wallMs)),
    firstByteMs: median(runs.map((r) => r.firstByteMs)),
    peakRssKiB: median(runs.map((r) => r.peakRssKiB)),
    cpuMs: median(runs.map((r) => r.cpuMs)),
    stdoutBytes: median(runs.map((r) => r.stdoutBytes)),
    lines: median(runs.map((r) => r.lines)),
    status: 0,
  };
}

/**
 * Runs each command `RUNS` times, interleaved (a, b, c, a, b, c, ...) so that a change of
 * machine load hits them alike; resolves with each one's medians.
 */
async function interleaved(s: Scenario, fns: Array<() => Promise<Run>>): Promise<Run[]> {
  const runs: Run[][] = fns.map(() => []);
  for (let i = 0; i < RUNS; i++) {
    for (const [k, fn] of fns.entries()) {
      scenario = s;
      requestIndex = 0;
      const r = await fn();
      if (r.status !== 0) throw new Error(`run failed with status ${r.status} (${s})`);
      runs[k]!.push(r);
    }
  }
  return runs.map(medianRun);
}

const work = await Deno.makeTempDir({ prefix: "scv-bench-" });
const home = await Deno.makeTempDir({ prefix: "scv-bench-home-" });
/** scv's config for scenario `s`. Sessions are recorded (the default): every exec pays that. */
const configFor = (s: Scenario) => `${work}/bench.${s}.jsonc`;
for (const s of ["text", "json", "tool"] as const) {
  await Deno.writeTextFile(
    configFor(s),
    JSON.stringify({ base_url: baseUrlFor(s), approval_policy: "never" }),
  );
}
const env: Record<string, string> = {
  PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
  HOME: home,
  XDG_CONFIG_HOME: `${home}/.config`,
  XDG_STATE_HOME: `${home}/.state`,
  NO_COLOR: "1",
};
// The user's Deno cache (modules, npm packages, V8 code cache), as a real run has it; a fresh
// HOME would otherwise mean a cold cache and a download.
const denoDir = Deno.env.get("DENO_DIR") ??
  (Deno.env.get("HOME") ? `${Deno.env.get("HOME")}/.cache/deno` : undefined);
if (denoDir) env.DENO_DIR = denoDir;

// SCV_BEFORE_CHECKOUT=DIR adds the same rows for the scv checkout in DIR (an older commit, say),
// run interleaved with this one.
const beforeDir = Deno.env.get("SCV_BEFORE_CHECKOUT");
const mains: Array<[string, string]> = [["scv", MAIN]];
if (beforeDir) mains.push(["scv (before)", `${beforeDir.replace(/\/$/, "")}/main.ts`]);
/** The `--v8-flags` of a checkout's own `deno task exec`, so each runs as its users run it. */
async function v8Flags(main: string): Promise<string[]> {
  try {
    const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", `file://${main}`)));
    return String(config.tasks?.exec ?? "").match(/--v8-flags=\S+/g) ?? [];
  } catch {
    return [];
  }
}
const mainFlags = await Promise.all(mains.map(([, main]) => v8Flags(main)));
const scvRuns = (args: string[]) =>
  mains.map(([, main], k) => () =>
    timeCommand(Deno.execPath(), ["run", ...FLAGS, ...mainFlags[k]!, main, ...args], env, work)
  );
// Warm-up: the first run of a checkout fills Deno's code cache.
for (const fn of scvRuns(["exec", "--config", configFor("text"), "hi"])) await fn();

const rows: string[] = [];
const fmt = (n: number) => n.toFixed(1);
function row(name: string, r: Run, extra = "") {
  rows.push(
    `| ${name} | ${fmt(r.wallMs)} ms | ${fmt(r.firstByteMs)} ms | ${
      fmt(r.peakRssKiB / 1024)
    } MB | ${Math.round(r.cpuMs)} ms |${extra ? " " + extra : ""}`,
  );
}

// Codex's native binary on the same turns, interleaved with scv's runs when it is installed.
const codex = Deno.env.get("CODEX_BIN") ?? await which("codex");
let codexRun: ((prompt: string, s: Scenario) => () => Promise<Run>) | undefined;
if (codex) {
  // The peer benchmark's Codex setup (run_peers.sh): its config file, `--ephemeral`, and no
  // telemetry, update check, plugin sync or apps (each costs connections, seconds when they hang).
  for (const s of ["text", "tool"] as const) {
    const codexHome = `${home}/.codex-${s}`;
    await Deno.mkdir(codexHome, { recursive: true });
    await Deno.writeTextFile(
      `${codexHome}/config.toml`,
      [
        `model = "mock-model"`,
        `model_provider = "mock"`,
        `check_for_update_on_startup = false`,
        `[model_providers.mock]`,
        `name = "mock"`,
        `base_url = "${baseUrlFor(s)}"`,
        `wire_api = "responses"`,
        `env_key = "MOCK_API_KEY"`,
        `[analytics]`,
        `enabled = false`,
        `[feedback]`,
        `enabled = false`,
        `[otel]`,
        `exporter = "none"`,
        `trace_exporter = "none"`,
        `metrics_exporter = "none"`,
        `[features]`,
        `plugins = false`,
        `remote_plugin = false`,
        `apps = false`,
      ].join("\n") + "\n",
    );
  }
  codexRun = (prompt, s) => () =>
    timeCommand(
      codex,
      [
        ...["exec", "--skip-git-repo-check", "--ephemeral", "--color", "never"],
        ...(s === "tool" ? ["--dangerously-bypass-approvals-and-sandbox"] : []),
        prompt,
      ],
      { ...env, CODEX_HOME: `${home}/.codex-${s}`, MOCK_API_KEY: "dummy" },
      work,
    );
}

const rate = (r: Run) =>
  `${Math.round(r.lines / (r.wallMs / 1000)).toLocaleString("en")} lines/s (spawn to exit)`;
const scenarios: Array<[string, Scenario, string[], string | undefined, ((r: Run) => string)?]> = [
  ["--version", "text", ["--version"], undefined],
  [
    "exec, 2,000-delta answer",
    "text",
    ["exec", "--config", configFor("text"), "Say something."],
    "Say something.",
  ],
  [
    "exec --json, 50,000 deltas",
    "json",
    ["exec", "--json", "--config", configFor("json"), "Say a lot."],
    undefined,
    rate,
  ],
  [
    "exec, one bash call",
    "tool",
    ["exec", "--config", configFor("tool"), "Run echo hi."],
    "Run echo hi.",
  ],
];
for (const [label, s, args, codexPrompt, extra] of scenarios) {
  const fns = scvRuns(args);
  const withCodex = codexRun !== undefined && codexPrompt !== undefined;
  if (withCodex) fns.push(codexRun!(codexPrompt, s));
  try {
    const results = await interleaved(s, fns);
    results.forEach((r, k) =>
      row(k < mains.length ? `${mains[k]![0]} ${label}` : `codex ${label}`, r, extra?.(r))
    );
  } catch (e) {
    rows.push(`| ${label} | failed: ${e instanceof Error ? e.message : e} | | | |`);
  }
}
if (!codex) rows.push("| codex | not installed: skipped | | | |");

console.log(`medians of ${RUNS} runs on ${Deno.build.target}`);
mains.forEach(([name, main], k) =>
  console.log(`${name}: ${main} ${mainFlags[k]!.join(" ") || "(no V8 flags)"}`)
);
console.log("| run | wall | first stdout byte | peak RSS | CPU (user+sys, 10 ms ticks) |");
console.log("| --- | --- | --- | --- | --- |");
for (const r of rows) console.log(r);

await server.shutdown();
if (peerMockChild) {
  peerMockChild.kill();
  await peerMockChild.status;
}
await Deno.remove(work, { recursive: true });
await Deno.remove(home, { recursive: true });

async function which(name: string): Promise<string | undefined> {
  for (const dir of (Deno.env.get("PATH") ?? "").split(":")) {
    try {
      const p = `${dir}/${name}`;
      if ((await Deno.stat(p)).isFile) return p;
    } catch { /* not here */ }
  }
  return undefined;
}
