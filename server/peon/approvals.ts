/**
 * Approval over Peon: `approval.requested` out, `approval.resolve` in. The session keeps the
 * pending approvals, so `approval.resolve` finds them by id.
 *
 * @module
 */
import type { Approvals } from "../core/approvals.ts";
import type { Session } from "../core/session.ts";
import type { Turn } from "../core/turn.ts";

/**
 * The Peon front-end's {@link Approvals} for one turn: each request gets a fresh UUID, is
 * registered with the session before `approval.requested` goes out, and waits for the client.
 */
export function peonApprovals(session: Session, turn: Turn): Approvals {
  return {
    async request(request, signal) {
      const approvalId = crypto.randomUUID();
      const approval = session.waitForApproval(approvalId, signal);
      approval.catch(() => {}); // observed below; avoid an unhandled rejection on early abort
      await turn.emit("approval.requested", {
        approval_id: approvalId,
        call_id: request.call_id,
        name: request.name,
        risk: request.risk,
        cwd: request.cwd,
        summary: request.summary,
        ...(request.sandboxed !== undefined ? { sandboxed: request.sandboxed } : {}),
        ...(request.rule ? { rule: request.rule } : {}),
        ...(request.preview !== undefined ? { preview: request.preview } : {}),
      }, signal);
      return await approval;
    },
  };
}
