/**
 * `initialize`: the handshake. A version mismatch is fatal; a second `initialize` is refused.
 *
 * @module
 */
import { PROTOCOL_VERSION, SCV_VERSION } from "../../../protocol/constants.ts";
import type { ClientMessageOf } from "../../../protocol/schema.ts";
import { type ConnectionContext, EXIT, FatalClose } from "../context.ts";
import { loadSchemas } from "../parse.ts";
import { after } from "../../timer.ts";

/** The server's name and version, as sent in `initialized`. */
export const SERVER_INFO = { name: "scv-server", version: SCV_VERSION } as const;

/** Answers `initialize` with `initialized`, or ends the connection on a version mismatch. */
export async function initialize(
  msg: ClientMessageOf<"initialize">,
  cx: ConnectionContext,
): Promise<void> {
  if (msg.protocol_version !== PROTOCOL_VERSION) {
    await cx.error(
      msg.request_id,
      "version_mismatch",
      `server speaks protocol version ${PROTOCOL_VERSION}, client asked for ${msg.protocol_version}`,
      true,
    );
    cx.stop(EXIT.versionMismatch);
    throw new FatalClose();
  }
  if (cx.initialized) {
    return await cx.error(
      msg.request_id,
      "invalid_request",
      "the connection is already initialized",
    );
  }
  cx.initialized = true;
  cx.capabilities = msg.capabilities ?? {};
  await cx.send<"initialized">({
    type: "initialized",
    request_id: msg.request_id,
    protocol_version: PROTOCOL_VERSION,
    server: SERVER_INFO,
  });
  // Once the answer is out, while the client sends its next message: the sandbox's probe (its
  // spawn blocks the event loop) and the schemas every later request needs. A trusted client's
  // requests are not checked (parse.ts), so they need no schemas.
  after(0, () => {
    cx.sandbox?.().catch(() => {});
    if (!cx.trustedClient) loadSchemas().catch(() => {});
  });
}
