/**
 * Rewinding an idle session to before one of its turns, for every face: the files (through the
 * session's checkpoints, the rewind itself undoable) and/or the conversation (that turn and all
 * later ones dropped from the history, and so from the record and the next provider request).
 * Every check is made before anything changes.
 *
 * @module
 */
import { errorText } from "../error_text.ts";
import type { Session } from "./session.ts";

/** What to rewind. */
export interface RewindRequest {
  turnId: string;
  files: boolean;
  conversation: boolean;
  /** Say what `files` would do; change nothing. */
  dryRun?: boolean;
}

/** What a rewind did (or, dry, would do). */
export interface RewindResult {
  restored: string[];
  removed: string[];
  conversationTurnsRemoved: number;
}

/** A rewind that cannot be done, with the error code a face answers with. */
export class RewindError extends Error {
  /** Builds the error; `message` is user-facing. */
  constructor(readonly code: "invalid_request" | "turn_active", message: string) {
    super(message);
    this.name = "RewindError";
  }
}

/** Rewinds `session`; rejects with a {@link RewindError} saying why it cannot. */
export async function rewindSession(session: Session, req: RewindRequest): Promise<RewindResult> {
  if (session.turn) {
    // A turn's processes (bash and its children) run only inside the turn.
    throw new RewindError(
      "turn_active",
      `cannot rewind while turn "${session.turn.id}" and its processes are running`,
    );
  }
  const cp = session.checkpoints;
  if (!cp) throw new RewindError("invalid_request", "checkpoints are off for this session");
  if (!req.files && !req.conversation) {
    throw new RewindError("invalid_request", "nothing to rewind: files and conversation are false");
  }
  const found = await cp.find(req.turnId);
  if (!found) {
    throw new RewindError(
      "invalid_request",
      `turn "${req.turnId}" has no checkpoint in this session`,
    );
  }
  let cut: { at: number; turns: string[] } | undefined;
  if (req.conversation) {
    const c = await cp.conversationCut(req.turnId, session);
    if (typeof c === "string") throw new RewindError("invalid_request", c);
    cut = c;
  }
  if (req.dryRun) {
    const plan = req.files
      ? await files(() => cp.rewindFiles(req.turnId, { dryRun: true }))
      : { restored: [], removed: [] };
    return { ...plan, conversationTurnsRemoved: cut?.turns.length ?? 0 };
  }
  let done = { restored: [] as string[], removed: [] as string[] };
  if (req.files) {
    done = await files(() =>
      cp.rewindFiles(req.turnId, {
        drop: cut !== undefined,
        start: cut?.at ?? session.history.length,
        compacted: session.compactedMessages,
      })
    );
  } else if (cut) {
    await cp.dropFrom(req.turnId);
  }
  if (cut) {
    session.history = session.history.slice(0, cut.at);
    await session.recorder?.checkpoint();
  }
  return { ...done, conversationTurnsRemoved: cut?.turns.length ?? 0 };
}

/** A files rewind, its refusals as {@link RewindError}s. */
async function files<T>(f: () => Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (e) {
    if (e instanceof RangeError) throw new RewindError("invalid_request", e.message);
    throw new RewindError("invalid_request", `cannot rewind the files: ${errorText(e)}`);
  }
}
