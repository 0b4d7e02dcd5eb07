/**
 * How the agent loop asks a person whether a tool call may run. The loop decides *whether* to
 * ask ({@link needsApproval}); the front-end decides *how*: the Peon connection sends
 * `approval.requested` and waits for `approval.resolve`, an ACP agent asks with
 * `session/request_permission`, a test answers from a script.
 *
 * @module
 */
import type { Risk } from "../../protocol/constants.ts";
import type { RuleView } from "../../protocol/schema.ts";
import type { ApprovalPolicy } from "../config.ts";
import type { AnyTool, FileChangePreview } from "../tools/tool.ts";

/** One tool call waiting for a decision. */
export interface ApprovalRequest {
  /** The call's id, as in `tool.proposed`. */
  call_id: string;
  /** The tool's name. */
  name: string;
  /** The parsed, validated arguments. */
  arguments: unknown;
  /** The call's risk class. */
  risk: Risk;
  /** One line saying what the call does, already bounded for a frame. */
  summary: string;
  /** The session's canonical workspace. */
  cwd: string;
  /** Whether the call runs in the OS sandbox; omitted where the tool has no sandbox. */
  sandboxed?: boolean;
  /** The rule that asks (`rules/`); omitted when the approval policy asks. */
  rule?: RuleView;
  /** `write_file` and `edit_file`: the unified diff the call would make, bounded. */
  preview?: string;
  /** The change `preview` shows, whole (for a face that shows diffs its own way: ACP). */
  change?: FileChangePreview;
}

/**
 * A decision: `true` runs the call, `false` denies it, `"session"` runs it and keeps a session
 * rule that allows the same call again without asking.
 */
export type ApprovalAnswer = boolean | "session";

/** The front-end's side of approval. */
export interface Approvals {
  /**
   * Asks whether the call may run; resolves true to run it, false to deny it, `"session"` to run
   * it and remember it. Rejects with the signal's reason when the turn is cancelled while
   * waiting (the request is then forgotten).
   */
  request(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer>;
}

/**
 * Whether a call of this risk asks for approval under the policy. Under `auto` the tool decides
 * (`autoApproved`: workspace writes, sandboxed bash, a trusted MCP tool); a tool that does not
 * lets only `read` calls run. A tool that `neverAsks` (`update_plan`) asks under no policy.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { needsApproval } from "./approvals.ts";
 * assert(needsApproval("on-risk", "write"));
 * assert(!needsApproval("on-risk", "read"));
 * assert(!needsApproval("never", "process"));
 * assert(needsApproval("auto", "process"));
 * assert(!needsApproval("auto", "process", { autoApproved: () => true }));
 * assert(!needsApproval("always", "read", { neverAsks: true }));
 * assert(!needsApproval("plan", "read"));
 * ```
 */
export function needsApproval(
  policy: ApprovalPolicy,
  risk: Risk,
  tool?: Pick<AnyTool, "autoApproved" | "neverAsks">,
): boolean {
  if (tool?.neverAsks === true) return false;
  if (policy === "auto") return !(tool?.autoApproved?.(risk) ?? risk === "read");
  // Plan mode refuses what is not read-only before asking (tool_call.ts); the rest is on-risk.
  return policy === "always" || ((policy === "on-risk" || policy === "plan") && risk !== "read");
}
