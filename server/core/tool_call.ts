/**
 * One tool call of a turn, from `tool.proposed` to `tool.completed`: arguments parsed and
 * validated, risk assessed, approval asked when the policy wants it, the risk checked again, the
 * tool run, and its result bounded. Every failure along the way is a result the model sees.
 *
 * @module
 */
import { describeIssues } from "../../protocol/issues.ts";
import { FrameTooLargeError } from "../../protocol/ndjson.ts";
import type { Risk } from "../../protocol/constants.ts";
import { errorText } from "../error_text.ts";
import type { ChatToolCall } from "../provider/types.ts";
import type { AnyTool, ToolResult } from "../tools/tool.ts";
import { truncateText } from "../tools/output.ts";
import { runsInPlanMode } from "../tools/registry.ts";
import type { Turn } from "./turn.ts";
import type { AgentDeps } from "./deps.ts";
import { type ApprovalRequest, needsApproval } from "./approvals.ts";
import { changePreview, jsonBytes } from "./approval_preview.ts";
import { runTool } from "./run_tool.ts";
import { checkpointAhead, checkpointBeforeCall, checkpointDropAhead } from "./checkpoint_hooks.ts";
import { hooksOf, postToolHooks, preToolHooks } from "./hook_points.ts";
import { decideCall } from "../hooks/decision.ts";
import type { HookOutcome } from "../hooks/outcome.ts";
import { decide, type RuleVerdict } from "./rules/decide.ts";
import { parseShell, type ShellParse } from "./rules/shell_commands.ts";
import { ruleLine, ruleView, unresolvableView } from "./rules/view.ts";
import type { RuleView } from "../../protocol/schema.ts";

const DENIED_RESULT =
  "The user denied this tool call. Do not retry it unchanged; ask the user or try another approach.";

/** Risks in increasing order, to tell when a call's risk grew after it was announced. */
const RISK_RANK: Readonly<Record<Risk, number>> = { read: 0, network: 1, write: 1, process: 2 };

/**
 * Bytes of `approval.requested` besides the request's fields and `request_id`: the type, the
 * session, turn and approval ids, seq and the field names.
 */
const FRAME_ENVELOPE_BYTES = 512;

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

/** The raw arguments parsed: an empty text is an empty object. */
function parseArguments(raw: string): { parsed?: unknown; jsonError?: string } {
  try {
    return { parsed: raw.trim() === "" ? {} : JSON.parse(raw) };
  } catch (e) {
    return { jsonError: errorText(e) };
  }
}

/** A call ready to ask about and run, or the failure the model sees instead. */
type Prepared =
  | { kind: "refused"; output: string }
  | { kind: "ready"; tool: AnyTool; args: unknown; risk: Risk; summary: string };

/** Finds the tool, checks the arguments, and assesses the call's risk and summary. */
async function prepare(
  name: string,
  tool: AnyTool | undefined,
  argumentsOf: { parsed?: unknown; jsonError?: string },
  known: () => string,
  cwd: string,
): Promise<Prepared> {
  if (!tool) {
    return { kind: "refused", output: `Unknown tool "${name}". Available tools: ${known()}.` };
  }
  if (argumentsOf.jsonError !== undefined) {
    return {
      kind: "refused",
      output: `Invalid arguments for ${name}: not valid JSON (${argumentsOf.jsonError}). ` +
        `Send a JSON object.`,
    };
  }
  const check = tool.schema.safeParse(argumentsOf.parsed);
  if (!check.success) {
    return {
      kind: "refused",
      output: `Invalid arguments for ${name}: ${describeIssues(check.error, "arguments")}`,
    };
  }
  try {
    const risk = await tool.risk(check.data, { cwd });
    return { kind: "ready", tool, args: check.data, risk, summary: tool.summary(check.data) };
  } catch (e) {
    return { kind: "refused", output: `Tool ${name} failed: ${errorText(e)}` };
  }
}

