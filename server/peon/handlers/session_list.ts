/**
 * `session.list`: the recorded sessions, newest first, from the index; as many as `limit` asks
 * and one frame holds (`truncated` says when some were left out).
 *
 * @module
 */
import { DEFAULT_SESSION_LIST_LIMIT } from "../../../protocol/constants.ts";
import { encodeFrame, FrameTooLargeError } from "../../../protocol/ndjson.ts";
import type { ClientMessageOf, SessionSummary } from "../../../protocol/schema.ts";
import type { EventOf } from "../../../protocol/turn_events.ts";
import { errorText, quoteInput } from "../../error_text.ts";
import type { ConnectionContext } from "../context.ts";
import { notRecordedReason } from "../recording.ts";

/** The most of `sessions` (a prefix) whose frame fits `limit` bytes; binary search. */
export function fittingCount(
  frame: (n: number) => unknown,
  count: number,
  limit: number,
): number {
  const fits = (n: number) => {
    try {
      encodeFrame(frame(n), limit);
      return true;
    } catch (e) {
      if (e instanceof FrameTooLargeError) return false;
      throw e;
    }
  };
  if (fits(count)) return count;
  let lo = 0;
  let hi = count - 1;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (fits(mid)) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** Answers `session.list`; `invalid_request` when sessions are not recorded. */
export async function sessionList(
  msg: ClientMessageOf<"session.list">,
  cx: ConnectionContext,
): Promise<void> {
  const store = cx.store;
  if (!store) {
    return await cx.error(msg.request_id, "invalid_request", notRecordedReason(cx.config));
  }
  let cwd = msg.cwd;
  if (cwd !== undefined) {
    if (!cwd.startsWith("/")) {
      return await cx.error(
        msg.request_id,
        "invalid_request",
        `cwd must be an absolute path, got ${quoteInput(cwd)}`,
      );
    }
    // Sessions of a directory that is gone are still listed by the path they recorded.
    const given = cwd;
    cwd = await Deno.realPath(given).catch(() => given);
  }
  let list;
  try {
    list = await store.list({ cwd, limit: msg.limit ?? DEFAULT_SESSION_LIST_LIMIT });
  } catch (e) {
    return await cx.error(
      msg.request_id,
      "invalid_request",
      `cannot list sessions: ${errorText(e)}`,
    );
  }
  const sessions: SessionSummary[] = list.sessions;
  const frame = (n: number): EventOf<"session.list"> => ({
    type: "session.list",
    request_id: msg.request_id,
    sessions: sessions.slice(0, n),
    truncated: list.matched > n,
  });
  const n = fittingCount(frame, sessions.length, cx.config.max_server_frame_bytes);
  await cx.send<"session.list">(frame(n));
}
