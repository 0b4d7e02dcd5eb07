/**
 * `session.configure`: changes an idle session's model and approval policy for its next turns
 * (recorded, so a resumed session keeps them) and answers `session.configured`.
 *
 * @module
 */
import type { ClientMessageOf } from "../../../protocol/schema.ts";
import { CONFIG_RULES } from "../../config.ts";
import { utf8Length } from "../../utf8.ts";
import type { ConnectionContext } from "../context.ts";
import { idleSessionOf } from "../idle_session.ts";
import { sessionModel, sessionPolicy } from "../recording.ts";

/** The longest model name `session.configure` accepts, in UTF-8 bytes. */
export const MAX_MODEL_NAME_BYTES = 256;

/** Configures; `turn_active` while a turn runs, `invalid_request` for a value not accepted. */
export async function sessionConfigure(
  msg: ClientMessageOf<"session.configure">,
  cx: ConnectionContext,
): Promise<void> {
  const session = await idleSessionOf(msg, cx, "configure");
  if (!session) return;
  if (msg.model !== undefined && utf8Length(msg.model) > MAX_MODEL_NAME_BYTES) {
    return await cx.error(
      msg.request_id,
      "invalid_request",
      `model name of ${utf8Length(msg.model)} bytes is longer than the ` +
        `${MAX_MODEL_NAME_BYTES} bytes scv accepts`,
    );
  }
  const policy = msg.approval_policy;
  // The schema knows every policy of the protocol; this build may not offer them all (auto
  // needs the sandbox).
  if (policy !== undefined && !CONFIG_RULES.approval_policy.valid(policy)) {
    return await cx.error(
      msg.request_id,
      "invalid_request",
      `approval_policy "${policy}" is not available in this build; approval_policy ` +
        CONFIG_RULES.approval_policy.expected,
    );
  }
  if (msg.model !== undefined) session.model = msg.model;
  if (policy !== undefined) session.approvalPolicy = policy;
  const model = sessionModel(session, cx.config);
  const approvalPolicy = sessionPolicy(session, cx.config) as typeof policy & string;
  await cx.sendSession<"session.configured">({
    type: "session.configured",
    request_id: msg.request_id,
    session_id: session.id,
    model,
    approval_policy: approvalPolicy,
  }, session);
  await session.recorder?.checkpoint([{ t: "config", model, approval_policy: approvalPolicy }]);
}
