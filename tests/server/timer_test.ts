/**
 * server/timer.ts: `after` runs a call once, `cancel` stops it, a pending timer keeps the
 * process alive and a cancelled one does not, cancelled calls leave no timeout signal behind for
 * their whole delay, and `scv exec` makes its text and tool turns without the global
 * `setTimeout` (whose first call loads Deno's Node timers layer).
 */
import assert from "node:assert/strict";
import { after, MAX_SPARE, MAX_TIMER_MS, sleep, timerStats, within } from "../../server/timer.ts";
import { MockOpenAI, text, toolCalls } from "../support/mock_openai.ts";
import { SERVER_FLAGS } from "../support/server_process.ts";

const TIMER = new URL("../../server/timer.ts", import.meta.url).href;
const MAIN = new URL("../../main.ts", import.meta.url).pathname;
const decoder = new TextDecoder();

Deno.test("after runs each call once, in the order of their delays", async () => {
  const ran: string[] = [];
  after(60, () => ran.push("60"));
  after(20, () => ran.push("20"));
  after(NaN, () => ran.push("NaN is 0"));
  after(-5, () => ran.push("negative is 0"));
  await sleep(120);
  // Two calls due at 0 ms may run in either order; the later ones by their delays.
  assert.deepEqual(ran.slice(0, 2).sort(), ["NaN is 0", "negative is 0"]);
  assert.deepEqual(ran.slice(2), ["20", "60"]);
});

Deno.test("a cancelled call never runs; a second cancel, or one after it ran, does nothing", async () => {
  let ran = 0;
  const t = after(5, () => ran++);
  t.cancel();
  t.cancel();
  const done = after(1, () => ran += 10);
  await sleep(40);
  done.cancel();
  assert.equal(ran, 10);
  // Past setTimeout's limit it is clamped, not fired at once.
  const far = after(MAX_TIMER_MS * 4, () => ran++);
  await sleep(10);
  far.cancel();
  assert.equal(ran, 10);
});

Deno.test("4,000 cancelled long calls leave a handful of timeout signals, not one each", async () => {
  const start = timerStats();
  // A turn's pattern: a long bound (a tool call's 120 s), a short wait inside it, then the bound
  // cancelled; and a long bound that outlives a shorter one made after it.
  for (let i = 0; i < 2_000; i++) {
    const bound = after(120_000, () => {});
    await sleep(i % 100 === 0 ? 1 : 0);
    const inner = after(30_000 + (i % 7), () => {});
    inner.cancel();
    bound.cancel();
  }
  const end = timerStats();
  assert.equal(end.pending, start.pending, "every call was cancelled or ran");
  assert.ok(end.signals - start.signals <= 8, `${end.signals - start.signals} signals pending`);
});

Deno.test("a long call pending under 1,000 short waits keeps a signal or two, not one a wait", async () => {
  // exec's pattern: the provider's idle timer pending while each read's text waits after(0).
  // In a process of its own, so that no signal another test left can serve the long call.
  const r = await runScript(
    `import { after, sleep, timerStats } from "${TIMER}";\n` +
      `const long = after(600_000, () => {});\n` +
      `for (let i = 0; i < 1_000; i++) await sleep(i % 2);\n` +
      `console.log(JSON.stringify(timerStats()));\nlong.cancel();\n`,
  );
  assert.equal(r.code, 0);
  const stats = JSON.parse(r.out);
  assert.equal(stats.pending, 1);
  assert.ok(stats.signals <= 3, `${stats.signals} signals pending`);
});

Deno.test("deadlines that keep moving earlier keep at most MAX_SPARE signals aside", async () => {
  const r = await runScript(
    `import { after, sleep, timerStats } from "${TIMER}";\n` +
      `const long = after(600_000, () => {});\n` +
      `for (let i = 0; i < 200; i++) {\n` +
      `  after(500_000 - 100 * i, () => {}).cancel();\n  await sleep(0);\n}\n` +
      `console.log(JSON.stringify(timerStats()));\nlong.cancel();\n`,
  );
  assert.equal(r.code, 0);
  const stats = JSON.parse(r.out);
  assert.ok(stats.signals > 2, "the pattern made signals it could not reuse");
  assert.ok(stats.signals <= MAX_SPARE + 1, `${stats.signals} signals kept`);
});

Deno.test("calls of one deadline run in the order they were made, and a cancel inside a call holds", async () => {
  const ran: number[] = [];
  after(5, () => {
    ran.push(1);
    second.cancel();
  });
  const second = after(5, () => ran.push(2));
  after(5, () => ran.push(3));
  await sleep(40);
  assert.deepEqual(ran, [1, 3]);
});

Deno.test("sleep resolves after its delay, and rejects with the reason once its signal aborts", async () => {
  const start = timerStats().pending;
  await sleep(5);
  const c = new AbortController();
  const slow = sleep(MAX_TIMER_MS, c.signal);
  assert.equal(timerStats().pending, start + 1);
  c.abort(new Error("stop"));
  await assert.rejects(slow, /stop/);
  assert.equal(timerStats().pending, start, "the aborted sleep's call is cancelled");
  await assert.rejects(sleep(MAX_TIMER_MS, AbortSignal.abort(new Error("already"))), /already/);
});

Deno.test("within says whether a promise resolved in time, passes a rejection on, and ends its timer", async () => {
  const start = timerStats().pending;
  assert.equal(await within(sleep(1), 60_000), true);
  assert.equal(await within(new Promise(() => {}), 5), false);
  await assert.rejects(within(Promise.reject(new Error("broke")), 60_000), /broke/);
  assert.equal(timerStats().pending, start, "no bound is left pending");
});

