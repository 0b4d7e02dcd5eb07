/**
 * The `bash` tool: runs `bash -c COMMAND` in the workspace, in a session and process group of
 * its own, and makes sure no process of the call outlives it.
 *
 * Environment: the child gets scv's environment minus exactly the variables named in
 * `ToolContext.secretEnv` (the provider's API key). Other variables that look like credentials
 * (`GITHUB_TOKEN`, `NPM_TOKEN`) are passed on: commands the user approves may need them, and a
 * name pattern would both miss keys and break tools. It also gets `SCV_BASH_CALL`, a fresh
 * identifier per call, by which the call's processes are found again.
 *
 * Output: stdout and stderr share one pipe (`2>&1`), so they interleave as they were written.
 *
 * Ending a call: when the command exits, is cancelled or times out, every process that belongs
 * to the call is stopped and then killed: bash's process group, its session (`set -m` puts
 * jobs in groups of their own but not in a new session), every descendant of those, and every
 * process still carrying the call's `SCV_BASH_CALL` in its environment (which finds `setsid`
 * children, even re-parented ones). This scan reads `/proc` (Linux); elsewhere only the
 * process group and its descendants are reached.
 *
 * Limits: a process that both leaves the session (`setsid`, a double fork) and drops the
 * call's variable from its environment (`env -i`) once its parent has exited is out of reach,
 * as is anything started through another service (`systemd-run`, `at`, a container daemon).
 * Pipes such a process holds open are abandoned after a short grace period so the call ends.
 *
 * @module
 */
import { errorText } from "../error_text.ts";
import { z } from "zod";
import {
  defineTool,
  MAX_TIMER_MS,
  stopMessage,
  type ToolContext,
  type ToolResult,
  ToolTimeoutError,
} from "./tool.ts";
import { OutputBuffer } from "./output.ts";
import { missingPermission } from "./permission.ts";

/** How long to keep reading pipes after the group was killed, for a process that escaped it. */
const PIPE_GRACE_MS = 500;

const encoder = new TextEncoder();

const schema = z.object({
  command: z.string().min(1).describe("The shell command, run with `bash -c` in the workspace"),
  timeout_ms: z.number().int().positive().optional().describe(
    "Kill the command after this many milliseconds (capped by the server's tool timeout)",
  ),
});

/** Resolves after `ms`, or at once when `cancel` is called. */
function delay(ms: number): { done: Promise<void>; cancel: () => void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let resolve = () => {};
  const done = new Promise<void>((r) => {
    resolve = r;
    timer = setTimeout(r, ms);
  });
  return {
    done,
    cancel: () => {
      clearTimeout(timer);
      resolve();
    },
  };
}

/** The environment variable that marks every process of one call. */
const CALL_MARKER = "SCV_BASH_CALL";

/**
 * Stops, then kills, every process of the call whose bash has pid `$1` (its session and group
 * id, as `detached: true` makes it a session leader) or that carries `$2` (`NAME=value`) in its
 * environment, with all their descendants. Stopping first keeps a process from forking new
 * children while the list is made; the list is made again until it holds nothing new.
 */
