/**
 * The launcher a bash call's proposal starts ahead (Sandbox.warm with a workspace,
 * server/sandbox/limits.ts STANDBY_LAUNCHER): it makes and joins the call's pids cgroup while
 * the call is made ready, then takes the call, in that cgroup, with exactly the call's
 * environment; one not taken runs nothing and leaves no process or cgroup once the sandbox
 * closes. Real bwrap and cgroups, where a pids cgroup can be made.
 *
 * @module
 */
import assert from "node:assert/strict";
import { DEFAULT_CONFIG } from "../../../server/config.ts";
import { openSandbox } from "../../../server/sandbox/mod.ts";
import { standbyInput } from "../../../server/sandbox/limits.ts";
import { hostDir, SANDBOX_WORKS } from "./support.ts";

const LIMITS = { memory_mb: 256, processes: 32, file_size_mb: 1, cpu_seconds: null };
const config = { ...DEFAULT_CONFIG, sandbox_limits: LIMITS };
const report = SANDBOX_WORKS ? await (await openSandbox(config)).limitsReport() : "";
const CGROUPS = report.includes("pids cgroup");

/** What a shell finds under the pids hierarchy for scv `pid` (Deno may not read /sys). */
async function sh(script: string): Promise<string> {
  const out = await new Deno.Command("sh", { args: ["-c", script], stdout: "piped" }).output();
  return new TextDecoder().decode(out.stdout).trim();
}
const cgroupsOf = (pid: number) =>
  sh(`ls -d /sys/fs/cgroup/pids/scv-${pid}-* /sys/fs/cgroup/scv-${pid}-* 2>/dev/null`);
/** How many launchers of this scv run (ps: Deno may not read /proc). */
async function launchers(): Promise<number> {
  const out = await new Deno.Command("ps", { args: ["-eo", "args"], stdout: "piped" }).output();
  return new TextDecoder().decode(out.stdout).split("\n")
    .filter((l) => l.includes("scv-limits") && new RegExp(` ${Deno.pid}( |$)`).test(l)).length;
}

Deno.test({
  name:
    "a launcher started ahead takes the call in its own pids cgroup, with only the call's environment",
  ignore: !SANDBOX_WORKS || !CGROUPS,
  fn: async () => {
    const ws = await hostDir("scv-standby-");
    const sandbox = await openSandbox(config);
    try {
      sandbox.warm(ws);
      const prepared = await sandbox.prepare(ws, [
        "bash",
        "-c",
        'echo "[$SCV_STANDBY_TEST] [${HOME-unset}]"; sleep 1',
      ]);
      assert.equal(prepared.kind, "sandboxed");
      if (prepared.kind !== "sandboxed") return;
      assert.ok(prepared.standby, "the call found its launcher ready");
      assert.ok(
        await prepared.standby.start({ PATH: "/usr/bin:/bin", SCV_STANDBY_TEST: "a b" }),
      );
      // While it runs, its processes are in a pids cgroup of this scv's.
      const held = await sh(
        `sleep 0.3; cat /sys/fs/cgroup/pids/scv-${Deno.pid}-*/cgroup.procs 2>/dev/null | wc -l`,
      );
      assert.ok(Number(held) >= 2, `processes in the call's cgroup: ${held}`);
      const out = await prepared.standby.child.output();
      const text = new TextDecoder().decode(out.stdout);
      assert.equal(out.code, 0, text + new TextDecoder().decode(out.stderr));
      assert.match(text, /^\[a b\] \[unset\]$/m, "exactly the call's environment");
      await prepared.cleanup?.(false);
    } finally {
      await sandbox.close();
      await Deno.remove(ws, { recursive: true });
    }
    assert.equal(await cgroupsOf(Deno.pid), "", "no cgroup left once closed");
    assert.equal(await launchers(), 0);
  },
});

Deno.test({
  name:
    "a launcher started ahead that takes no call runs nothing and is gone once the sandbox closes",
  ignore: !SANDBOX_WORKS || !CGROUPS,
  fn: async () => {
    const ws = await hostDir("scv-standby-");
    const sandbox = await openSandbox(config);
    try {
      sandbox.warm(ws);
      sandbox.warm(ws); // one launcher per workspace
      assert.equal(await launchers(), 1);
      await Deno.writeTextFile(`${ws}/marker`, "");
    } finally {
      await sandbox.close();
    }
    assert.equal(await launchers(), 0, "the launcher ended");
    assert.equal(await cgroupsOf(Deno.pid), "", "and its cgroup is gone");
    assert.deepEqual([...Deno.readDirSync(ws)].map((e) => e.name), ["marker"]);
    await Deno.remove(ws, { recursive: true });
  },
});

Deno.test("the call a launcher reads is counted and NUL-ended, and what NUL cannot end is refused", () => {
  const text = new TextDecoder().decode(standbyInput({ A: "x\ny", B: "" }, ["bwrap", "a b"]));
  assert.equal(text, "2\0A=x\ny\0B=\0bwrap\0a b\0");
  assert.throws(() => standbyInput({ "A=B": "1" }, ["true"]), /cannot take/);
  assert.throws(() => standbyInput({ A: "1\0" }, ["true"]), /cannot take/);
  assert.throws(() => standbyInput({}, ["tr\0ue"]), /NUL/);
  assert.throws(() => standbyInput({}, []), /no command/);
});
