/**
 * Runs one approved tool call under its time limit and the turn's signal, and makes sure the
 * call ends in bounded time even when the tool ignores its signal.
 *
 * @module
 */
import { errorText } from "../error_text.ts";
import { type AnyTool, type ToolLimits, type ToolResult, ToolTimeoutError } from "../tools/tool.ts";
import { CANCELLED_RESULT } from "./turn.ts";
import { after, type Timer } from "../timer.ts";

/** How long a tool may take to stop after its signal aborts before the call is abandoned. */
export const TOOL_STOP_GRACE_MS = 2000;

/** A tool that did not stop within {@link TOOL_STOP_GRACE_MS} of its signal aborting. */
class ToolAbandonedError extends Error {
  constructor(name: string) {
    super(`${name} did not stop within ${TOOL_STOP_GRACE_MS} ms of being told to; abandoned`);
  }
}

/** What one tool run needs besides the tool and its arguments. */
export interface ToolRunOptions {
  /** The session's workspace. */
  cwd: string;
  /** The turn's signal: an abort is a cancellation. */
  signal: AbortSignal;
  /** Output bound and time limit. */
  limits: ToolLimits;
  /** Names of environment variables that must not reach the tool. */
  secretEnv: readonly string[];
  /** The largest image the tool may give; omitted: the provider takes none. */
  maxImageBytes?: number;
  /** The session the call belongs to. */
  sessionId?: string;
}

/**
 * Runs the tool and returns its result; never throws. A cancelled call reports the cancellation
 * (never success), a call past its time limit reports the limit, and a tool's own error becomes
 * a failed result the model can act on.
 */
export async function runTool(
  tool: AnyTool,
  args: unknown,
  options: ToolRunOptions,
): Promise<ToolResult> {
  const { signal, limits } = options;
  const name = tool.name;
  // Every tool gets the time limit, as the abort reason of its signal: a turn cancellation
  // still reads as one, a timeout as a failure that says so.
  const deadline = new AbortController();
  const timer = after(
    limits.timeoutMs,
    () => deadline.abort(new ToolTimeoutError(name, limits.timeoutMs)),
  );
  const runSignal = AbortSignal.any([signal, deadline.signal]);
  // A tool that ignores its signal (an embedder's, say) is abandoned after a grace period, so
  // cancellation and timeouts still end the call in bounded time.
  let graceTimer: Timer | undefined;
  const abandoned = Promise.withResolvers<never>();
  abandoned.promise.catch(() => {});
  const onAbort = () => {
    graceTimer = after(
      TOOL_STOP_GRACE_MS,
      () => abandoned.reject(new ToolAbandonedError(name)),
    );
  };
  runSignal.addEventListener("abort", onAbort, { once: true });
  let result: ToolResult;
  try {
    result = await Promise.race([
      tool.run(args, {
        cwd: options.cwd,
        signal: runSignal,
        limits,
        secretEnv: options.secretEnv,
        ...(options.maxImageBytes === undefined ? {} : { maxImageBytes: options.maxImageBytes }),
        ...(options.sessionId === undefined ? {} : { sessionId: options.sessionId }),
      }),
      abandoned.promise,
    ]);
  } catch (e) {
    result = signal.aborted ? { success: false, output: CANCELLED_RESULT, truncated: false } : {
      success: false,
      output: deadline.signal.aborted
        ? (deadline.signal.reason as ToolTimeoutError).message
        : `Tool ${name} failed: ${errorText(e)}`,
      truncated: false,
    };
  } finally {
    timer.cancel();
    graceTimer?.cancel();
    runSignal.removeEventListener("abort", onAbort);
  }
  if (signal.aborted && result.success) return { ...result, success: false };
  if (deadline.signal.aborted && result.success) {
    // Finished only after its time was up: reported as the failure the limit promises.
    const note = `[${(deadline.signal.reason as ToolTimeoutError).message}]`;
    return { ...result, success: false, output: `${result.output}\n${note}` };
  }
  return result;
}
