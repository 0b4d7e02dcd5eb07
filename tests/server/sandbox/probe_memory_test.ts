/**
 * The sandbox probe's success remembered across processes (server/sandbox/probe_memory.ts): for
 * the same binary, version, kernel and user, a day at most; a failure never; a torn or foreign
 * file is no memory. End to end: a second `scv server` with the same state directory reports the
 * sandbox without spawning bwrap, and `scv sandbox-check` runs the trial again.
 */
import assert from "node:assert/strict";
import {
  forget,
  PROBE_MEMORY_FILE,
  PROBE_MEMORY_MS,
  probeKey,
  remember,
  remembered,
  rememberedFacts,
  rememberFacts,
} from "../../../server/sandbox/probe_memory.ts";
import { probeOnce, REMEMBERED_DETAIL } from "../../../server/sandbox/probe.ts";
import type { ProbeResult, SandboxBackend } from "../../../server/sandbox/types.ts";
import { SERVER_FLAGS } from "../../support/server_process.ts";
import { MockOpenAI, text, toolCalls } from "../../support/mock_openai.ts";

const MAIN = new URL("../../../main.ts", import.meta.url).pathname;
const decoder = new TextDecoder();

Deno.test("a remembered success holds for its key, for a day, and a torn or large file is none", async () => {
  const dir = await Deno.makeTempDir();
  const file = `${dir}/state/${PROBE_MEMORY_FILE}`;
  try {
    assert.equal(remembered(file, "k"), false);
    remember(file, "k", 1_000);
    assert.equal(remembered(file, "k", 1_000), true);
    assert.equal(remembered(file, "k", 1_000 + PROBE_MEMORY_MS - 1), true);
    assert.equal(remembered(file, "k", 1_000 + PROBE_MEMORY_MS), false);
    assert.equal(remembered(file, "k", 999), false, "a memory from the future is none");
    assert.equal(remembered(file, "other", 1_000), false);
    assert.equal((await Deno.stat(file)).mode! & 0o777, 0o600);
    assert.deepEqual([...Deno.readDirSync(`${dir}/state`)].map((e) => e.name), [PROBE_MEMORY_FILE]);

    await Deno.writeTextFile(file, '{"key":"k","at":10');
    assert.equal(remembered(file, "k", 10), false);
    await Deno.writeTextFile(file, JSON.stringify({ key: "k", at: 10, pad: "x".repeat(5000) }));
    assert.equal(remembered(file, "k", 10), false);
    remember(file, "k", 10);
    forget(file);
    assert.equal(remembered(file, "k", 10), false);
    forget(file); // nothing to forget is fine
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the limits' facts are kept beside a success, expire with it, and are never written without one", async () => {
  const dir = await Deno.makeTempDir();
  const file = `${dir}/${PROBE_MEMORY_FILE}`;
  try {
    rememberFacts(file, "k", { prlimit: "/usr/bin/prlimit" }, 1_000);
    await assert.rejects(() => Deno.stat(file), Deno.errors.NotFound, "no success, no file");
    remember(file, "k", 1_000);
    assert.deepEqual(rememberedFacts(file, "k", 1_000), {});
    rememberFacts(file, "k", { prlimit: "/usr/bin/prlimit" }, 2_000);
    rememberFacts(file, "k", { pidsCgroup: true }, 3_000);
    assert.deepEqual(rememberedFacts(file, "k", 3_000), {
      prlimit: "/usr/bin/prlimit",
      pidsCgroup: true,
    });
    // They keep the success's time: a day after it, both are gone.
    assert.equal(remembered(file, "k", 1_000 + PROBE_MEMORY_MS - 1), true);
    assert.deepEqual(rememberedFacts(file, "k", 1_000 + PROBE_MEMORY_MS), {});
    assert.deepEqual(rememberedFacts(file, "other", 3_000), {});
    // A prlimit that is not an absolute path is not taken, nor a cgroup that is not `true`.
    await Deno.writeTextFile(
      file,
      JSON.stringify({
        key: "k",
        at: 1_000,
        facts: { prlimit: "prlimit; rm -rf ~", pidsCgroup: 1 },
      }),
    );
    assert.equal(remembered(file, "k", 1_000), true);
    assert.deepEqual(rememberedFacts(file, "k", 1_000), {});
    forget(file);
    assert.deepEqual(rememberedFacts(file, "k", 1_000), {});
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the probe's key follows the binary found on PATH (and the kernel and user where scv may ask)", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const bin = `${dir}/fakebwrap`;
    await Deno.writeTextFile(bin, "#!/bin/sh\n");
    assert.equal(probeKey("fakebwrap", `relative:${dir}`), undefined, "not executable");
    await Deno.chmod(bin, 0o755);
    const key = probeKey("fakebwrap", `relative:/nonexistent:${dir}`);
    assert.ok(key?.includes(bin), key);
    assert.equal(probeKey("fakebwrap", `${dir}/`), key);
    await Deno.utime(bin, new Date(), new Date(Date.now() + 5_000));
    assert.notEqual(probeKey("fakebwrap", dir), key, "a changed binary is another key");
    assert.equal(probeKey("fakebwrap", "/nonexistent"), undefined);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("probeOnce takes a remembered success for a trial run, remembers no failure, and fresh runs it", async () => {
  const dir = await Deno.makeTempDir();
  const path = Deno.env.get("PATH") ?? "";
  try {
    await Deno.writeTextFile(`${dir}/memtest`, "#!/bin/sh\n");
    await Deno.chmod(`${dir}/memtest`, 0o755);
    Deno.env.set("PATH", dir);
    let runs = 0;
    let answer: ProbeResult = { ok: true, detail: "trial run" };
    // probeOnce caches per backend object: each process of the story is a new one.
    const process = (): SandboxBackend => ({
      name: "memtest",
      executable: "memtest",
      command: () => ({ command: "memtest", args: [] }),
      probe: () => {
        runs++;
        return Promise.resolve(answer);
      },
    });
    const file = `${dir}/${PROBE_MEMORY_FILE}`;
    assert.deepEqual(await probeOnce(process(), { file }), { ok: true, detail: "trial run" });
    assert.equal(runs, 1);
    assert.deepEqual(await probeOnce(process(), { file }), {
      ok: true,
      detail: REMEMBERED_DETAIL,
      remembered: true,
    });
    assert.equal(runs, 1, "the second process spawned nothing");
    assert.equal((await probeOnce(process(), { file, fresh: true })).ok, true);
    assert.equal(runs, 2, "fresh runs the trial");

    answer = { ok: false, reason: "no namespaces", fix: "x" };
    assert.equal((await probeOnce(process(), { file, fresh: true })).ok, false);
    assert.equal(runs, 3);
    assert.equal(remembered(file, probeKey("memtest", dir)!), false, "a fresh failure forgets");
    assert.equal((await probeOnce(process(), { file })).ok, false);
    assert.equal(runs, 4, "nothing remembered: probed again");
    assert.equal((await probeOnce(process(), { file })).ok, false);
    assert.equal(runs, 5, "a failure is not remembered");
  } finally {
    Deno.env.set("PATH", path);
    await Deno.remove(dir, { recursive: true });
  }
});

/**
 * Makes `root/bin/bwrap` (a script that logs each start to the returned file, runs `before`,
 * then is the real bwrap) and the workspace `root/ws`.
 */
async function fakeBwrap(root: string, before = ""): Promise<string> {
  const log = `${root}/bwrap.log`;
  await Deno.mkdir(`${root}/bin`);
  await Deno.mkdir(`${root}/ws`);
  await Deno.writeTextFile(
    `${root}/bin/bwrap`,
    `#!/bin/sh\necho "$*" >> ${log}\n${before}exec /usr/bin/bwrap "$@"\n`,
  );
  await Deno.chmod(`${root}/bin/bwrap`, 0o755);
  return log;
}

/** scv's environment in `root`: the logging bwrap first on PATH, config and state inside. */
function scvEnv(root: string): Record<string, string> {
  return {
    PATH: `${root}/bin:/usr/bin:/bin`,
    XDG_CONFIG_HOME: `${root}/config`,
    XDG_STATE_HOME: `${root}/state`,
  };
}

/** One `scv exec` tool turn in `root/ws` against the mock at `baseUrl`. */
function scvExec(root: string, baseUrl: string): Promise<Deno.CommandOutput> {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", ...SERVER_FLAGS, MAIN, "exec", "--approval-policy", "never", "run it"],
    cwd: `${root}/ws`,
    env: { ...scvEnv(root), OPENAI_BASE_URL: baseUrl, OPENAI_API_KEY: "k" },
    stdout: "piped",
    stderr: "piped",
  }).output();
}

/** `scv server` through initialize and session.start; the bwrap runs the wrapper logged. */
async function serverStart(
  root: string,
  log: string,
): Promise<{ sandbox: unknown; spawns: number }> {
  const before = (await Deno.readTextFile(log).catch(() => "")).split("\n").filter(Boolean).length;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", ...SERVER_FLAGS, MAIN, "server"],
    cwd: root,
    env: { ...scvEnv(root), OPENAI_API_KEY: "k" },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const w = child.stdin.getWriter();
  await w.write(
    new TextEncoder().encode(
      '{"type":"initialize","request_id":"1","protocol_version":1}\n' +
        JSON.stringify({ type: "session.start", request_id: "2", cwd: `${root}/ws` }) + "\n",
    ),
  );
  await w.close();
  const out = await child.output();
  const frames = decoder.decode(out.stdout).trim().split("\n").map((l) => JSON.parse(l));
  const started = frames.find((f) => f.type === "session.started");
  assert.ok(started, decoder.decode(out.stdout) + decoder.decode(out.stderr));
  const after = (await Deno.readTextFile(log).catch(() => "")).split("\n").filter(Boolean).length;
  return { sandbox: started.sandbox, spawns: after - before };
}

Deno.test({
  name: "a remembered probe that no longer holds fails the bash call closed and is forgotten",
  ignore: !(await Deno.stat("/usr/bin/bwrap").then(() => true, () => false)),
  fn: async () => {
    const root = await Deno.makeTempDir();
    const mock = await MockOpenAI.start([
      toolCalls([{ name: "bash", arguments: { command: "echo inside" } }]),
      text("done"),
    ]);
    try {
      // A bwrap that works until ${root}/broken exists, then fails as bwrap does without
      // user namespaces.
      const log = await fakeBwrap(
        root,
        `if [ -e ${root}/broken ]; then ` +
          `echo "bwrap: No permissions to create new namespace" >&2; exit 1; fi\n`,
      );
      assert.equal((await serverStart(root, log)).spawns, 1);
      const memory = `${root}/state/scv/${PROBE_MEMORY_FILE}`;
      assert.ok((await Deno.stat(memory)).isFile);
      await Deno.writeTextFile(`${root}/broken`, "");

      const exec = await scvExec(root, mock.baseUrl);
      // The call failed closed, with bwrap's own line; the command never ran outside.
      const toolResult = JSON.stringify(mock.requests[1]?.body.messages.at(-1));
      assert.match(toolResult, /bwrap: No permissions/, decoder.decode(exec.stderr));
      assert.doesNotMatch(toolResult, /inside/);
      await assert.rejects(() => Deno.stat(memory), Deno.errors.NotFound);
      // The next start probes again and says the sandbox cannot start.
      const next = await serverStart(root, log);
      assert.equal(next.spawns, 1);
      assert.notDeepEqual(next.sandbox, { mode: "workspace-write", network: false });
    } finally {
      await mock.close();
      await Deno.remove(root, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "a second tool turn with the same state runs no bwrap looking for prlimit: it is remembered",
  ignore: !(await Deno.stat("/usr/bin/bwrap").then(() => true, () => false)),
  fn: async () => {
    const root = await Deno.makeTempDir();
    const mock = await MockOpenAI.start([
      toolCalls([{ name: "bash", arguments: { command: "echo inside" } }]),
      text("done"),
      toolCalls([{ name: "bash", arguments: { command: "echo again" } }]),
      text("done"),
    ]);
    try {
      const log = await fakeBwrap(root);
      const lookups = async () =>
        (await Deno.readTextFile(log)).split("\n").filter((l) => l.includes("prlimit")).length;
      const exec = async (n: number) => {
        const out = await scvExec(root, mock.baseUrl);
        assert.ok(out.success, decoder.decode(out.stderr));
        const result = JSON.stringify(mock.requests[2 * n - 1]?.body.messages.at(-1));
        assert.match(result, n === 1 ? /inside/ : /again/);
      };
      await exec(1);
      // The first looked for prlimit inside (the lookup names it; the call runs it by path).
      const first = await lookups();
      assert.ok(first >= 2, await Deno.readTextFile(log));
      const memory = JSON.parse(await Deno.readTextFile(`${root}/state/scv/${PROBE_MEMORY_FILE}`));
      assert.match(memory.facts.prlimit, /^\/(usr\/)?bin\/prlimit$/);
      await exec(2);
      // The second only ran its call: one bwrap, with prlimit in it.
      assert.equal(await lookups(), first + 1, await Deno.readTextFile(log));
    } finally {
      await mock.close();
      await Deno.remove(root, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "a second scv server reports the sandbox without spawning bwrap; sandbox-check probes again",
  ignore: !(await Deno.stat("/usr/bin/bwrap").then(() => true, () => false)),
  fn: async () => {
    const root = await Deno.makeTempDir();
    try {
      const log = await fakeBwrap(root);
      const first = await serverStart(root, log);
      assert.equal(first.spawns, 1, "the first start probes");
      assert.ok((await Deno.stat(`${root}/state/scv/${PROBE_MEMORY_FILE}`)).isFile);
      const second = await serverStart(root, log);
      assert.equal(second.spawns, 0, "the second start remembers");
      assert.deepEqual(second.sandbox, first.sandbox);

      const check = await new Deno.Command(Deno.execPath(), {
        args: ["run", ...SERVER_FLAGS, MAIN, "sandbox", "check"],
        cwd: `${root}/ws`,
        env: scvEnv(root),
        stdout: "piped",
        stderr: "piped",
      }).output();
      // The diagnosis ran the probe's own trial (`-- true` from `/`), not only its live check.
      const trials = (await Deno.readTextFile(log)).split("\n")
        .filter((l) => l.endsWith("--chdir / -- true"));
      assert.equal(trials.length, 2, trials.join("\n") + decoder.decode(check.stderr));

      // A changed bwrap is another key: the next start probes again.
      await Deno.utime(`${root}/bin/bwrap`, new Date(), new Date(Date.now() + 5_000));
      const third = await serverStart(root, log);
      assert.equal(third.spawns, 1);
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  },
});
