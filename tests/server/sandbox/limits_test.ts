/**
 * `sandbox_limits` through the real server with bubblewrap: a fork bomb and a memory hog each end
 * their call with a line naming the limit, and the next call works. The bomb is bounded three ways
 * so that it cannot harm a shared machine: it forks at most 300 sleeping children, the test's
 * process limit is 32, and the call's PID namespace ends every one of them with the call. It runs
 * only where the process limit holds here (a pids cgroup scv may make, or prlimit for a user other
 * than root, whom the kernel exempts from RLIMIT_NPROC).
 */
import assert from "node:assert/strict";
import { DEFAULT_CONFIG } from "../../../server/config.ts";
import { openSandbox } from "../../../server/sandbox/mod.ts";
import { MockOpenAI, type MockReply, text, toolCalls } from "../../support/mock_openai.ts";
import { type Ev, ServerProcess } from "../../support/server_process.ts";
import { FAKE_KEY, hostDir, SANDBOX_WORKS } from "./support.ts";

const LIMITS = { memory_mb: 256, processes: 32, file_size_mb: 1, cpu_seconds: null };

const report = SANDBOX_WORKS
  ? await (await openSandbox({ ...DEFAULT_CONFIG, sandbox_limits: LIMITS })).limitsReport()
  : "";
const PROCESS_LIMIT_HOLDS = report.includes("pids cgroup") ||
  (Deno.uid() !== 0 && report.includes("prlimit"));
if (SANDBOX_WORKS && !PROCESS_LIMIT_HOLDS) {
  console.error(`limits tests: the process limit does not hold here (${report}); ignored`);
}

const BOMB = "python3 -c 'import os, time\nfor i in range(300):\n" +
  "    if os.fork() == 0:\n        time.sleep(20)\n        os._exit(0)\n'";
const HOG = "python3 -c 'x = bytearray(1024 * 1024 * 1024); print(len(x))'";
const BIG_FILE = "head -c 2097152 /dev/zero > big.bin";

/** Runs `commands` as one turn's bash calls, in order; gives each call's `tool.completed`. */
async function calls(commands: string[]): Promise<{ completed: Ev[]; pid: number }> {
  const workspace = await hostDir("scv-sbx-ws-");
  const mock = await MockOpenAI.start((_req, i): MockReply =>
    i < commands.length
      ? toolCalls([{ id: `call_${i}`, name: "bash", arguments: { command: commands[i] } }])
      : text("done")
  );
  const server = await ServerProcess.start({
    config: { base_url: mock.baseUrl, approval_policy: "auto", sandbox_limits: LIMITS },
    env: { OPENAI_API_KEY: FAKE_KEY },
  });
  try {
    const { sessionId } = await server.open(workspace);
    const { done } = await server.runTurn(sessionId, "go");
    assert.equal(done.type, "turn.completed", JSON.stringify(done));
    return {
      completed: server.events.filter((e) => e.type === "tool.completed"),
      pid: server.child.pid,
    };
  } finally {
    await server.kill();
    await mock.close();
    await Deno.remove(workspace, { recursive: true }).catch(() => {});
  }
}

Deno.test({
  name:
    "a fork bomb and a memory hog each end their call naming the limit, and the next call works",
  ignore: !SANDBOX_WORKS || !PROCESS_LIMIT_HOLDS,
  fn: async () => {
    const { completed: [bomb, hog, next], pid } = await calls([BOMB, HOG, "echo next-ok"]);
    assert.equal(bomb?.success, false, bomb?.output);
    assert.match(bomb!.output, /Resource temporarily unavailable/);
    assert.match(
      bomb!.output.split("\n").at(-1)!,
      /hit its process limit \(32 processes\); raise "sandbox_limits"\."processes"/,
    );
    assert.equal(hog?.success, false, hog?.output);
    assert.match(hog!.output, /MemoryError/);
    assert.match(hog!.output.split("\n").at(-1)!, /hit its memory limit .*"memory_mb"/);
    assert.equal(next?.success, true, next?.output);
    assert.match(next!.output, /next-ok/);
    // No cgroup of the calls is left behind: each call's is removed beside the turn, once it
    // ended (a shell looks: Deno lets only -A read /sys).
    assert(await eventually(async () => (await cgroupsOf(pid)).length === 0), "a cgroup is left");
  },
});

