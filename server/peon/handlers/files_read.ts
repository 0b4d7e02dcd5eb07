/**
 * `files.read`: the head of a file a client's user mentioned, read by the server under the
 * workspace's rules (server/core/mentioned_file.ts). A file it will not read is an answer with
 * `refused`; only a malformed request or an unknown session is a request error.
 *
 * @module
 */
import { DEFAULT_FILES_READ_BYTES } from "../../../protocol/constants.ts";
import type { ClientMessageOf } from "../../../protocol/schema.ts";
import { readEnv } from "../../config.ts";
import { type HiddenRoot, readMentionedFile } from "../../core/mentioned_file.ts";
import { expandHome, scvDirectories } from "../../sandbox/policy.ts";
import { utf8Length } from "../../utf8.ts";
import type { ConnectionContext } from "../context.ts";

/** Bytes of a frame kept for the envelope and the fields besides `text`. */
const ENVELOPE_BYTES = 1024;

/** Answers `files.read`. */
export async function filesRead(
  msg: ClientMessageOf<"files.read">,
  cx: ConnectionContext,
): Promise<void> {
  const session = await cx.sessionOf(msg);
  if (!session) return;
  const home = readEnv("HOME");
  const hidden: HiddenRoot[] = [
    ...cx.config.sandbox_deny_read.flatMap((p) => {
      const path = expandHome(p, home);
      return path === undefined ? [] : [{ path, by: `by "sandbox_deny_read" (${p})` }];
    }),
    ...scvDirectories(readEnv).map((path) => ({
      path,
      by: "in scv's own configuration and state directories",
    })),
  ];
  const room = cx.config.max_server_frame_bytes - ENVELOPE_BYTES -
    utf8Length(msg.request_id) - utf8Length(session.id) - utf8Length(JSON.stringify(msg.path));
  const body = await readMentionedFile(msg.path, {
    cwd: session.cwd,
    rules: session.rulesInForce(),
    hidden,
    maxBytes: msg.max_bytes ?? DEFAULT_FILES_READ_BYTES,
    maxEncodedBytes: Math.max(0, room),
  });
  await cx.send<"files.read">({
    type: "files.read",
    request_id: msg.request_id,
    session_id: session.id,
    path: msg.path,
    ...body,
  });
}
