/**
 * `session.rewind`: puts an idle session's files back as they were before a turn and/or drops
 * that turn and the later ones from the conversation (`server/core/rewind.ts`), and answers
 * `session.rewound` with what it did, the path lists cut to fit one frame.
 *
 * @module
 */
import type { ClientMessageOf } from "../../../protocol/schema.ts";
import { encodeFrame, FrameTooLargeError } from "../../../protocol/ndjson.ts";
import { RewindError, rewindSession } from "../../core/rewind.ts";
import type { ConnectionContext, Unsequenced } from "../context.ts";
import { idleSessionOf } from "../idle_session.ts";

/** Rewinds and answers; each refusal is an `error` saying why, with nothing changed. */
export async function sessionRewind(
  msg: ClientMessageOf<"session.rewind">,
  cx: ConnectionContext,
): Promise<void> {
  const session = await idleSessionOf(msg, cx, "rewind");
  if (!session) return;
  let result;
  try {
    result = await rewindSession(session, {
      turnId: msg.turn_id,
      files: msg.files,
      conversation: msg.conversation,
      ...(msg.dry_run ? { dryRun: true } : {}),
    });
  } catch (e) {
    if (!(e instanceof RewindError)) throw e;
    return await cx.error(msg.request_id, e.code, e.message);
  }
  const { restored, removed } = result;
  const body = (r: number, d: number): Unsequenced<"session.rewound"> => ({
    type: "session.rewound",
    request_id: msg.request_id,
    session_id: session.id,
    turn_id: msg.turn_id,
    restored: restored.slice(0, r),
    removed: removed.slice(0, d),
    conversation_turns_removed: result.conversationTurnsRemoved,
    ...(r < restored.length || d < removed.length
      ? { truncated: true, restored_count: restored.length, removed_count: removed.length }
      : {}),
    ...(msg.dry_run ? { dry_run: true } : {}),
  });
  // The seq is not known yet: room is kept for the largest.
  const fits = (r: number, d: number) => {
    try {
      encodeFrame(
        { ...body(r, d), seq: Number.MAX_SAFE_INTEGER },
        cx.config.max_server_frame_bytes,
      );
      return true;
    } catch (e) {
      if (e instanceof FrameTooLargeError) return false;
      throw e;
    }
  };
  let r = restored.length;
  let d = removed.length;
  // Halving keeps this to a few dozen encodes for any list.
  while (!fits(r, d) && (r > 0 || d > 0)) {
    if (r >= d) r = Math.floor(r / 2);
    else d = Math.floor(d / 2);
  }
  await cx.sendSession<"session.rewound">(body(r, d), session);
}
