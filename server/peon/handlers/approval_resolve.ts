/**
 * `approval.resolve`: answers one pending `approval.requested`.
 *
 * @module
 */
import type { ClientMessageOf } from "../../../protocol/schema.ts";
import { quoteInput } from "../../error_text.ts";
import type { ConnectionContext } from "../context.ts";

/** Resolves the approval; `approval_not_found` when unknown or already resolved. */
export async function approvalResolve(
  msg: ClientMessageOf<"approval.resolve">,
  cx: ConnectionContext,
): Promise<void> {
  const session = await cx.sessionOf(msg);
  if (!session) return;
  if (
    !session.resolveApproval(
      msg.approval_id,
      msg.approved && msg.remember === "session" ? "session" : msg.approved,
    )
  ) {
    return await cx.error(
      msg.request_id,
      "approval_not_found",
      `no pending approval ${quoteInput(msg.approval_id)} (unknown or already resolved)`,
    );
  }
}
