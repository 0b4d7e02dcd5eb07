import assert from "node:assert/strict";
import { toolContext, withTempDir } from "./support.ts";
import { runToolInChild } from "../../support/tool_probe.ts";
import { alive } from "../../support/probes.ts";
import { bashTool, createBashTool } from "../../../server/tools/bash.ts";
import { type ToolContext, type ToolLimits, ToolTimeoutError } from "../../../server/tools/tool.ts";

function context(
  cwd: string,
  limits: Partial<ToolLimits> = {},
  extra: Partial<ToolContext> = {},
): ToolContext {
  return { ...toolContext(cwd, { limits: { timeoutMs: 20_000, ...limits } }), ...extra };
}

/** Waits (generously, for a loaded machine) for `pid` to be gone; SIGKILL lands asynchronously. */
async function gone(pid: number): Promise<boolean> {
  const deadline = Date.now() + 10_000;
  while (await alive(pid)) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
  return true;
}

function pidsOf(output: string): number[] {
  return [...output.matchAll(/PID=(\d+)/g)].map((m) => Number(m[1]));
}

Deno.test("bash summary and risk follow the contract", () => {
  assert.equal(bashTool.name, "bash");
  assert.equal(bashTool.summary({ command: "ls -la" }), "Run shell command: ls -la");
  assert.equal(bashTool.risk({ command: "ls" }, { cwd: "/" }), "process");
});

Deno.test("bash schema rejects a non-positive or fractional timeout_ms", () => {
  assert.equal(bashTool.schema.safeParse({ command: "ls", timeout_ms: 0 }).success, false);
  assert.equal(bashTool.schema.safeParse({ command: "ls", timeout_ms: 1.5 }).success, false);
  assert.equal(bashTool.schema.safeParse({ command: "ls", timeout_ms: 10 }).success, true);
});

Deno.test("bash runs in the workspace and returns its output", async () => {
  await withTempDir(async (dir) => {
    const r = await bashTool.run({ command: "pwd; echo hello" }, context(dir));
    assert.deepEqual(r, { success: true, output: `${dir}\nhello\n`, truncated: false });
  });
});

Deno.test("bash interleaves stdout and stderr in arrival order", async () => {
  await withTempDir(async (dir) => {
    const command = "echo one; sleep 0.2; echo two >&2; sleep 0.2; echo three; sleep 0.2; " +
      "echo four >&2";
    const r = await bashTool.run({ command }, context(dir));
    assert.equal(r.success, true);
    assert.equal(r.output, "one\ntwo\nthree\nfour\n");
  });
});

Deno.test("bash reports a non-zero exit code as a failure with the code", async () => {
  await withTempDir(async (dir) => {
    const r = await bashTool.run({ command: "echo oops >&2; exit 2" }, context(dir));
    assert.equal(r.success, false);
    assert.equal(r.output, "oops\n[exit code 2]");
  });
});

Deno.test("bash says when a command succeeded without output", async () => {
  await withTempDir(async (dir) => {
    const r = await bashTool.run({ command: "true" }, context(dir));
    assert.deepEqual(r, { success: true, output: "(no output)", truncated: false });
  });
});

Deno.test("bash kills a command that exceeds timeout_ms", async () => {
  await withTempDir(async (dir) => {
    const t0 = performance.now();
    const r = await bashTool.run(
      { command: `echo started; sleep 30 & echo PID=$! > pid; wait`, timeout_ms: 300 },
      context(dir),
    );
    const elapsed = performance.now() - t0;
    assert.equal(r.success, false);
    assert.equal(r.output, "started\n[Command timed out after 300 ms and was killed]");
    assert.ok(elapsed < 2500, `took ${elapsed} ms`);
    const [pid] = pidsOf(await Deno.readTextFile(`${dir}/pid`));
    assert.ok(pid !== undefined && await gone(pid), "the sleep survived the timeout");
  });
});

Deno.test("bash timeout_ms cannot exceed the server's tool timeout", async () => {
  await withTempDir(async (dir) => {
    const t0 = performance.now();
    const r = await bashTool.run(
      { command: "sleep 30", timeout_ms: 60_000 },
      context(dir, { timeoutMs: 300 }),
    );
    assert.equal(r.success, false);
    assert.match(r.output, /timed out after 300 ms/);
    assert.ok(performance.now() - t0 < 2500);
  });
});

Deno.test("bash cancellation kills the command and returns promptly", async () => {
  await withTempDir(async (dir) => {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), 300);
    const t0 = performance.now();
    const r = await bashTool.run(
      { command: "sleep 30 & echo PID=$! > pid; wait" },
      context(dir, {}, { signal: controller.signal }),
    );
    clearTimeout(timer);
    const elapsed = performance.now() - t0;
    assert.equal(r.success, false);
    assert.equal(r.output, "[Command was cancelled]");
    assert.ok(elapsed < 1500, `cancellation took ${elapsed} ms`);
    const [pid] = pidsOf(await Deno.readTextFile(`${dir}/pid`));
    assert.ok(pid !== undefined && await gone(pid), "the sleep survived cancellation");
  });
});

