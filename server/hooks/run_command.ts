/**
 * Runs one command hook: `bash -c COMMAND` in the workspace, outside the sandbox, in a process
 * group of its own, with the clean environment it is given, the event's JSON on stdin, its
 * stdout and stderr kept up to a bound (the rest is read and dropped, so a chatty hook never
 * blocks on a full pipe), and its timeout. At the timeout, on cancellation and once the hook
 * has exited, its whole process group is killed, so no child it started outlives it.
 *
 * @module
 */
import { signalGroup } from "../process_group.ts";
import type { HookExit } from "./outcome.ts";
import { after } from "../timer.ts";

/** The most of a hook's stdout kept (its JSON answer must fit). */
export const MAX_HOOK_STDOUT_BYTES = 1024 * 1024;

/** The most of a hook's stderr kept. */
export const MAX_HOOK_STDERR_BYTES = 64 * 1024;

/** How long the pipes are read after the hook exited, for a process that escaped its group. */
const PIPE_GRACE_MS = 500;

/** What one hook run takes. */
export interface HookRun {
  command: string;
  cwd: string;
  env: Record<string, string>;
  /** The event's JSON. */
  input: string;
  timeoutSeconds: number;
  /** Ends the hook early (its group is killed); the result is then `failed`. */
  signal?: AbortSignal | undefined;
}

/** A bounded reader of one pipe: the first `max` bytes as text, and whether more came. */
async function readBounded(
  stream: ReadableStream<Uint8Array>,
  max: number,
  stop: Promise<void>,
): Promise<{ text: string; truncated: boolean }> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let kept = 0;
  let truncated = false;
  const stopped = stop.then(() => "stop" as const);
  try {
    while (true) {
      const next = await Promise.race([reader.read(), stopped]);
      if (next === "stop" || next.done) break;
      const room = max - kept;
      if (room > 0) {
        const piece = next.value.length > room ? next.value.subarray(0, room) : next.value;
        chunks.push(piece.slice());
        kept += piece.length;
      }
      if (next.value.length > room) truncated = true;
    }
  } catch {
    // A pipe that broke ends what can be read from it.
  } finally {
    reader.cancel().catch(() => {});
  }
  const all = new Uint8Array(kept);
  let at = 0;
  for (const c of chunks) {
    all.set(c, at);
    at += c.length;
  }
  return { text: new TextDecoder().decode(all), truncated };
}

/**
 * Runs the hook and resolves with how it ended; never rejects.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { runHookCommand } from "./run_command.ts";
 * const exit = await runHookCommand({
 *   command: "cat; echo oops >&2; exit 2", cwd: "/", env: { PATH: "/usr/bin:/bin" },
 *   input: "{}", timeoutSeconds: 10,
 * });
 * assert.deepEqual(exit, { kind: "exited", code: 2, stdout: "{}", stderr: "oops\n" });
 * ```
 */
export async function runHookCommand(run: HookRun): Promise<HookExit> {
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command("bash", {
      args: ["-c", run.command],
      cwd: run.cwd,
      env: run.env,
      clearEnv: true,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
      detached: true,
    }).spawn();
  } catch (e) {
    const message = e instanceof Deno.errors.NotCapable
      ? "scv may not run bash (start it with --allow-run=bash to use hooks)"
      : (e as Error).message;
    return { kind: "failed", message };
  }
  const pgid = child.pid;
  let ended: "timeout" | "cancelled" | undefined;
  const kill = (why: "timeout" | "cancelled") => {
    ended ??= why;
    void signalGroup(pgid, "SIGKILL");
  };
  const timer = after(run.timeoutSeconds * 1000, () => kill("timeout"));
  const onAbort = () => kill("cancelled");
  run.signal?.addEventListener("abort", onAbort, { once: true });
  if (run.signal?.aborted) onAbort();
  const stop = Promise.withResolvers<void>();
  const out = readBounded(child.stdout, MAX_HOOK_STDOUT_BYTES, stop.promise);
  const err = readBounded(child.stderr, MAX_HOOK_STDERR_BYTES, stop.promise);
  const writing = (async () => {
    const writer = child.stdin.getWriter();
    try {
      await writer.write(new TextEncoder().encode(run.input));
      await writer.close();
    } catch {
      // A hook that does not read its stdin closes it early; that is its right.
    }
  })();
  const status = await child.status;
  timer.cancel();
  run.signal?.removeEventListener("abort", onAbort);
  // What the hook left running in its group goes with it.
  await signalGroup(pgid, "SIGKILL");
  const grace = after(PIPE_GRACE_MS, () => stop.resolve());
  const [stdout, stderr] = await Promise.all([out, err]);
  grace.cancel();
  stop.resolve();
  await writing;
  if (ended === "timeout") {
    return { kind: "timeout", seconds: run.timeoutSeconds, stderr: stderr.text };
  }
  if (ended === "cancelled") return { kind: "failed", message: "cancelled" };
  const code = status.signal !== null ? 128 + signalNumber(status.signal) : status.code;
  return {
    kind: "exited",
    code,
    stdout: stdout.text,
    stderr: stderr.text + (stderr.truncated ? "\n[stderr cut]" : ""),
  };
}

function signalNumber(signal: Deno.Signal): number {
  const numbers: Partial<Record<Deno.Signal, number>> = {
    SIGHUP: 1,
    SIGINT: 2,
    SIGQUIT: 3,
    SIGKILL: 9,
    SIGSEGV: 11,
    SIGPIPE: 13,
    SIGTERM: 15,
  };
  return numbers[signal] ?? 0;
}
