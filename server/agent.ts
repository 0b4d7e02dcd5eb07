/**
 * The agent loop of one turn: provider calls up to `max_steps`, each tool call through the
 * approval flow, context fitting before every call, and exactly one terminal event, last.
 * The loop knows nothing about terminals or framing; it emits protocol events to a sink.
 *
 * @module
 */
import { errorText } from "./error_text.ts";
import type { Risk, TurnFailureCode } from "../protocol/schema.ts";
import { FrameTooLargeError } from "../protocol/ndjson.ts";
import type { Config } from "./config.ts";
import type { Session } from "./session.ts";
import {
  type ChatMessage,
  type ChatToolCall,
  type Provider,
  ProviderError,
  type ProviderUsage,
} from "./provider/types.ts";
import type { ToolRegistry } from "./tools/registry.ts";
import { type AnyTool, MAX_TIMER_MS, type ToolResult, ToolTimeoutError } from "./tools/tool.ts";
import { describeIssues } from "../protocol/schema.ts";
import { truncateText } from "./tools/output.ts";
import type { ContextManager } from "./context_manager.ts";

/** Sends one turn event (envelope added by the sink); honours the signal while waiting. */
export type TurnEmit = (
  event: Record<string, unknown> & { type: string },
  signal?: AbortSignal,
) => Promise<void>;

/** Everything a turn runs with. */
export interface TurnDeps {
  config: Config;
  provider: Provider;
  tools: ToolRegistry;
  context: ContextManager;
  systemPrompt: string;
  /** Names of env vars that must not reach tools (the API key's). */
  secretEnv: readonly string[];
  /**
   * Called before every provider call: brings `tools` up to date (MCP servers still starting
   * are waited for, their changed tool lists applied).
   */
  prepareTools?: (signal: AbortSignal) => Promise<void>;
}

/** A failure that ends the turn with `turn.failed`. */
export class TurnFailure extends Error {
  /** The `turn.failed` code. */
  readonly code: TurnFailureCode;
  /** Builds the failure. */
  constructor(code: TurnFailureCode, message: string) {
    super(message);
    this.name = "TurnFailure";
    this.code = code;
  }
}

const CANCELLED_RESULT = "The tool call was cancelled before it finished.";
const DENIED_RESULT =
  "The user denied this tool call. Do not retry it unchanged; ask the user or try another approach.";

/**
 * Runs one turn to its terminal event. Never throws: every outcome is an event.
 */
export async function runTurn(
  session: Session,
  prompt: string,
  signal: AbortSignal,
  emit: TurnEmit,
  deps: TurnDeps,
): Promise<void> {
  const { config } = deps;
  let steps = 0;
  const usage: ProviderUsage = {};
  session.history.push({ role: "user", content: prompt });
  const turn = { start: session.history.length - 1 };
  try {
    // Not interruptible: a turn that was accepted always shows its start before its end.
    await emit({ type: "turn.started" });
    // The history bound applies to the prompt as soon as it is part of the history.
    await deps.context.trim(session, turn, emit, signal);
    while (true) {
      if (steps >= config.max_steps) {
        throw new TurnFailure("step_limit", `agent reached ${config.max_steps} steps`);
      }
      await deps.prepareTools?.(signal);
      const messages = await deps.context.fit(session, turn, deps, emit, signal);
      steps++;
      let response;
      try {
        response = await deps.provider.complete({
          model: config.model,
          messages,
          tools: deps.tools.specs(),
          signal,
          onDelta: async (text) => {
            try {
              await emit({ type: "assistant.delta", content: text }, signal);
            } catch (e) {
              if (e instanceof FrameTooLargeError) {
                throw new TurnFailure(
                  "response_limit",
                  `assistant delta of ${e.bytes} bytes does not fit max_server_frame_bytes (${e.limit})`,
                );
              }
              throw e;
            }
          },
        });
      } catch (e) {
        if (e instanceof ProviderError) throw new TurnFailure(e.code, e.message);
        throw e;
      }
      if (response.usage) {
        const { prompt_tokens, completion_tokens } = response.usage;
        if (prompt_tokens !== undefined) {
          usage.prompt_tokens = (usage.prompt_tokens ?? 0) + prompt_tokens;
          session.usage.input_tokens += prompt_tokens;
          deps.context.calibrate(messages, prompt_tokens);
        }
        if (completion_tokens !== undefined) {
          usage.completion_tokens = (usage.completion_tokens ?? 0) + completion_tokens;
          session.usage.output_tokens += completion_tokens;
        }
      }
      try {
        await emit({ type: "assistant.completed", content: response.content }, signal);
      } catch (e) {
        if (e instanceof FrameTooLargeError) {
          throw new TurnFailure(
            "response_limit",
            `assistant message of ${e.bytes} bytes does not fit max_server_frame_bytes (${e.limit})`,
          );
        }
        throw e;
      }
      const calls = response.toolCalls;
      session.history.push(
        calls.length > 0
          ? { role: "assistant", content: response.content || null, tool_calls: calls }
          : { role: "assistant", content: response.content },
      );
      if (calls.length === 0) {
        // The bound holds between turns too, not only from the next turn's start. The answered
        // turn is history now: it may go like any earlier turn, so this never fails the turn.
        await deps.context.trim(session, { start: session.history.length }, emit, signal);
        break;
      }
      for (const call of calls) {
        signal.throwIfAborted();
        const result = await runToolCall(session, call, signal, emit, deps);
        session.history.push({ role: "tool", tool_call_id: call.id, content: result.output });
      }
      await deps.context.trim(session, turn, emit, signal);
    }
    const done: Record<string, unknown> & { type: string } = { type: "turn.completed", steps };
    // A usage chunk without token counts (only total_tokens, say) reports nothing to sum.
    if (usage.prompt_tokens !== undefined || usage.completion_tokens !== undefined) {
      const u: Record<string, number> = {};
      if (usage.prompt_tokens !== undefined) u.input_tokens = usage.prompt_tokens;
      if (usage.completion_tokens !== undefined) u.output_tokens = usage.completion_tokens;
      done.usage = u;
    }
    await emit(done);
  } catch (e) {
    repairHistory(session.history);
    if (signal.aborted) {
      await emit({ type: "turn.cancelled" }).catch(() => {});
      return;
    }
    const failure = e instanceof TurnFailure ? e : new TurnFailure("internal_error", errorText(e));
    await emitFailure(emit, failure, fieldBudget(config));
  }
}

