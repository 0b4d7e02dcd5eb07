/** The hook runner in-process: stdin, exit codes, bounds, the timeout and the process group. */
import { assert, assertEquals } from "../../support/assert.ts";
import {
  MAX_HOOK_STDERR_BYTES,
  MAX_HOOK_STDOUT_BYTES,
  runHookCommand,
} from "../../../server/hooks/run_command.ts";

const ENV = { PATH: "/usr/local/bin:/usr/bin:/bin" };

async function alive(pid: number): Promise<boolean> {
  const out = await new Deno.Command("ps", { args: ["-o", "pid=", "-p", String(pid)] }).output();
  return new TextDecoder().decode(out.stdout).trim() !== "";
}

Deno.test("a hook reads the event's JSON on stdin and its exit code and output come back", async () => {
  const exit = await runHookCommand({
    command: 'read -r line; echo "got $line"; echo err >&2; exit 3',
    cwd: "/",
    env: ENV,
    input: '{"a":1}',
    timeoutSeconds: 30,
  });
  assertEquals(exit, { kind: "exited", code: 3, stdout: 'got {"a":1}\n', stderr: "err\n" });
});

Deno.test("a hook's stdout and stderr are kept up to their bounds, the rest read and dropped", async () => {
  const exit = await runHookCommand({
    command: "head -c 50000000 /dev/zero | tr '\\0' a; head -c 1000000 /dev/zero | tr '\\0' b >&2",
    cwd: "/",
    env: ENV,
    input: "",
    timeoutSeconds: 60,
  });
  assert(exit.kind === "exited");
  assertEquals(exit.code, 0);
  assertEquals(exit.stdout.length, MAX_HOOK_STDOUT_BYTES);
  assert(exit.stderr.startsWith("b".repeat(MAX_HOOK_STDERR_BYTES)));
  assert(exit.stderr.endsWith("[stderr cut]"));
});

Deno.test("a hook past its timeout is killed with the children of its process group", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const running = runHookCommand({
      command: `sleep 300 & echo $! > ${dir}/pid; sleep 300`,
      cwd: "/",
      env: ENV,
      input: "",
      timeoutSeconds: 1,
    });
    let pid = 0;
    while (pid === 0) {
      pid = Number((await Deno.readTextFile(`${dir}/pid`).catch(() => "")).trim()) || 0;
      if (pid === 0) await new Promise((r) => setTimeout(r, 20));
    }
    assert(await alive(pid), "the child did not start");
    assertEquals(await running, { kind: "timeout", seconds: 1, stderr: "" });
    let gone = false;
    for (let i = 0; i < 100 && !gone; i++) {
      gone = !(await alive(pid));
      if (!gone) await new Promise((r) => setTimeout(r, 50));
    }
    assert(gone, `the hook's child ${pid} outlived it`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a hook that exits leaves no background child running", async () => {
  const exit = await runHookCommand({
    command: "sleep 300 & echo $!",
    cwd: "/",
    env: ENV,
    input: "",
    timeoutSeconds: 30,
  });
  assert(exit.kind === "exited");
  const pid = Number(exit.stdout.trim());
  assert(pid > 0);
  let gone = false;
  for (let i = 0; i < 100 && !gone; i++) {
    gone = !(await alive(pid));
    if (!gone) await new Promise((r) => setTimeout(r, 50));
  }
  assert(gone, `the background child ${pid} outlived the hook`);
});

Deno.test("a cancelled hook is killed and reported as failed", async () => {
  const stop = new AbortController();
  const running = runHookCommand({
    command: "sleep 300",
    cwd: "/",
    env: ENV,
    input: "",
    timeoutSeconds: 300,
    signal: stop.signal,
  });
  stop.abort();
  assertEquals(await running, { kind: "failed", message: "cancelled" });
});
