/**
 * The scv 0.2 session requests (docs/sessions.md) before session recording lands: declared in
 * `protocol/`, refused clearly here.
 *
 * @module
 */
import type { ClientMessageOf } from "../../../protocol/schema.ts";
import type { ConnectionContext } from "../context.ts";

/** Refuses a request this server does not support yet with `invalid_request`. */
export async function notYet(
  msg: ClientMessageOf<
    "session.list" | "session.history" | "session.compact" | "session.configure"
  >,
  cx: ConnectionContext,
): Promise<void> {
  await cx.error(
    msg.request_id,
    "invalid_request",
    `"${msg.type}" is not supported by this server yet`,
  );
}