const KILL_SCRIPT = String.raw`
root=$1 marker=$2
victims() {
  if [ -r /proc/self/stat ]; then
    { grep -lsxzF -- "$marker" /proc/[0-9]*/environ; cat /proc/[0-9]*/stat; } 2>/dev/null
  else
    ps -A -o pid= -o ppid= -o pgid= 2>/dev/null
  fi | awk -v root="$root" '
    /^\/proc\// { split($0, f, "/"); seed[f[3]] = 1; next }
    {
      rest = $0
      if (sub(/^[0-9]+ \(.*\) /, "", rest)) { split(rest, f, " "); pp = f[2]; pg = f[3]; sid = f[4] }
      else { pp = $2; pg = $3; sid = "" }
      known[$1] = 1
      kids[pp] = kids[pp] " " $1
      if (pg == root || sid == root) seed[$1] = 1
    }
    END {
      n = 0
      for (p in seed) if (p in known) { take[p] = 1; q[++n] = p }
      for (i = 1; i <= n; i++) {
        m = split(kids[q[i]], c, " ")
        for (j = 1; j <= m; j++) if (!(c[j] in take)) { take[c[j]] = 1; q[++n] = c[j] }
      }
      for (i = 1; i <= n; i++) print q[i]
    }'
}
stopped=" "
for round in 1 2 3 4 5 6 7 8; do
  new=
  for p in $(victims); do
    case $stopped in *" $p "*) ;; *) new="$new $p" ;; esac
  done
  [ -z "$new" ] && break
  kill -STOP $new 2>/dev/null
  stopped="$stopped$new "
done
kill -KILL -- "-$root" 2>/dev/null
[ "$stopped" = " " ] || kill -KILL $stopped 2>/dev/null
exit 0
`;

/** The PATH the kill helper runs with: the user's, else the usual system directories. */
function helperPath(): string {
  try {
    const p = Deno.env.get("PATH");
    if (p) return p;
  } catch {
    // Without --allow-env the fallback does.
  }
  return "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin";
}

/**
 * Kills every process of the call whose bash has pid `root` (see `KILL_SCRIPT`). Never throws:
 * processes that are already gone are the goal.
 */
async function killCall(root: number, marker: string): Promise<void> {
  // `--allow-run=bash` allows spawning bash but not `Deno.kill`, so the work is done in bash.
  try {
    await new Deno.Command("bash", {
      args: ["-c", KILL_SCRIPT, "scv-kill", String(root), marker],
      cwd: "/",
      stdin: "null",
      stdout: "null",
      stderr: "null",
      env: { PATH: helperPath() },
      clearEnv: true,
    }).output();
    return;
  } catch {
    // No bash to run the helper: the group alone, if Deno may signal.
  }
  try {
    Deno.kill(-root, "SIGKILL");
  } catch {
    // Nothing left to try; the caller still ends the call.
  }
}

/** scv's environment without the secret variables. */
function childEnv(secretEnv: readonly string[]): Record<string, string> {
  const env = Deno.env.toObject();
  for (const name of secretEnv) delete env[name];
  // Set by `deno task` (and npm) for the directory scv was started from; a `deno task` the
  // agent runs would go there instead of the directory the command is run in.
  delete env.INIT_CWD;
  return env;
}

function failed(output: string): ToolResult {
  return { success: false, output, truncated: false };
}

function spawnError(err: unknown): string {
  if (err instanceof Deno.errors.NotCapable) {
    return missingPermission("--allow-run=bash", "the bash tool cannot run commands");
  }
  if (err instanceof Deno.errors.NotFound) {
    return `Cannot run the command: no "bash" executable was found on PATH`;
  }
  return `Cannot run the command: ${errorText(err)}`;
}

/** Copies a pipe into `out` until it ends or is cancelled. */
async function pump(reader: ReadableStreamDefaultReader<Uint8Array>, out: OutputBuffer) {
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      out.push(value);
    }
  } catch {
    // A cancelled or broken pipe ends the output; what arrived is kept.
  }
}

