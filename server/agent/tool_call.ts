/**
 * One tool call of a turn, from `tool.proposed` to `tool.completed`: arguments parsed and
 * validated, risk assessed, approval asked when the policy wants it, the risk checked again, the
 * tool run, and its result bounded. Every failure along the way is a result the model sees.
 *
 * @module
 */
import { describeIssues } from "../../protocol/schema.ts";
import type { Risk } from "../../protocol/constants.ts";
import { errorText } from "../error_text.ts";
import type { ChatToolCall } from "../provider/types.ts";
import type { AnyTool, ToolResult } from "../tools/tool.ts";
import { truncateText } from "../tools/output.ts";
import type { Turn } from "../turn.ts";
import type { AgentDeps } from "./deps.ts";
import { needsApproval } from "./approvals.ts";
import { runTool } from "./run_tool.ts";

const DENIED_RESULT =
  "The user denied this tool call. Do not retry it unchanged; ask the user or try another approach.";

/** Risks in increasing order, to tell when a call's risk grew after it was announced. */
const RISK_RANK: Readonly<Record<Risk, number>> = { read: 0, write: 1, process: 2 };

/** The longest approval summary sent, whatever the frame limit. */
const MAX_SUMMARY_BYTES = 64 * 1024;

function failed(output: string): ToolResult {
  return { success: false, output, truncated: false };
}

/** The arguments as `tool.proposed` shows them: parsed when they fit, else the raw text cut. */
function boundedArguments(raw: string, parsed: unknown, budget: number): unknown {
  if (parsed !== undefined && JSON.stringify(parsed).length <= budget) return parsed;
  return truncateText(raw, budget).text;
}

/**
 * Runs one tool call and returns the bounded result that `tool.completed` reported (and the model
 * will see). Rejects only when the turn is cancelled before the call started, or the output is
 * gone.
 */
export async function runToolCall(
  turn: Turn,
  call: ChatToolCall,
  deps: Pick<AgentDeps, "config" | "tools" | "approvals" | "signal" | "secretEnv">,
): Promise<ToolResult> {
  const { config, signal } = deps;
  const name = call.function.name;
  const raw = call.function.arguments;
  const budget = turn.fieldBudget;
  const cwd = turn.session.cwd;
  let parsed: unknown;
  let jsonError: string | undefined;
  try {
    parsed = raw.trim() === "" ? {} : JSON.parse(raw);
  } catch (e) {
    jsonError = errorText(e);
  }
  await turn.emit("tool.proposed", {
    call_id: call.id,
    name,
    arguments: boundedArguments(raw, parsed, budget),
  }, signal);
  const complete = async (result: ToolResult): Promise<ToolResult> => {
    const capped = truncateText(result.output, Math.min(config.max_tool_output_bytes, budget));
    const final = {
      success: result.success,
      output: capped.text,
      truncated: result.truncated || capped.truncated,
    };
    // The cancelled call's completion is still reported, so it is not interruptible.
    await turn.emit("tool.completed", { call_id: call.id, name, ...final });
    return final;
  };
  const tool: AnyTool | undefined = deps.tools.get(name);
  if (!tool) {
    const known = deps.tools.list().map((t) => t.name).join(", ") || "none";
    return await complete(failed(`Unknown tool "${name}". Available tools: ${known}.`));
  }
  if (jsonError !== undefined) {
    return await complete(
      failed(`Invalid arguments for ${name}: not valid JSON (${jsonError}). Send a JSON object.`),
    );
  }
  const check = tool.schema.safeParse(parsed);
  if (!check.success) {
    return await complete(
      failed(`Invalid arguments for ${name}: ${describeIssues(check.error, "arguments")}`),
    );
  }
  const args = check.data;
  let risk: Risk;
  let summary: string;
  try {
    risk = await tool.risk(args, { cwd });
    summary = tool.summary(args);
  } catch (e) {
    return await complete(failed(`Tool ${name} failed: ${errorText(e)}`));
  }
  if (needsApproval(config.approval_policy, risk, tool)) {
    const approved = await deps.approvals.request({
      call_id: call.id,
      name,
      arguments: args,
      risk,
      summary: truncateText(summary, Math.min(budget, MAX_SUMMARY_BYTES)).text,
      cwd,
      ...(tool.sandboxed ? { sandboxed: tool.sandboxed() } : {}),
    }, signal);
    if (!approved) return await complete(failed(DENIED_RESULT));
  }
  signal.throwIfAborted();
  // The workspace may have changed while the user decided (a symlink swapped in): a call that
  // now carries more risk than it was announced with does not run.
  let riskNow: Risk;
  try {
    riskNow = await tool.risk(args, { cwd });
  } catch {
    riskNow = "write";
  }
  if (RISK_RANK[riskNow] > RISK_RANK[risk]) {
    return await complete(failed(
      `The call was announced with risk "${risk}" but now has risk "${riskNow}" ` +
        `(a path changed in the meantime); nothing was done. Propose the call again.`,
    ));
  }
  // Cancelled between approval and start: nothing ran, so no completion either.
  await turn.emit("tool.started", { call_id: call.id, name }, signal);
  return await complete(
    await runTool(tool, args, {
      cwd,
      signal,
      // The cap the output will get anyway, so a tool that fits its own notes in the limit
      // (read_file's footer, grep's count) is never cut again in the middle.
      limits: {
        maxOutputBytes: Math.min(config.max_tool_output_bytes, budget),
        timeoutMs: tool.timeoutMs ?? config.tool_timeout_ms,
      },
      secretEnv: deps.secretEnv,
    }),
  );
}
