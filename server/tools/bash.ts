/**
 * The `bash` tool: runs `bash -c COMMAND` in the workspace, inside the OS sandbox when it is on
 * (see server/sandbox/), and makes sure no process of the call outlives it.
 *
 * Environment: a clean one (see bash_env.ts): the core set, `shell_env_passthrough` and
 * `SCV_BASH_CALL`, a fresh identifier per call by which the call's processes are found again.
 * Never the provider's key unless it is named exactly in `shell_env_passthrough`.
 *
 * Output: stdout and stderr share one pipe (`2>&1`), so they interleave as they were written.
 *
 * Ending a sandboxed call: the command runs in a PID namespace of its own, so when bwrap is
 * killed (or the command's first process exits) the kernel kills every process in it, a
 * double-forked `setsid` child with an empty environment included.
 *
 * Ending an unsandboxed call: when the command exits, is cancelled or times out, every process
 * that belongs to the call is stopped and then killed: bash's process group, its session (`set
 * -m` puts jobs in groups of their own but not in a new session), every descendant of those,
 * and every process still carrying the call's `SCV_BASH_CALL` in its environment (which finds
 * `setsid` children, even re-parented ones). This scan reads `/proc` (Linux); elsewhere only
 * the process group and its descendants are reached. A process that both leaves the session
 * and drops the variable (`env -i`) once its parent has exited is out of reach there, as is
 * anything started through another service (`systemd-run`, `at`, a container daemon). Pipes
 * such a process holds open are abandoned after a short grace period so the call ends.
 *
 * @module
 */
import { errorText } from "../error_text.ts";
import * as z from "zod";
import {
  defineTool,
  stopMessage,
  type ToolContext,
  type ToolResult,
  ToolTimeoutError,
} from "./tool.ts";
import { OutputBuffer } from "./output.ts";
import { missingPermission } from "./permission.ts";
import { callEnv } from "./bash_env.ts";
import { scvPath, SYSTEM_PATH } from "../core_env.ts";
import type { PreparedCommand, Sandbox } from "../sandbox/mod.ts";
import type { SandboxSpec } from "../sandbox/types.ts";
import { denialHint } from "../sandbox/hint.ts";
import { limitHint } from "../sandbox/limits.ts";
import type { Refusal } from "../sandbox/net/proxy.ts";
import { isInside } from "./workspace.ts";
import { bashDescription } from "./bash_facts.ts";
import { after, within } from "../timer.ts";

/** How long to keep reading pipes after the group was killed, for a process that escaped it. */
const PIPE_GRACE_MS = 500;

const encoder = new TextEncoder();

const schema = z.object({
  command: z.string().min(1).describe("The shell command, run with `bash -c` in the workspace"),
  timeout_ms: z.number().int().positive().optional().describe(
    "Kill the command after this many milliseconds (capped by the server's tool timeout)",
  ),
});

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

/**
 * Kills every process of the call whose bash has pid `root` (see `KILL_SCRIPT`). Never throws:
 * processes that are already gone are the goal.
 */