Deno.test("bash with an already aborted signal runs nothing", async () => {
  await withTempDir(async (dir) => {
    const controller = new AbortController();
    controller.abort();
    const r = await bashTool.run(
      { command: "touch ran" },
      context(dir, {}, { signal: controller.signal }),
    );
    assert.equal(r.success, false);
    assert.equal(r.output, "[Command was cancelled]");
    await assert.rejects(Deno.stat(`${dir}/ran`), Deno.errors.NotFound);
  });
});

for (
  const [name, command] of [
    ["sleep 100 &", "sleep 100 & echo PID=$!"],
    ["nohup sleep 100 &", "nohup sleep 100 >/dev/null 2>&1 & echo PID=$!"],
    ["(sleep 100 &)", "(sleep 100 & echo PID=$!)"],
    ["a background child with its output redirected", "sleep 100 >/dev/null 2>&1 & echo PID=$!"],
  ] as const
) {
  Deno.test(`bash leaves no grandchild alive: ${name}`, async () => {
    await withTempDir(async (dir) => {
      const t0 = performance.now();
      const r = await bashTool.run({ command }, context(dir));
      assert.ok(performance.now() - t0 < 3000, "the call waited for the background child");
      assert.equal(r.success, true, r.output);
      const [pid] = pidsOf(r.output);
      assert.ok(pid !== undefined, r.output);
      assert.ok(await gone(pid), `process ${pid} outlived the call`);
    });
  });
}

Deno.test("bash keeps the head and tail of a flood within the output limit", async () => {
  await withTempDir(async (dir) => {
    const r = await bashTool.run(
      { command: "echo START; yes | head -c 100000000; echo END" },
      context(dir, { maxOutputBytes: 1000 }),
    );
    assert.equal(r.success, true);
    assert.equal(r.truncated, true);
    assert.ok(r.output.startsWith("START\ny\n"), r.output.slice(0, 20));
    assert.ok(r.output.endsWith("y\nEND\n"), r.output.slice(-20));
    assert.match(r.output, /\n\[\.\.\. \d+ bytes omitted \.\.\.\]\n/);
    assert.ok(new TextEncoder().encode(r.output).length <= 1000);
  });
});

Deno.test("bash keeps the exit code visible when the output is truncated", async () => {
  await withTempDir(async (dir) => {
    const r = await bashTool.run(
      { command: "seq 1 100000; exit 3" },
      context(dir, { maxOutputBytes: 500 }),
    );
    assert.equal(r.success, false);
    assert.equal(r.truncated, true);
    assert.ok(r.output.endsWith("100000\n[exit code 3]"), r.output.slice(-40));
    assert.ok(new TextEncoder().encode(r.output).length <= 500);
  });
});

Deno.test("bash replaces invalid UTF-8 in the output", async () => {
  await withTempDir(async (dir) => {
    const r = await bashTool.run({ command: String.raw`printf 'ok \xff\xfe end\n'` }, context(dir));
    assert.equal(r.success, true);
    assert.equal(r.output, "ok \uFFFD\uFFFD end\n");
  });
});

Deno.test("bash hides the secret environment variables from the command", async () => {
  await withTempDir(async (dir) => {
    Deno.env.set("SCV_TEST_PROVIDER_KEY", "sekrit-value-123");
    Deno.env.set("SCV_TEST_PLAIN_VAR", "plain-value-456");
    try {
      const r = await createBashTool({ passthrough: ["SCV_TEST_*"] }).run(
        { command: "env" },
        context(dir, {}, { secretEnv: ["SCV_TEST_PROVIDER_KEY"] }),
      );
      assert.equal(r.success, true);
      assert.ok(!r.output.includes("sekrit-value-123"), "the secret reached the command");
      assert.ok(!r.output.includes("SCV_TEST_PROVIDER_KEY"));
      assert.ok(r.output.includes("SCV_TEST_PLAIN_VAR=plain-value-456"));
    } finally {
      Deno.env.delete("SCV_TEST_PROVIDER_KEY");
      Deno.env.delete("SCV_TEST_PLAIN_VAR");
    }
  });
});

Deno.test("bash starts from a clean environment: a variable outside the core set is not passed", async () => {
  await withTempDir(async (dir) => {
    Deno.env.set("SCV_TEST_UNLISTED", "unlisted-value");
    try {
      const r = await bashTool.run({ command: "env" }, context(dir));
      assert.equal(r.success, true);
      assert.ok(r.output.includes("PATH="), r.output);
      assert.ok(/^SCV_BASH_CALL=/m.test(r.output), r.output);
      assert.ok(!r.output.includes("unlisted-value"), r.output);
    } finally {
      Deno.env.delete("SCV_TEST_UNLISTED");
    }
  });
});