async function run(args: z.infer<typeof schema>, ctx: ToolContext): Promise<ToolResult> {
  if (ctx.signal.aborted) return failed(stopMessage(ctx.signal, "[Command was cancelled]"));
  // Asked first, so that a server without --allow-run says so rather than a lesser problem.
  if (Deno.permissions.querySync({ name: "run", command: "bash" }).state !== "granted") {
    return failed(spawnError(new Deno.errors.NotCapable()));
  }
  let env: Record<string, string>;
  try {
    env = childEnv(ctx.secretEnv);
  } catch (err) {
    if (err instanceof Deno.errors.NotCapable) {
      return failed(
        missingPermission("--allow-env", "the bash tool cannot prepare the command's environment"),
      );
    }
    return failed(`Cannot run the command: ${errorText(err)}`);
  }
  try {
    if (!(await Deno.stat(ctx.cwd)).isDirectory) {
      return failed(`Cannot run the command: the workspace "${ctx.cwd}" is not a directory`);
    }
  } catch (err) {
    // Without --allow-read the stat fails but the command itself may still run.
    if (!(err instanceof Deno.errors.NotCapable)) {
      return failed(`Cannot run the command: the workspace "${ctx.cwd}" is not accessible`);
    }
  }

  const marker = `${CALL_MARKER}=${crypto.randomUUID()}`;
  env[CALL_MARKER] = marker.slice(CALL_MARKER.length + 1);
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command("bash", {
      // One pipe for both streams keeps their order; `exec` keeps bash's pid, group and session.
      args: ["-c", 'exec bash -c "$1" 2>&1', "bash", args.command],
      cwd: ctx.cwd,
      stdin: "null",
      stdout: "piped",
      stderr: "null",
      detached: true,
      env,
      clearEnv: true,
    }).spawn();
  } catch (err) {
    return failed(spawnError(err));
  }

  const timeoutMs = Math.min(args.timeout_ms ?? ctx.limits.timeoutMs, ctx.limits.timeoutMs);
  const out = new OutputBuffer(ctx.limits.maxOutputBytes);
  const reader = child.stdout.getReader();
  const pumped = pump(reader, out);
  const kills: Promise<void>[] = [];
  let ending: "timeout" | "cancelled" | undefined;
  const stop = (why: "timeout" | "cancelled") => {
    if (ending !== undefined) return;
    ending = why;
    kills.push(killCall(child.pid, marker));
  };
  const timer = setTimeout(() => stop("timeout"), Math.min(timeoutMs, MAX_TIMER_MS));
  // The call's time limit may come as the signal's reason rather than from this timer.
  const onAbort = () =>
    stop(ctx.signal.reason instanceof ToolTimeoutError ? "timeout" : "cancelled");
  ctx.signal.addEventListener("abort", onAbort, { once: true });

  let status: Deno.CommandStatus;
  try {
    status = await child.status;
  } finally {
    clearTimeout(timer);
    ctx.signal.removeEventListener("abort", onAbort);
  }
  // Background children (`sleep 100 &`) hold the pipe open and must not outlive the call.
  await Promise.all(kills);
  await killCall(child.pid, marker);
  const grace = delay(PIPE_GRACE_MS);
  const drained = await Promise.race([pumped.then(() => true), grace.done.then(() => false)]);
  grace.cancel();
  if (!drained) {
    await reader.cancel().catch(() => {});
    await pumped;
  }

  let note: string | undefined;
  if (ending === "timeout") note = `[Command timed out after ${timeoutMs} ms and was killed]`;
  else if (ending === "cancelled") note = "[Command was cancelled]";
  else if (status.signal !== null) note = `[exit code ${status.code}, killed by ${status.signal}]`;
  else if (!status.success) note = `[exit code ${status.code}]`;

  if (note === undefined) {
    const { text, truncated } = out.render();
    return { success: true, output: text === "" ? "(no output)" : text, truncated };
  }
  const { text, truncated } = out.render(encoder.encode(note).length + 1);
  const sep = text === "" || text.endsWith("\n") ? "" : "\n";
  return { success: false, output: text + sep + note, truncated };
}

/**
 * The `bash` tool of CONTRACT.md: risk `process`, every call shown to the user as the command.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { bashTool } from "./bash.ts";
 * assert(bashTool.summary({ command: "ls" }) === "Run shell command: ls");
 * ```
 */
export const bashTool = defineTool({
  name: "bash",
  description: "Run a shell command with `bash -c` in the workspace directory. stdout and " +
    "stderr are combined; a non-zero exit code fails the call. The command has no stdin and " +
    "is killed, with every process it started, when it times out or the turn is cancelled.",
  schema,
  risk: () => "process",
  summary: (args) => `Run shell command: ${args.command}`,
  run,
});