async function killCall(
  root: number,
  marker: string,
  via?: (argv: string[]) => { command: string; args: string[] },
): Promise<void> {
  // `--allow-run=bash` allows spawning bash but not `Deno.kill`, so the work is done in bash;
  // under `--allow-run=bwrap` alone, in bash started through the sandbox's host-view helper.
  const argv = ["bash", "-c", KILL_SCRIPT, "scv-kill", String(root), marker];
  const direct = Deno.permissions.querySync({ name: "run", command: "bash" }).state === "granted";
  const { command, args } = direct || !via ? { command: "bash", args: argv.slice(1) } : via(argv);
  try {
    await new Deno.Command(command, {
      args,
      cwd: "/",
      stdin: "null",
      stdout: "null",
      stderr: "null",
      env: { PATH: scvPath(SYSTEM_PATH) },
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

function failed(output: string): ToolResult {
  return { success: false, output, truncated: false };
}

function spawnError(err: unknown, command = "bash"): string {
  if (err instanceof Deno.errors.NotCapable) {
    return missingPermission(`--allow-run=${command}`, "the bash tool cannot run commands");
  }
  if (err instanceof Deno.errors.NotFound) {
    return `Cannot run the command: no "${command}" executable was found on PATH`;
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

/** What a bash tool runs with beyond each call's context. */
export interface BashOptions {
  /**
   * The OS sandbox; without one, commands run directly (as under `"sandbox": "off"`). Set by
   * scv's server from the config: not part of the library API.
   *
   * @ignore
   */
  sandbox?: Sandbox | undefined;
  /** `shell_env_passthrough`. */
  passthrough?: readonly string[] | undefined;
}

/** The command line bash runs under: one pipe for both streams; `exec` keeps bash's pid. */
function bashArgv(command: string): string[] {
  return ["bash", "-c", 'exec bash -c "$1" 2>&1', "bash", command];
}

async function run(
  args: z.infer<typeof schema>,
  ctx: ToolContext,
  options: BashOptions,
): Promise<ToolResult> {
  if (ctx.signal.aborted) return failed(stopMessage(ctx.signal, "[Command was cancelled]"));
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
  const argv = bashArgv(args.command);
  let spec: SandboxSpec | undefined;
  let command = "bash";
  let commandArgs = argv.slice(1);
  let cleanup: ((killed: boolean) => Promise<void>) | undefined;
  let standby: NonNullable<Extract<PreparedCommand, { kind: "sandboxed" }>["standby"]> | undefined;
  const prepared = options.sandbox
    ? await options.sandbox.prepare(ctx.cwd, argv)
    : { kind: "direct" as const };
  if (prepared.kind === "refused") return failed(prepared.message);
  if (prepared.kind === "sandboxed") {
    spec = prepared.spec;
    command = prepared.command;
    commandArgs = prepared.args;
    cleanup = prepared.cleanup;
    standby = prepared.standby;
  } else if (Deno.permissions.querySync({ name: "run", command: "bash" }).state !== "granted") {
    // Asked first, so that a server without --allow-run says so rather than a lesser problem.
    return failed(spawnError(new Deno.errors.NotCapable()));
  }
  if (ctx.signal.aborted) return failed(stopMessage(ctx.signal, "[Command was cancelled]"));

  const env = callEnv({ passthrough: options.passthrough ?? [], secrets: ctx.secretEnv });
  // A TMPDIR the sandbox does not let the command write (or hides under its private /tmp)
  // would break every mktemp; the private /tmp is what it may use.
  if (spec && env.TMPDIR !== undefined && !spec.writable.some((w) => isInside(w, env.TMPDIR!))) {
    env.TMPDIR = "/tmp";
  }
  const marker = `${CALL_MARKER}=${crypto.randomUUID()}`;
  env[CALL_MARKER] = marker.slice(CALL_MARKER.length + 1);
  let child: Deno.ChildProcess;
  try {
    // A launcher started ahead (Sandbox.warm) is in the call's cgroup already: it takes the call.
    if (standby && await standby.start(env)) child = standby.child;
    else {
      child = new Deno.Command(command, {
        args: commandArgs,
        cwd: ctx.cwd,
        stdin: "null",
        stdout: "piped",
        // bwrap's own complaints; bash's stderr is folded into stdout by bashArgv.
        stderr: "piped",
        detached: true,
        env,
        clearEnv: true,
      }).spawn();
    }
  } catch (err) {
    return failed(spawnError(err, command));
  }

  const startedAt = performance.now();
  const timeoutMs = Math.min(args.timeout_ms ?? ctx.limits.timeoutMs, ctx.limits.timeoutMs);
  const out = new OutputBuffer(ctx.limits.maxOutputBytes);
  const reader = child.stdout.getReader();
  const errReader = child.stderr.getReader();
  const pumped = Promise.all([pump(reader, out), pump(errReader, out)]);
  const end = (): Promise<void> => {
    if (spec === undefined) return killCall(child.pid, marker);
    // The PID namespace ends with bwrap (--die-with-parent): every process of the call goes.
    try {
      child.kill("SIGKILL");
    } catch {
      // Already gone.
    }
    return Promise.resolve();
  };
  const reaper = options.sandbox?.backend.reaper;
  const kills: Promise<void>[] = [];
  let ending: "timeout" | "cancelled" | undefined;
  const stop = (why: "timeout" | "cancelled") => {
    if (ending !== undefined) return;
    ending = why;
    kills.push(end());
  };
  const timer = after(timeoutMs, () => stop("timeout"));
  // The call's time limit may come as the signal's reason rather than from this timer.
  const onAbort = () =>
    stop(ctx.signal.reason instanceof ToolTimeoutError ? "timeout" : "cancelled");
  ctx.signal.addEventListener("abort", onAbort, { once: true });

  let status: Deno.CommandStatus;
  try {
    status = await child.status;
  } finally {
    timer.cancel();
    ctx.signal.removeEventListener("abort", onAbort);
  }
  // Background children (`sleep 100 &`) hold the pipe open and must not outlive the call.
  await Promise.all(kills);
  if (spec === undefined) await killCall(child.pid, marker);
  // bwrap killed while it was still setting up can leave the namespace's first process without
  // its parent-death signal; it still carries the call's marker, so the marker scan ends it.
  else if (ending !== undefined) await killCall(child.pid, marker, reaper);
  // A launcher killed with its call leaves its cgroup behind: removed now, not by a later call.
  await cleanup?.(ending !== undefined || status.signal !== null);
  const drained = await within(pumped, PIPE_GRACE_MS);
  if (!drained) {
    await reader.cancel().catch(() => {});
    await errReader.cancel().catch(() => {});
    await pumped;
  }

  let note: string | undefined;
  if (ending === "timeout") note = `[Command timed out after ${timeoutMs} ms and was killed]`;
  else if (ending === "cancelled") note = "[Command was cancelled]";
  else if (status.signal !== null) note = `[exit code ${status.code}, killed by ${status.signal}]`;
  else if (!status.success) note = `[exit code ${status.code}]`;

  // Each host scv's proxy refused during the call, in one line naming it and the key.
  const refused = spec?.proxy
    ? refusalLines(
      options.sandbox?.refusedSince(startedAt, spec.proxy.token) ?? [],
    )
    : "";
  if (note === undefined) {
    if (refused !== "") {
      const { text, truncated } = out.render(encoder.encode(refused).length + 1);
      const sep = text === "" || text.endsWith("\n") ? "" : "\n";
      return { success: true, output: text + sep + refused, truncated };
    }
    const { text, truncated } = out.render();
    return { success: true, output: text === "" ? "(no output)" : text, truncated };
  }
  // A limit or a sandbox denial is explained in one last line, read from the whole output kept.
  const kept = spec && ending === undefined ? out.render().text : "";
  // bwrap could not set up at all (its own "bwrap: " line, exit 1): a probe remembered from an
  // earlier process no longer holds; the sandbox forgets it (probe_memory.ts).
  if (spec && status.code === 1 && /^bwrap: /m.test(kept)) options.sandbox?.setupFailed();
  const limits = options.sandbox?.settings.limits;
  const hint = spec && ending === undefined && options.sandbox
    ? (limits
      ? limitHint(kept, { code: status.code, signal: status.signal }, limits)
      : undefined) ??
      denialHint(kept, spec, {
        networkAsked: options.sandbox.settings.network,
        scvDirs: options.sandbox.settings.scvDirs,
      })
    : undefined;
  const tail = [note, hint, refused].filter((l) => l !== undefined && l !== "").join("\n");
  const { text, truncated } = out.render(encoder.encode(tail).length + 1);
  const sep = text === "" || text.endsWith("\n") ? "" : "\n";
  return { success: false, output: text + sep + tail, truncated };
}

/** At most five refusals, one line each; the rest counted. */
function refusalLines(refusals: readonly Refusal[]): string {
  const seen = new Map<string, Refusal>();
  for (const r of refusals) seen.set(`${r.host}:${r.port}`, r);
  const list = [...seen.values()];
  const lines = list.slice(0, 5).map((r) =>
    `[sandbox: the connection to ${r.host}:${r.port} was refused (${r.reason}); add it to ` +
    `"sandbox_network" to allow it]`
  );
  if (list.length > 5) lines.push(`[sandbox: ${list.length - 5} more hosts were refused]`);
  return lines.join("\n");
}

/**
 * A `bash` tool of CONTRACT.md running under `options` (the server's sandbox and passthrough).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createBashTool } from "./bash.ts";
 * const tool = createBashTool({ passthrough: ["MY_*"] });
 * assert(tool.summary({ command: "ls" }) === "Run shell command: ls");
 * ```
 */
export function createBashTool(options: BashOptions = {}) {
  const sandboxed = options.sandbox?.active === true;
  return defineTool({
    name: "bash",
    description: bashDescription(options.sandbox),
    schema,
    risk: () => "process",
    summary: (args) => `Run shell command: ${args.command}`,
    sandboxed: () => sandboxed,
    autoApproved: () => sandboxed,
    warm: (cwd) => options.sandbox?.warm(cwd),
    run: (args, ctx) => run(args, ctx, options),
  });
}

/**
 * The `bash` tool of CONTRACT.md without a sandbox: risk `process`, every call shown to the user
 * as the command.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { bashTool } from "./bash.ts";
 * assert(bashTool.summary({ command: "ls" }) === "Run shell command: ls");
 * ```
 */
export const bashTool = createBashTool();