/** Emits `turn.failed` with its message bounded so the frame always fits. */
async function emitFailure(emit: TurnEmit, failure: TurnFailure, budget: number): Promise<void> {
  try {
    await emit({
      type: "turn.failed",
      code: failure.code,
      message: truncateText(failure.message, budget).text,
    });
  } catch (e) {
    if (!(e instanceof FrameTooLargeError)) return; // the writer is gone: nobody to tell
    await emit({
      type: "turn.failed",
      code: failure.code,
      message: "the failure message did not fit max_server_frame_bytes",
    }).catch(() => {});
  }
}

/** Every tool call in the history gets a result, so the next request stays valid. */
function repairHistory(history: ChatMessage[]): void {
  for (let i = history.length - 1; i >= 0; i--) {
    const m = history[i]!;
    if (m.role !== "assistant") continue;
    if (!m.tool_calls) return;
    const answered = new Set(
      history.slice(i + 1).flatMap((t) => t.role === "tool" ? [t.tool_call_id] : []),
    );
    for (const c of m.tool_calls) {
      if (!answered.has(c.id)) {
        history.push({ role: "tool", tool_call_id: c.id, content: CANCELLED_RESULT });
      }
    }
    return;
  }
}

/** How long a tool may take to stop after its signal aborts before the call is abandoned. */
export const TOOL_STOP_GRACE_MS = 2000;

/** A tool that did not stop within {@link TOOL_STOP_GRACE_MS} of its signal aborting. */
class ToolAbandonedError extends Error {
  constructor(name: string) {
    super(`${name} did not stop within ${TOOL_STOP_GRACE_MS} ms of being told to; abandoned`);
  }
}

/** Risks in increasing order, to tell when a call's risk grew after it was announced. */
const RISK_RANK: Readonly<Record<Risk, number>> = { read: 0, write: 1, process: 2 };

/** Whether a call of this risk asks for approval under the policy. */
export function needsApproval(policy: Config["approval_policy"], risk: string): boolean {
  return policy === "always" || (policy === "on-risk" && risk !== "read");
}

// A frame also carries its envelope; keep a tool's fields well under the frame limit.
function fieldBudget(config: Config): number {
  return Math.max(256, Math.floor((config.max_server_frame_bytes - 512) / 6));
}

function boundedArguments(raw: string, parsed: unknown, budget: number): unknown {
  if (parsed !== undefined && JSON.stringify(parsed).length <= budget) return parsed;
  return truncateText(raw, budget).text;
}

