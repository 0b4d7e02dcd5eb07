/**
 * Where a turn meets its session's checkpoints (`server/checkpoints/`): when it begins (so the
 * conversation can be rewound to it), before its first call that may change files (a risk other
 * than `read`: a file tool's write, `bash`, an MCP tool), and when it ends. A checkpoint that
 * fails never fails the turn: it becomes a `turn.notice` (for clients that asked for notices).
 *
 * @module
 */
import type { Risk } from "../../protocol/constants.ts";
import { errorText } from "../error_text.ts";
import type { Turn } from "./turn.ts";

/** Sends the notices, when the front-end shows notices. */
async function tell(turn: Turn, notices: readonly string[], show: boolean | undefined) {
  if (!show) return;
  for (const message of notices) await turn.emit("turn.notice", { message }).catch(() => {});
}

/** The turn began (its prompt is in the history). */
export async function checkpointTurnStart(turn: Turn, notices?: boolean): Promise<void> {
  const cp = turn.session.checkpoints;
  if (!cp) return;
  try {
    await cp.turnStarted({
      id: turn.id,
      prompt: turn.prompt,
      start: turn.start,
      compacted: turn.session.compactedMessages,
    });
  } catch (e) {
    await tell(turn, [`checkpoint: cannot record the turn: ${errorText(e)}`], notices);
  }
}

/**
 * A call that may change files was proposed and nothing else runs before it (no hook): the
 * turn's first such call starts its snapshot now, beside the call's preparation;
 * {@link checkpointBeforeCall} with `ahead` takes it, and {@link checkpointDropAhead} stops it
 * when the call does not run.
 */
export function checkpointAhead(turn: Turn, signal: AbortSignal): void {
  turn.session.checkpoints?.beforeAhead(turn.id, signal);
}

/** The call {@link checkpointAhead} was started for did not run (or ran): its snapshot stops. */
export function checkpointDropAhead(turn: Turn): Promise<void> {
  return turn.session.checkpoints?.dropAhead(turn.id) ?? Promise.resolve();
}

/**
 * A call of `risk` is about to run: the turn's first such call snapshots the workspace first
 * (`ahead`: takes the snapshot {@link checkpointAhead} started for this call).
 * Rejects only when `signal` aborts (the turn is being cancelled).
 */
export async function checkpointBeforeCall(
  turn: Turn,
  risk: Risk,
  signal: AbortSignal,
  notices?: boolean,
  ahead = false,
): Promise<void> {
  const cp = turn.session.checkpoints;
  // A network call (web_fetch) changes no file either.
  if (!cp || risk === "read" || risk === "network") return;
  let said: string[];
  try {
    said = await cp.beforeChange(turn.id, signal, ahead);
  } catch (e) {
    signal.throwIfAborted();
    said = [`checkpoint skipped: ${errorText(e)}`];
  }
  await tell(turn, said, notices);
}

/**
 * The turn's calls have ended and its next request is about to go out: the closing snapshot
 * starts beside it (the model's answer changes no file), and is taken over by
 * {@link checkpointTurnEnd} unless a call that may change files comes first.
 */
export function checkpointCallsEnded(turn: Turn): void {
  turn.session.checkpoints?.callsEnded(turn.id);
}

/** The turn is about to end: its closing snapshot, when it took one before a change. */
export async function checkpointTurnEnd(turn: Turn, notices?: boolean): Promise<void> {
  const cp = turn.session.checkpoints;
  if (!cp) return;
  let said: string[];
  try {
    said = await cp.turnEnded(turn.id);
  } catch (e) {
    said = [`checkpoint at the end of the turn skipped: ${errorText(e)}`];
  }
  await tell(turn, said, notices);
}