/**
 * Why the call must not run although it was approved: the workspace may have changed while the
 * user decided (a symlink swapped in), and a call now riskier than announced does not run.
 */
async function riskGrew(
  ready: Extract<Prepared, { kind: "ready" }>,
  cwd: string,
): Promise<string | undefined> {
  let riskNow: Risk;
  try {
    riskNow = await ready.tool.risk(ready.args, { cwd });
  } catch {
    riskNow = "write";
  }
  if (RISK_RANK[riskNow] <= RISK_RANK[ready.risk]) return undefined;
  return `The call was announced with risk "${ready.risk}" but now has risk "${riskNow}" ` +
    `(a path changed in the meantime); nothing was done. Propose the call again.`;
}

/** What the rules say about a ready call; a bash command is parsed first. */
async function rulesVerdict(turn: Turn, name: string, args: unknown): Promise<RuleVerdict> {
  const cwd = turn.session.cwd;
  const command = (args as { command?: unknown }).command;
  let shell: ShellParse | undefined;
  if (name === "bash" && typeof command === "string") {
    try {
      shell = await parseShell(command);
    } catch (e) {
      // Without the parser nothing is known about the command: it asks.
      shell = { commands: [], unresolvable: [`the shell parser failed: ${errorText(e)}`] };
    }
  }
  return decide(turn.session.rulesInForce(), {
    tool: name,
    args,
    cwd,
    ...(shell ? { shell } : {}),
  });
}

/**
 * The model-visible result of a call plan mode refused.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { planModeRefusal } from "./tool_call.ts";
 * assert(planModeRefusal("bash").startsWith("Plan mode is on: "));
 * ```
 */
export function planModeRefusal(name: string): string {
  return `Plan mode is on: only read-only tools run (read_file, glob, grep, update_plan and the ` +
    `like), so this ${name} call was refused without asking. Do not retry it: finish your plan ` +
    `(update_plan) and say what you would change; the user leaves plan mode to carry it out.`;
}

/** The model-visible result of a call a deny rule refused. */
function deniedByRule(view: RuleView): string {
  return `This call was refused by an approval rule, without asking the user: ${ruleLine(view)}. ` +
    `Do not retry it; choose another approach or ask the user.`;
}

/** What running a call needs of the turn's dependencies. */
type CallDeps =
  & Pick<AgentDeps, "config" | "tools" | "approvals" | "signal" | "secretEnv" | "notices">
  & { provider?: AgentDeps["provider"] };

/**
 * Runs one tool call and returns the bounded result that `tool.completed` reported (and the model
 * will see). Rejects only when the turn is cancelled before the call started, or the output is
 * gone.
 */
export async function runToolCall(
  turn: Turn,
  call: ChatToolCall,
  deps: CallDeps,
): Promise<ToolResult> {
  const { config, signal } = deps;
  const found = deps.tools.get(call.function.name);
  // A call that may change files, before which nothing else runs that could (no hook): the
  // turn's "before" snapshot (git, in other processes) starts now, beside the tool's loading,
  // the command's parsing and the rules, instead of after them.
  const ahead = found !== undefined && !found.readOnly && config.approval_policy !== "plan" &&
    hooksOf(config) === undefined;
  if (ahead) checkpointAhead(turn, signal);
  try {
    return await prepareAndRun(turn, call, deps, found, ahead);
  } finally {
    if (ahead) await checkpointDropAhead(turn);
  }
}

