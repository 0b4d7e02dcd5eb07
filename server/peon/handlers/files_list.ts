/**
 * `files.list`: the session workspace's paths for a client's `@path` completion, walked as the
 * tools walk it (`.git` skipped, `.gitignore` honoured, symlinked directories not followed), at
 * most `limit` and never more than fits in one frame.
 *
 * @module
 */
import type { ClientMessageOf } from "../../../protocol/schema.ts";
import { utf8Length } from "../../utf8.ts";
import type { ConnectionContext } from "../context.ts";

/** `limit` when the request names none. */
export const DEFAULT_FILES_LIST_LIMIT = 20_000;
/** Bytes of a frame kept for the envelope and the fields besides `paths`. */
const ENVELOPE_BYTES = 1024;

/** Answers `files.list`. */
export async function filesList(
  msg: ClientMessageOf<"files.list">,
  cx: ConnectionContext,
): Promise<void> {
  const session = await cx.sessionOf(msg);
  if (!session) return;
  const { walk } = await import("../../tools/walk.ts");
  const limit = msg.limit ?? DEFAULT_FILES_LIST_LIMIT;
  const room = cx.config.max_server_frame_bytes - ENVELOPE_BYTES - utf8Length(msg.request_id) -
    utf8Length(session.id);
  const paths: string[] = [];
  let used = 0;
  let truncated = false;
  for await (const e of walk(session.cwd, session.cwd, { maxDepth: 32 })) {
    if (!e.isFile && !e.isDirectory) continue;
    const p = e.isDirectory ? `${e.rel}/` : e.rel;
    // A path's cost in the frame: its JSON string and a comma.
    const cost = utf8Length(JSON.stringify(p)) + 1;
    if (paths.length >= limit || used + cost > room) {
      truncated = true;
      break;
    }
    paths.push(p);
    used += cost;
  }
  await cx.send<"files.list">({
    type: "files.list",
    request_id: msg.request_id,
    session_id: session.id,
    paths,
    truncated,
  });
}
