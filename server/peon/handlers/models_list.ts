/**
 * `models.list`: the session's provider asked for its models, with the server's configuration
 * and environment (so a client under `--server-command` sees the server's provider, not its own
 * idea of it). A provider that cannot be asked is an answer with `error`, not a request error.
 *
 * @module
 */
import type { ClientMessageOf } from "../../../protocol/schema.ts";
import { readEnv } from "../../config.ts";
import type { ConnectionContext } from "../context.ts";

/** Answers `models.list`. */
export async function modelsList(
  msg: ClientMessageOf<"models.list">,
  cx: ConnectionContext,
): Promise<void> {
  const session = await cx.sessionOf(msg);
  if (!session) return;
  const { listModels } = await import("../../provider/models.ts");
  const answer = await listModels(cx.config, readEnv);
  await cx.send<"models.list">({
    type: "models.list",
    request_id: msg.request_id,
    session_id: session.id,
    ...("models" in answer ? { models: answer.models } : { models: [], error: answer.error }),
  });
}