/** {@link runToolCall} once the tool is looked up (`ahead`: its snapshot started). */
async function prepareAndRun(
  turn: Turn,
  call: ChatToolCall,
  deps: CallDeps,
  found: AnyTool | undefined,
  ahead: boolean,
): Promise<ToolResult> {
  const { config, signal } = deps;
  const name = call.function.name;
  const budget = turn.fieldBudget;
  const cwd = turn.session.cwd;
  const argumentsOf = parseArguments(call.function.arguments);
  const shown = boundedArguments(call.function.arguments, argumentsOf.parsed, budget);
  // A built-in's code loads with its first call (server/tools/lazy.ts); before tool.proposed,
  // so that a face's view of the call (ACP's title) finds the tool loaded.
  const unloadable = await found?.load?.().then(
    () => undefined,
    (e) => `Tool ${name} failed to load: ${errorText(e)}`,
  );
  await turn.emit("tool.proposed", { call_id: call.id, name, arguments: shown }, signal);
  const complete = async (result: ToolResult): Promise<ToolResult> => {
    const capped = truncateText(result.output, Math.min(config.max_tool_output_bytes, budget));
    const final = {
      success: result.success,
      output: capped.text,
      truncated: result.truncated || capped.truncated,
    };
    // The cancelled call's completion is still reported, so it is not interruptible.
    await turn.emit("tool.completed", { call_id: call.id, name, ...final });
    // Images go to the model only, never into the event (the output says what they are).
    return result.images?.length ? { ...final, images: result.images } : final;
  };
  const known = () => deps.tools.list().map((t) => t.name).join(", ") || "none";
  if (unloadable !== undefined) return await complete(failed(unloadable));
  const ready = await prepare(name, found, argumentsOf, known, cwd);
  if (ready.kind === "refused") return await complete(failed(ready.output));
  const { tool, args, risk } = ready;
  const policy = config.approval_policy;
  // Plan mode first: no rule, hook or remembered answer lets a change through.
  if (policy === "plan" && !runsInPlanMode(tool, risk)) {
    return await complete(failed(planModeRefusal(name)));
  }
  // bash's sandbox probes (tens of ms, once) run while rules, hooks, approval and the checkpoint
  // snapshot go on, instead of after them.
  tool.warm?.(cwd);
  const verdict = await rulesVerdict(turn, name, args);
  const view = verdict.rule
    ? ruleView(verdict.rule)
    : verdict.unresolvable !== undefined
    ? unresolvableView(verdict.unresolvable)
    : undefined;
  const hooks = hooksOf(config);
  const callInfo = { id: call.id, name, args };
  const pre = await preToolHooks(hooks, turn.session, config, callInfo, signal);
  await notify(turn, pre, deps);
  if (pre?.stop) {
    turn.stopRequested = pre.stop.reason;
    return await complete(failed(`${HOOK_STOPPED} ${pre.stop.reason}`));
  }
  // Exit code 2: the call does not run, and the model reads why.
  if (pre?.block !== undefined) return await complete(failed(pre.block));
  if (verdict.decision === "deny") return await complete(failed(deniedByRule(view!)));
  // A hook's allow never overrides a rule's deny or ask; its deny refuses under every policy.
  const decision = decideCall({
    rule: verdict.decision,
    policyAsks: needsApproval(policy, risk, tool),
    never: policy === "never",
    hook: pre?.permission,
  });
  if (decision === "deny") {
    const why = pre?.permissionReason ?? "no reason given";
    return await complete(failed(`A PreToolUse hook denied this tool call: ${why}`));
  }
  let autoApproved: "session rule" | "rule" | undefined;
  if (verdict.decision === "allow" && needsApproval(policy, risk, tool)) {
    autoApproved = verdict.rule?.source === "session" ? "session rule" : "rule";
  }
  if (decision === "ask") {
    const request: ApprovalRequest = {
      call_id: call.id,
      name,
      arguments: args,
      risk,
      summary: truncateText(ready.summary, Math.min(budget, MAX_SUMMARY_BYTES)).text,
      cwd,
      ...(tool.sandboxed ? { sandboxed: tool.sandboxed() } : {}),
      ...(view && verdict.decision === "ask" ? { rule: view } : {}),
    };
    const change = await tool.preview?.(args, { cwd }).catch(() => undefined);
    signal.throwIfAborted();
    if (change) {
      // What the frame has left once everything else in it is counted (the envelope's ids too).
      const { arguments: _, ...shown } = request;
      const room = config.max_server_frame_bytes - jsonBytes(shown) - jsonBytes(turn.requestId) -
        FRAME_ENVELOPE_BYTES;
      const preview = changePreview(change, room);
      if (preview !== undefined) Object.assign(request, { preview, change });
    }
    const answer = await deps.approvals.request(request, signal);
    if (!answer) return await complete(failed(DENIED_RESULT));
    if (answer === "session") turn.session.remembered.remember({ tool: name, args, cwd });
  }
  signal.throwIfAborted();
  const grew = await riskGrew(ready, cwd);
  if (grew !== undefined) return await complete(failed(grew));
  // The workspace as it was before the turn's first call that may change it.
  // Asked: time passed, and the snapshot started ahead may be older than what the user left.
  await checkpointBeforeCall(turn, risk, signal, deps.notices, ahead && decision !== "ask");
  // Cancelled between approval and start: nothing ran, so no completion either.
  await turn.emit(
    "tool.started",
    { call_id: call.id, name, ...(autoApproved ? { auto_approved: autoApproved } : {}) },
    signal,
  );
  // The cap the output will get anyway, so a tool that fits its own notes in the limit
  // (read_file's footer, grep's count) is never cut again in the middle.
  const limits = {
    maxOutputBytes: Math.min(config.max_tool_output_bytes, budget),
    timeoutMs: tool.timeoutMs ?? config.tool_timeout_ms,
  };
  const images = deps.provider?.acceptsImages ? { maxImageBytes: config.max_image_bytes } : {};
  const result = await runTool(tool, args, {
    cwd,
    signal,
    limits,
    secretEnv: deps.secretEnv,
    sessionId: turn.session.id,
    ...images,
  });
  if (!result.success || signal.aborted) return await complete(result);
  if (result.plan) {
    const refused = await announcePlan(turn, result.plan);
    if (refused !== undefined) return await complete(failed(refused));
  }
  const post = await postToolHooks(hooks, turn.session, config, callInfo, result, signal)
    .catch(() => undefined);
  await notify(turn, post, deps).catch(() => {});
  if (post?.stop) turn.stopRequested = post.stop.reason;
  // The call ran; what its hooks say reaches the model after its output.
  const notes = [
    ...(post?.block !== undefined ? [`PostToolUse hook feedback:\n${post.block}`] : []),
    ...(post?.context !== undefined ? [`PostToolUse hook context:\n${post.context}`] : []),
  ];
  if (notes.length === 0) return await complete(result);
  return await complete({ ...result, output: [result.output, ...notes].join("\n\n") });
}

