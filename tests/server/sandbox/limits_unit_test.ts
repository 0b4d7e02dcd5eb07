import assert from "node:assert/strict";
import { assertEquals } from "../../support/assert.ts";
import {
  cgroupCleanup,
  DEFAULT_SANDBOX_LIMITS,
  limitHint,
  pidsLauncher,
  prlimitArgv,
  standbyInput,
  standbyLauncher,
  validateSandboxLimits,
} from "../../../server/sandbox/limits.ts";
import { validateConfigObject } from "../../../server/config.ts";

const L = { memory_mb: 256, processes: 32, file_size_mb: 1, cpu_seconds: 5 };

Deno.test("sandbox_limits takes positive integers, null cpu_seconds, and fills missing keys", () => {
  assert.deepEqual(validateSandboxLimits({}), DEFAULT_SANDBOX_LIMITS);
  assert.deepEqual(validateSandboxLimits({ cpu_seconds: 10, processes: 64 }), {
    ...DEFAULT_SANDBOX_LIMITS,
    cpu_seconds: 10,
    processes: 64,
  });
  for (
    const bad of [{ memory_mb: 0 }, { processes: 1.5 }, { file_size_mb: "1" }, { memory_mb: null }]
  ) {
    assert.throws(
      () => validateSandboxLimits(bad),
      /"sandbox_limits\.\w+" must be a positive integer/,
    );
  }
  assert.throws(() => validateSandboxLimits({ swap: 1 }), /unknown key "swap"/);
  assert.throws(
    () => validateConfigObject({ sandbox_limits: { processes: -1 } }, "x.jsonc"),
    /x\.jsonc.*"sandbox_limits\.processes"/,
  );
});

Deno.test("prlimit sets heap, processes, file size and CPU seconds only when given", () => {
  assert.deepEqual(prlimitArgv(L, ["bash", "-c", "x"]), [
    "prlimit",
    "--data=268435456",
    "--nproc=32",
    "--fsize=1048576",
    "--cpu=5",
    "--",
    "bash",
    "-c",
    "x",
  ]);
  assert.ok(!prlimitArgv(DEFAULT_SANDBOX_LIMITS, ["true"]).some((a) => a.startsWith("--cpu")));
});

Deno.test("the limit hint names the limit from the output or the exit status, or says nothing", () => {
  const ok = { code: 1, signal: null };
  assert.match(
    limitHint("bash: fork: retry: Resource temporarily unavailable", ok, L)!,
    /process limit \(32 processes\).*"processes"/,
  );
  assert.match(limitHint("MemoryError", ok, L)!, /memory limit \(256 MiB per process\)/);
  assert.match(limitHint("", { code: 153, signal: null }, L)!, /file size limit/);
  assert.match(limitHint("", { code: 1, signal: "SIGXFSZ" }, L)!, /"file_size_mb"/);
  assert.match(limitHint("CPU time limit exceeded", ok, L)!, /CPU time limit \(5 s\)/);
  assert.equal(limitHint("", { code: 152, signal: null }, { ...L, cpu_seconds: null }), undefined);
  assert.equal(limitHint("error: tests failed", ok, L), undefined);
});

Deno.test("the pids launcher runs in bash, or in a pass-through bwrap under --allow-run=bwrap alone", () => {
  const viaBwrap = pidsLauncher(32, "7", ["bwrap", "--", "true"], false, 4242);
  assert.equal(viaBwrap.command, "bwrap");
  assert.deepEqual(viaBwrap.args.slice(0, 9), [
    "--bind",
    "/",
    "/",
    "--dev-bind",
    "/dev",
    "/dev",
    "--die-with-parent",
    "--",
    "/bin/sh",
  ]);
  assert.deepEqual(viaBwrap.args.slice(-6), ["32", "7", "4242", "bwrap", "--", "true"]);
  // In bash it is killed with scv through setpriv --pdeathsig.
  const viaBash = pidsLauncher(32, "7", ["true"], true, 4242);
  assert.equal(viaBash.command, "bash");
  assert.match(viaBash.args[1]!, /setpriv --pdeathsig KILL/);
  assert.deepEqual(viaBash.args.slice(-4), ["32", "7", "4242", "true"]);
});

