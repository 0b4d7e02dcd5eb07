import assert from "node:assert/strict";
import {
  DEFAULT_SANDBOX_LIMITS,
  limitHint,
  pidsLauncher,
  prlimitArgv,
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
  const viaBwrap = pidsLauncher(32, "7", ["bwrap", "--", "true"], false);
  assert.equal(viaBwrap.command, "bwrap");
  assert.deepEqual(viaBwrap.args.slice(0, 8), [
    "--bind",
    "/",
    "/",
    "--dev-bind",
    "/dev",
    "/dev",
    "--",
    "/bin/sh",
  ]);
  assert.deepEqual(viaBwrap.args.slice(-5), ["32", "7", "bwrap", "--", "true"]);
});