async function runToolCall(
  session: Session,
  call: ChatToolCall,
  signal: AbortSignal,
  emit: TurnEmit,
  deps: TurnDeps,
): Promise<ToolResult> {
  const { config } = deps;
  const name = call.function.name;
  const raw = call.function.arguments;
  const budget = fieldBudget(config);
  let parsed: unknown;
  let jsonError: string | undefined;
  try {
    parsed = raw.trim() === "" ? {} : JSON.parse(raw);
  } catch (e) {
    jsonError = errorText(e);
  }
  await emit({
    type: "tool.proposed",
    call_id: call.id,
    name,
    arguments: boundedArguments(raw, parsed, budget),
  }, signal);
  const complete = async (result: ToolResult): Promise<ToolResult> => {
    const cap = Math.min(config.max_tool_output_bytes, budget);
    const capped = truncateText(result.output, cap);
    const final = {
      success: result.success,
      output: capped.text,
      truncated: result.truncated || capped.truncated,
    };
    // The cancelled call's completion is still reported, so it is not interruptible.
    await emit({ type: "tool.completed", call_id: call.id, name, ...final });
    return final;
  };
  const tool: AnyTool | undefined = deps.tools.get(name);
  if (!tool) {
    const known = deps.tools.list().map((t) => t.name).join(", ") || "none";
    return await complete({
      success: false,
      output: `Unknown tool "${name}". Available tools: ${known}.`,
      truncated: false,
    });
  }
  if (jsonError !== undefined) {
    return await complete({
      success: false,
      output: `Invalid arguments for ${name}: not valid JSON (${jsonError}). Send a JSON object.`,
      truncated: false,
    });
  }
  const check = tool.schema.safeParse(parsed);
  if (!check.success) {
    return await complete({
      success: false,
      output: `Invalid arguments for ${name}: ${describeIssues(check.error, "arguments")}`,
      truncated: false,
    });
  }
  const args = check.data;
  let risk;
  let summary;
  try {
    risk = await tool.risk(args, { cwd: session.cwd });
    summary = tool.summary(args);
  } catch (e) {
    return await complete({
      success: false,
      output: `Tool ${name} failed: ${errorText(e)}`,
      truncated: false,
    });
  }
  if (needsApproval(config.approval_policy, risk)) {
    const approvalId = crypto.randomUUID();
    const approval = session.waitForApproval(approvalId, signal);
    approval.catch(() => {}); // observed below; avoid an unhandled rejection on early abort
    await emit({
      type: "approval.requested",
      approval_id: approvalId,
      call_id: call.id,
      name,
      risk,
      cwd: session.cwd,
      summary: truncateText(summary, Math.min(budget, 64 * 1024)).text,
    }, signal);
    const approved = await approval;
    if (!approved) {
      return await complete({ success: false, output: DENIED_RESULT, truncated: false });
    }
  }
  signal.throwIfAborted();
  // The workspace may have changed while the user decided (a symlink swapped in): a call that
  // now carries more risk than it was announced with does not run.
  let riskNow: Risk;
  try {
    riskNow = await tool.risk(args, { cwd: session.cwd });
  } catch {
    riskNow = "write";
  }
  if (RISK_RANK[riskNow] > RISK_RANK[risk]) {
    return await complete({
      success: false,
      output: `The call was announced with risk "${risk}" but now has risk "${riskNow}" ` +
        `(a path changed in the meantime); nothing was done. Propose the call again.`,
      truncated: false,
    });
  }
  // Cancelled between approval and start: nothing ran, so no completion either.
  await emit({ type: "tool.started", call_id: call.id, name }, signal);
  // Every tool gets the time limit, as the abort reason of its signal: a turn cancellation
  // still reads as one, a timeout as a failure that says so.
  const timeoutMs = tool.timeoutMs ?? config.tool_timeout_ms;
  const deadline = new AbortController();
  const timer = setTimeout(
    () => deadline.abort(new ToolTimeoutError(name, timeoutMs)),
    Math.min(timeoutMs, MAX_TIMER_MS),
  );
  const runSignal = AbortSignal.any([signal, deadline.signal]);
  // A tool that ignores its signal (an embedder's, say) is abandoned after a grace period, so
  // cancellation and timeouts still end the call in bounded time.
  let graceTimer: ReturnType<typeof setTimeout> | undefined;
  const onAbort = () => {
    graceTimer = setTimeout(() => abandon(), TOOL_STOP_GRACE_MS);
  };
  let abandon!: () => void;
  const abandoned = new Promise<never>((_, reject) => {
    abandon = () => reject(new ToolAbandonedError(name));
  });
  abandoned.catch(() => {});
  runSignal.addEventListener("abort", onAbort, { once: true });
  let result: ToolResult;
  try {
    result = await Promise.race([
      tool.run(args, {
        cwd: session.cwd,
        signal: runSignal,
        // The cap the output will get anyway, so a tool that fits its own notes in the limit
        // (read_file's footer, grep's count) is never cut again in the middle.
        limits: {
          maxOutputBytes: Math.min(config.max_tool_output_bytes, fieldBudget(config)),
          timeoutMs,
        },
        secretEnv: deps.secretEnv,
      }),
      abandoned,
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
    clearTimeout(timer);
    clearTimeout(graceTimer);
    runSignal.removeEventListener("abort", onAbort);
  }
  if (signal.aborted && result.success) {
    result = { ...result, success: false };
  } else if (deadline.signal.aborted && result.success) {
    // Finished only after its time was up: reported as the failure the limit promises.
    const note = `[${(deadline.signal.reason as ToolTimeoutError).message}]`;
    result = { ...result, success: false, output: `${result.output}\n${note}` };
  }
  return await complete(result);
}