/** Runs a launcher or cleanup line with bash's process table and a fake cgroup root. */
async function runScript(line: { command: string; args: string[] }, root: string) {
  // The scripts look at /sys/fs/cgroup; here the same text runs against a temp directory.
  const args = line.args.map((a) => a.replaceAll("/sys/fs/cgroup", root));
  const out = await new Deno.Command(line.command, { args, stdout: "piped", stderr: "piped" })
    .output();
  return new TextDecoder().decode(out.stdout);
}

Deno.test("the cleanup removes the named calls' cgroups of one scv, or all of them, and no other", async () => {
  const root = await Deno.makeTempDir();
  try {
    await Deno.mkdir(`${root}/pids`);
    await Deno.writeTextFile(`${root}/pids/cgroup.procs`, "");
    for (const d of ["scv-10-1", "scv-10-2", "scv-10-3", "scv-11-1"]) {
      await Deno.mkdir(`${root}/pids/${d}`);
    }
    await runScript(cgroupCleanup(["1", "3"], true, 10), root);
    const left = async () =>
      (await Array.fromAsync(Deno.readDir(`${root}/pids`))).map((e) => e.name).sort();
    assertEquals(await left(), ["cgroup.procs", "scv-10-2", "scv-11-1"]);
    await runScript(cgroupCleanup([], true, 10), root);
    assertEquals(await left(), ["cgroup.procs", "scv-11-1"]);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("a launch removes the cgroups of an scv that no longer runs, and keeps a live one's", async () => {
  const root = await Deno.makeTempDir();
  // A pid that ran and ended: no process has it now (until the kernel reuses it).
  const ended = new Deno.Command("true").spawn();
  await ended.status;
  try {
    await Deno.mkdir(`${root}/pids`);
    await Deno.writeTextFile(`${root}/pids/cgroup.procs`, "");
    await Deno.mkdir(`${root}/pids/scv-${ended.pid}-4`);
    await Deno.mkdir(`${root}/pids/scv-${Deno.pid}-9`);
    // The fake hierarchy has no pids.max, so the launcher runs the command without a cgroup.
    const said = await runScript(pidsLauncher(8, "1", ["echo", "ran"], true, Deno.pid), root);
    assertEquals(said.trim(), "ran");
    const left = (await Array.fromAsync(Deno.readDir(`${root}/pids`))).map((e) => e.name).sort();
    assertEquals(left, ["cgroup.procs", `scv-${Deno.pid}-9`]);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("a standby launcher runs its call with exactly the call's environment, the command found on its PATH", async () => {
  const root = await Deno.makeTempDir();
  try {
    await Deno.mkdir(`${root}/pids`);
    await Deno.writeTextFile(`${root}/pids/cgroup.procs`, "");
    const line = standbyLauncher(8, "1", Deno.pid);
    const args = line.args.map((a) => a.replaceAll("/sys/fs/cgroup", root));
    // The launcher's own environment holds more than scv gives it: none of it reaches the call.
    const child = new Deno.Command(line.command, {
      args,
      clearEnv: true,
      env: { PATH: "/usr/bin:/bin", LEAK: "the provider key", HOME: "/root" },
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const w = child.stdin.getWriter();
    await w.write(standbyInput({ A: "1 2", B: "" }, ["env"]));
    await w.close();
    const out = await child.output();
    const lines = new TextDecoder().decode(out.stdout).split("\n").filter((l) => l !== "");
    // bash itself puts `_` (the command's path) into what it runs.
    assertEquals(lines.filter((l) => !l.startsWith("_=")).sort(), ["A=1 2", "B="]);
    assertEquals(out.code, 0, new TextDecoder().decode(out.stderr));
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