Deno.test({
  name: "a file over sandbox_limits.file_size_mb ends its call naming that limit",
  ignore: !SANDBOX_WORKS || !report.includes("prlimit"),
  fn: async () => {
    const { completed: [big] } = await calls([BIG_FILE]);
    assert.equal(big?.success, false, big?.output);
    assert.match(big!.output.split("\n").at(-1)!, /hit its file size limit \(1 MiB per file\)/);
  },
});

/**
 * The pids cgroups of scv `pid`'s calls that exist now (`scv-<pid>-<n>`; the probe's
 * `scv-<pid>-probe`, made for an instant before the first call, is not a call's). A shell
 * looks: Deno lets only -A read /sys.
 */
async function cgroupsOf(pid: number): Promise<string[]> {
  const ls = await new Deno.Command("sh", {
    args: ["-c", `ls -d /sys/fs/cgroup/pids/scv-${pid}-* /sys/fs/cgroup/scv-${pid}-* 2>/dev/null`],
    stdout: "piped",
  }).output();
  return new TextDecoder().decode(ls.stdout).split("\n").filter((l) => /-\d+$/.test(l));
}

/** `message` with the process table, for a failure to show what was left. */
async function tree(message: string): Promise<string> {
  const ps = await new Deno.Command("ps", { args: ["-eo", "pid,ppid,stat,args"], stdout: "piped" })
    .output();
  const lines = new TextDecoder().decode(ps.stdout).split("\n");
  return `${message}:\n${lines.filter((l) => /sleep 4|bwrap|scv-limits/.test(l)).join("\n")}`;
}

/** The processes left in scv `pid`'s call cgroups, as `cgroup.procs` lists them. */
async function cgroupProcs(pid: number): Promise<string> {
  const cat = await new Deno.Command("sh", {
    args: [
      "-c",
      `cat /sys/fs/cgroup/pids/scv-${pid}-*/cgroup.procs /sys/fs/cgroup/scv-${pid}-*/cgroup.procs 2>/dev/null`,
    ],
    stdout: "piped",
  }).output();
  return new TextDecoder().decode(cat.stdout).trim();
}

