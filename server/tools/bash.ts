/**
 * The `bash` tool: runs `bash -c COMMAND` in the workspace, in a process group of its own, and
 * makes sure no process of that group outlives the call.
 *
 * Environment: the child gets scv's environment minus exactly the variables named in
 * `ToolContext.secretEnv` (the provider's API key). Other variables that look like credentials
 * (`GITHUB_TOKEN`, `NPM_TOKEN`) are passed on: commands the user approves may need them, and a
 * name pattern would both miss keys and break tools.
 *
 * Limits: a process that leaves the group on purpose (`setsid`, `set -m` job control) is out
 * of reach; its pipes are abandoned after a short grace period so the call still ends.
 *
 * @module
 */
import { z } from "zod";
import { defineTool, type ToolContext, type ToolResult } from "./tool.ts";
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

/**
 * Kills every process of the group `pgid` (bash's pid, as `detached: true` makes it a group
 * leader). Never throws: a group that is already gone is the goal.
 */
async function killGroup(pgid: number): Promise<void> {
  try {
    Deno.kill(-pgid, "SIGKILL");
    return;
  } catch (err) {
    if (!(err instanceof Deno.errors.NotCapable)) return;
  }
  // `--allow-run=bash` allows spawning bash but not `Deno.kill`; bash's kill builtin is the same.
  try {
    await new Deno.Command("bash", {
      args: ["-c", 'kill -KILL -- "-$1" 2>/dev/null; exit 0', "scv-kill", String(pgid)],
      stdin: "null",
      stdout: "null",
      stderr: "null",
      clearEnv: true,
    }).output();
  } catch {
    // Nothing left to try; the caller still ends the call.
  }
}

/** scv's environment without the secret variables. */
function childEnv(secretEnv: readonly string[]): Record<string, string> {
  const env = Deno.env.toObject();
  for (const name of secretEnv) delete env[name];
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
  return `Cannot run the command: ${err instanceof Error ? err.message : String(err)}`;
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
  if (ctx.signal.aborted) return failed("[Command was cancelled]");
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
    return failed(`Cannot run the command: ${err instanceof Error ? err.message : String(err)}`);
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

  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command("bash", {
      args: ["-c", args.command],
      cwd: ctx.cwd,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      detached: true,
      env,
      clearEnv: true,
    }).spawn();
  } catch (err) {
    return failed(spawnError(err));
  }

  const timeoutMs = Math.min(args.timeout_ms ?? ctx.limits.timeoutMs, ctx.limits.timeoutMs);
  const out = new OutputBuffer(ctx.limits.maxOutputBytes);
  const readers = [child.stdout.getReader(), child.stderr.getReader()];
  const pumps = Promise.all(readers.map((r) => pump(r, out)));
  const kills: Promise<void>[] = [];
  let ending: "timeout" | "cancelled" | undefined;
  const stop = (why: "timeout" | "cancelled") => {
    if (ending !== undefined) return;
    ending = why;
    kills.push(killGroup(child.pid));
  };
  const timer = setTimeout(() => stop("timeout"), timeoutMs);
  const onAbort = () => stop("cancelled");
  ctx.signal.addEventListener("abort", onAbort, { once: true });

  let status: Deno.CommandStatus;
  try {
    status = await child.status;
  } finally {
    clearTimeout(timer);
    ctx.signal.removeEventListener("abort", onAbort);
  }
  // Background children (`sleep 100 &`) hold the pipes open and must not outlive the call.
  kills.push(killGroup(child.pid));
  await Promise.all(kills);
  const grace = delay(PIPE_GRACE_MS);
  const drained = await Promise.race([pumps.then(() => true), grace.done.then(() => false)]);
  grace.cancel();
  if (!drained) {
    await Promise.all(readers.map((r) => r.cancel().catch(() => {})));
    await pumps;
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