/** Runs `code` in a new Deno process; kills it after 30 s (so a hang fails, never blocks). */
async function runScript(code: string): Promise<{ out: string; killed: boolean; code: number }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["eval", "--no-prompt", code],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  let killed = false;
  const watchdog = after(30_000, () => {
    killed = true;
    child.kill("SIGKILL");
  });
  const out = await child.output();
  watchdog.cancel();
  return { out: decoder.decode(out.stdout), killed, code: out.code };
}

Deno.test("a pending timer keeps its process alive until it runs, a cancelled one does not", async () => {
  const pending = await runScript(
    `import { after } from "${TIMER}";\n` +
      `console.log("started");\nafter(300, () => console.log("ran"));\n`,
  );
  assert.deepEqual(pending, { out: "started\nran\n", killed: false, code: 0 });
  const cancelled = await runScript(
    `import { after } from "${TIMER}";\n` +
      `console.log("started");\nafter(600_000, () => console.log("ran")).cancel();\n`,
  );
  // The process existed (it printed), and ended by itself long before the watchdog.
  assert.deepEqual(cancelled, { out: "started\n", killed: false, code: 0 });
});

Deno.test("a call made while calls run waits for a later task: the microtasks before it run first", async () => {
  const order: string[] = [];
  after(0, () => {
    order.push("a");
    after(0, () => order.push("made by a"));
    queueMicrotask(() => order.push("a's microtask"));
  });
  await sleep(30);
  assert.deepEqual(order, ["a", "a's microtask", "made by a"]);
});

Deno.test("a call that throws is reported as uncaught, as setTimeout's is; handled, the queue goes on", async () => {
  const uncaught = await runScript(
    `import { after } from "${TIMER}";\n` +
      `console.log("started");\nafter(1, () => { throw new Error("boom in a call"); });\n`,
  );
  assert.equal(uncaught.killed, false);
  assert.notEqual(uncaught.code, 0, "an uncaught throw ends the process with a failure");
  const handled = await runScript(
    `import { after, timerStats } from "${TIMER}";\n` +
      `addEventListener("error", (e) => { e.preventDefault(); console.log("caught " + e.message); });\n` +
      `after(1, () => { throw new Error("boom"); });\n` +
      `after(1, () => console.log("next ran"));\n` +
      `after(20, () => console.log(JSON.stringify(timerStats())));\n`,
  );
  assert.deepEqual(handled.out.split("\n").filter(Boolean), [
    "next ran",
    "caught Uncaught Error: boom",
    JSON.stringify({ pending: 0, signals: 0 }),
  ]);
});

Deno.test("scv exec calls no global setTimeout in a text turn or a bash call", async () => {
  const dir = await Deno.makeTempDir();
  // Preloaded before main.ts: every call of the global setTimeout is reported on stderr.
  const spy = `${dir}/spy.ts`;
  await Deno.writeTextFile(
    spy,
    `const real = globalThis.setTimeout;\n` +
      `globalThis.setTimeout = ((...a: Parameters<typeof real>) => {\n` +
      `  console.error("SPY setTimeout " + new Error().stack);\n` +
      `  return real(...a);\n` +
      `}) as typeof real;\n`,
  );
  const mock = await MockOpenAI.start([
    text("plain answer"),
    toolCalls([{ name: "bash", arguments: { command: "echo from-bash" } }]),
    text("after the call"),
  ]);
  try {
    const run = async (prompt: string) => {
      const out = await new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          ...SERVER_FLAGS,
          "--preload",
          spy,
          MAIN,
          "exec",
          "--approval-policy",
          "never",
          "--cwd",
          dir,
          prompt,
        ],
        env: {
          OPENAI_BASE_URL: mock.baseUrl,
          XDG_CONFIG_HOME: dir,
          XDG_STATE_HOME: `${dir}/.state`,
          NO_COLOR: "1",
        },
        stdout: "piped",
        stderr: "piped",
      }).output();
      return {
        code: out.code,
        stdout: decoder.decode(out.stdout),
        stderr: decoder.decode(out.stderr),
      };
    };
    const plain = await run("say something");
    assert.equal(plain.code, 0, plain.stderr);
    assert.equal(plain.stdout, "plain answer\n");
    const tool = await run("run echo");
    assert.equal(tool.code, 0, tool.stderr);
    assert.match(tool.stdout, /after the call/);
    assert.match(JSON.stringify(mock.requests[2]?.body), /from-bash/);
    for (const r of [plain, tool]) assert.doesNotMatch(r.stderr, /SPY setTimeout/, r.stderr);
  } finally {
    await mock.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the spy of the test above sees a global setTimeout call", async () => {
  // Shows the spy works: the same preload reports a setTimeout a script makes.
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(
      `${dir}/spy.ts`,
      `const real = globalThis.setTimeout;\n` +
        `globalThis.setTimeout = ((...a: Parameters<typeof real>) => {\n` +
        `  console.error("SPY setTimeout");\n  return real(...a);\n}) as typeof real;\n`,
    );
    await Deno.writeTextFile(`${dir}/main.ts`, `setTimeout(() => console.log("done"), 1);\n`);
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--no-prompt", "--preload", `${dir}/spy.ts`, `${dir}/main.ts`],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(decoder.decode(out.stdout), "done\n");
    assert.match(decoder.decode(out.stderr), /SPY setTimeout/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