/**
 * Announces the plan a call set (`update_plan`) as `plan.updated`, before the call completes;
 * a plan whose event cannot fit a frame is the call's failure, for the model to shorten.
 */
async function announcePlan(
  turn: Turn,
  steps: NonNullable<ToolResult["plan"]>,
): Promise<string | undefined> {
  try {
    // Like the completion that follows, not interruptible: the call has run.
    await turn.emit("plan.updated", { steps });
    return undefined;
  } catch (e) {
    if (!(e instanceof FrameTooLargeError)) throw e;
    return `The plan was not shown: its event of ${e.bytes} bytes does not fit ` +
      `max_server_frame_bytes (${e.limit}). Send fewer or shorter steps.`;
  }
}

/** What the model reads for a call a hook's `continue: false` stopped before it ran. */
const HOOK_STOPPED = "A hook ended the turn before this call ran:";

/** Sends a hook outcome's notices, to a client that takes them. */
async function notify(
  turn: Turn,
  outcome: HookOutcome | undefined,
  deps: Pick<AgentDeps, "notices" | "signal">,
): Promise<void> {
  if (!deps.notices || !outcome?.notices) return;
  for (const message of outcome.notices) {
    await turn.emit("turn.notice", {
      message: truncateText(message, turn.fieldBudget).text,
    }, deps.signal);
  }
}