/** Waits (at most ~20 s) until `check` holds; false when it never did. */
async function eventually(check: () => Promise<boolean>): Promise<boolean> {
  for (let i = 0; i < 400; i++) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

/** Whether a process whose command line contains `needle` runs. */
async function running(needle: string): Promise<boolean> {
  const ps = await new Deno.Command("ps", { args: ["-eo", "args"], stdout: "piped" }).output();
  return new TextDecoder().decode(ps.stdout).split("\n").some((l) =>
    l.includes(needle) && !l.includes("ps -eo")
  );
}

/** A server making one long bash call `command`; gives it once the call's cgroup exists. */
async function longCall(command: string) {
  const workspace = await hostDir("scv-sbx-ws-");
  const mock = await MockOpenAI.start([
    toolCalls([{ id: "call_0", name: "bash", arguments: { command } }]),
    text("done"),
  ]);
  const server = await ServerProcess.start({
    config: { base_url: mock.baseUrl, approval_policy: "auto", sandbox_limits: LIMITS },
    env: { OPENAI_API_KEY: FAKE_KEY },
  });
  const { sessionId } = await server.open(workspace);
  const turn = await server.startTurn(sessionId, "go");
  await server.next((e) => e.type === "tool.started");
  const pid = server.child.pid;
  const seen = await eventually(async () => (await cgroupsOf(pid)).length > 0);
  const done = async () => {
    await server.kill();
    await mock.close();
    await Deno.remove(workspace, { recursive: true }).catch(() => {});
  };
  return { server, sessionId, turn, pid, seen, done };
}

Deno.test({
  name: "a cancelled call's pids cgroup existed while it ran and is gone when the call ends",
  ignore: !SANDBOX_WORKS || !report.includes("pids cgroup"),
  fn: async () => {
    const call = await longCall("sleep 41.5");
    try {
      assert(call.seen, "the call ran in a pids cgroup of its own");
      assert.equal((await cgroupsOf(call.pid)).length, 1);
      const { done: end } = await call.server.cancelTurn(call.sessionId, call.turn.turn_id);
      assert.equal(end.type, "turn.cancelled");
      const completed = call.server.events.find((e) => e.type === "tool.completed");
      assert.equal(completed?.success, false);
      // Removed before the call was reported ended, not by a later call.
      assert.deepEqual(await cgroupsOf(call.pid), []);
      assert(await eventually(async () => !(await running("sleep 41.5"))), "no orphan");
    } finally {
      await call.done();
    }
  },
});

Deno.test({
  name:
    "a call's cgroup left by an scv killed with SIGKILL goes with its sandbox, and the next scv removes it",
  ignore: !SANDBOX_WORKS || !report.includes("pids cgroup"),
  fn: async () => {
    const call = await longCall("sleep 42.5");
    try {
      assert(call.seen, "the call ran in a pids cgroup of its own");
      assert(await eventually(() => running("sleep 42.5")), "the command runs");
    } finally {
      await call.done(); // SIGKILL while the call runs
    }
    // The launcher died with its scv, and the sandbox with it: no process of the call is left,
    // in the process table or in the cgroup (once the kernel has reaped them all).
    assert(await eventually(async () => !(await running("sleep 42.5"))), await tree("no orphan"));
    assert(await eventually(async () => (await cgroupProcs(call.pid)) === ""), "cgroup empties");
    // Its empty cgroup is left behind until the next launch of any scv (which on a shared
    // machine may be another's, so that it is not asserted here; limits_unit_test shows it).
    const { completed: [next] } = await calls(["echo next-ok"]);
    assert.equal(next?.success, true, next?.output);
    assert.deepEqual(await cgroupsOf(call.pid), []);
  },
});

Deno.test({
  name: "closing the sandbox removes the cgroups of its killed calls",
  ignore: !SANDBOX_WORKS || !report.includes("pids cgroup"),
  fn: async () => {
    const workspace = await hostDir("scv-sbx-ws-");
    const sandbox = await openSandbox({ ...DEFAULT_CONFIG, sandbox_limits: LIMITS });
    try {
      const prepared = await sandbox.prepare(workspace, ["sleep", "43.5"]);
      assert.equal(prepared.kind, "sandboxed");
      if (prepared.kind !== "sandboxed") return;
      const child = new Deno.Command(prepared.command, {
        args: prepared.args,
        stdout: "null",
        stderr: "null",
      }).spawn();
      assert(await eventually(async () => (await cgroupsOf(Deno.pid)).length > 0));
      // Killed once the command runs: bwrap killed while it still sets up is the bash tool's
      // business (its marker scan), not the cgroup's.
      assert(await eventually(() => running("sleep 43.5")));
      child.kill("SIGKILL");
      await child.status;
      assert(await eventually(async () => !(await running("sleep 43.5"))), "no orphan");
      // The killed launcher could not remove its cgroup; the sandbox's close does.
      assert.equal((await cgroupsOf(Deno.pid)).length, 1);
      await sandbox.close();
      assert.deepEqual(await cgroupsOf(Deno.pid), []);
    } finally {
      await sandbox.close();
      await Deno.remove(workspace, { recursive: true }).catch(() => {});
    }
  },
});