Deno.test("bash does not pass on INIT_CWD, so a deno task it runs stays in its own directory", async () => {
  await withTempDir(async (dir) => {
    const before = Deno.env.get("INIT_CWD");
    Deno.env.set("INIT_CWD", "/somewhere/scv/started");
    try {
      const r = await bashTool.run({ command: 'echo "${INIT_CWD-unset}"' }, context(dir));
      assert.deepEqual(r, { success: true, output: "unset\n", truncated: false });
    } finally {
      if (before === undefined) Deno.env.delete("INIT_CWD");
      else Deno.env.set("INIT_CWD", before);
    }
  });
});

Deno.test("bash fails clearly when the workspace does not exist", async () => {
  await withTempDir(async (dir) => {
    const r = await bashTool.run({ command: "true" }, context(`${dir}/missing`));
    assert.equal(r.success, false);
    assert.equal(
      r.output,
      `Cannot run the command: the workspace "${dir}/missing" is not accessible`,
    );
  });
});

Deno.test("bash without --allow-run names the missing permission", async () => {
  await withTempDir(async (dir) => {
    const r = await runToolInChild(
      "server/tools/bash.ts",
      "bashTool",
      { command: "echo hi" },
      dir,
      [
        "--allow-read",
        "--allow-env",
      ],
    );
    assert.deepEqual(r, {
      success: false,
      output:
        "Permission denied: scv was started without --allow-run=bash, so the bash tool cannot run commands",
      truncated: false,
    });
  });
});

Deno.test("bash interleaves stdout and stderr written back to back", async () => {
  await withTempDir(async (dir) => {
    const command = "for i in 1 2 3; do echo o$i; echo e$i >&2; done";
    const r = await bashTool.run({ command }, context(dir));
    assert.equal(r.success, true);
    assert.equal(r.output, "o1\ne1\no2\ne2\no3\ne3\n");
  });
});

/** Reads the PID=... lines the command wrote to `files` in `dir`. */
async function pidsIn(dir: string, files: string[]): Promise<number[]> {
  const pids: number[] = [];
  for (const f of files) pids.push(...pidsOf(await Deno.readTextFile(`${dir}/${f}`)));
  return pids;
}

for (
  const [name, command, files] of [
    ["a job in its own group (set -m)", "set -m; sleep 3007 & echo PID=$! > p1", ["p1"]],
    ["a setsid child", "setsid sleep 3008 & echo PID=$! > p1; sleep 0.2", ["p1"]],
    [
      "a double-forked setsid child whose parent exited",
      "set -m; setsid bash -c 'echo PID=$$ > p1; exec sleep 3009' & sleep 0.2",
      ["p1"],
    ],
  ] as const
) {
  Deno.test(`bash leaves no process alive that left the group: ${name}`, async () => {
    await withTempDir(async (dir) => {
      const r = await bashTool.run({ command }, context(dir));
      assert.equal(r.success, true, r.output);
      const pids = await pidsIn(dir, [...files]);
      assert.equal(pids.length, files.length);
      for (const pid of pids) assert.ok(await gone(pid), `process ${pid} outlived the call`);
    });
  });
}

Deno.test("bash cancellation kills processes in other groups and sessions too", async () => {
  await withTempDir(async (dir) => {
    const controller = new AbortController();
    const command = "set -m; sleep 3010 & echo PID=$! > p1; " +
      "setsid bash -c 'echo PID=$$ > p2; exec sleep 3011' & " +
      "(setsid sleep 3012 & echo PID=$! > p3); sleep 30";
    const timer = setTimeout(() => controller.abort(), 500);
    const t0 = performance.now();
    const r = await bashTool.run({ command }, context(dir, {}, { signal: controller.signal }));
    clearTimeout(timer);
    // Job control may report the setsid job as done first.
    assert.ok(r.output.endsWith("[Command was cancelled]"), r.output);
    assert.equal(r.success, false);
    assert.ok(performance.now() - t0 < 2000);
    const pids = await pidsIn(dir, ["p1", "p2", "p3"]);
    assert.equal(pids.length, 3);
    for (const pid of pids) assert.ok(await gone(pid), `process ${pid} outlived cancellation`);
  });
});

Deno.test("bash treats a timeout past the longest timer as no sooner limit", async () => {
  await withTempDir(async (dir) => {
    // A timer over 2^31-1 ms would fire at once and kill the command.
    const r = await bashTool.run(
      { command: "sleep 0.3; echo finished" },
      context(dir, { timeoutMs: 2 ** 32 }),
    );
    assert.deepEqual(r, { success: true, output: "finished\n", truncated: false });
  });
});

Deno.test("bash stopped by the call's time limit reports a timeout, not a cancellation", async () => {
  await withTempDir(async (dir) => {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new ToolTimeoutError("bash", 300)), 300);
    const r = await bashTool.run(
      { command: "echo started; sleep 30" },
      context(dir, { timeoutMs: 300 }, { signal: controller.signal }),
    );
    clearTimeout(timer);
    assert.equal(r.success, false);
    assert.equal(r.output, "started\n[Command timed out after 300 ms and was killed]");
  });
});
