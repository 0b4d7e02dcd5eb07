/**
 * `turn.start`: checks the prompt and the session, then runs the turn as its own task (the
 * input loop never waits for it) with the Peon sink and approvals. With `queue` (scv 0.3) on a
 * busy session the prompt waits in the session's inbox instead, and each turn that ends starts
 * the next queued one.
 *
 * @module
 */
import type { ClientMessageOf } from "../../../protocol/schema.ts";
import { clip, errorText } from "../../error_text.ts";
import { ProviderConfigError } from "../../provider/config_error.ts";
import type { ActiveTurn, Session } from "../../core/session.ts";
import type { ImagePart } from "../../images/image_part.ts";
import { Turn } from "../../core/turn.ts";
import { promptRefusal } from "../../core/prompt_bounds.ts";
import type { Queued } from "../../core/inbox.ts";
import { peonApprovals } from "../approvals.ts";
import type { ConnectionContext } from "../context.ts";
import { attachedImages } from "./attached_images.ts";
import { sessionConfig } from "../recording.ts";
import { turnEndOf } from "../../sessions/records.ts";

/** Why this `turn.start` cannot start a turn on the session, or undefined when it can. */
function refusal(
  msg: ClientMessageOf<"turn.start">,
  session: Session,
  cx: ConnectionContext,
): { code: "invalid_request" | "turn_active"; message: string } | undefined {
  const bad = promptRefusal(msg.prompt, cx.config.max_prompt_bytes);
  if (bad !== undefined) return { code: "invalid_request", message: bad };
  if (session.turn && !msg.queue) {
    return {
      code: "turn_active",
      message: `session "${session.id}" is already running turn "${session.turn.id}"`,
    };
  }
  return undefined;
}

/**
 * Starts a turn, or queues it behind the active one; its events and its one terminal event
 * follow from its own task.
 */
export async function turnStart(
  msg: ClientMessageOf<"turn.start">,
  cx: ConnectionContext,
): Promise<void> {
  const session = await cx.sessionOf(msg);
  if (!session) return;
  const refused = refusal(msg, session, cx);
  if (refused) return await cx.error(msg.request_id, refused.code, refused.message);
  const loaded = await attachedImages(msg.attachments, session.cwd, cx);
  if (!loaded.ok) return await cx.error(msg.request_id, "invalid_request", loaded.message);
  // Another turn may have started while the files were read.
  if (session.turn) {
    const again = refusal(msg, session, cx);
    if (again) return await cx.error(msg.request_id, again.code, again.message);
  }
  const images = loaded.images;
  const maxFrameBytes = cx.config.max_server_frame_bytes;
  const turnId = crypto.randomUUID();
  const envelope = { request_id: msg.request_id, session_id: session.id, turn_id: turnId };
  if (!Turn.canEnd(envelope, maxFrameBytes)) {
    return await cx.error(
      msg.request_id,
      "invalid_request",
      `this turn's events would not fit max_server_frame_bytes (${maxFrameBytes}) with this ` +
        `request_id`,
    );
  }
  if (session.turn) return await enqueue(msg, images, session, cx);
  startTurn(session, { requestId: msg.request_id, prompt: msg.prompt, images }, turnId, cx);
}

/** Queues the prompt behind the active turn and answers `turn.queued` once it is recorded. */
async function enqueue(
  msg: ClientMessageOf<"turn.start">,
  images: ImagePart[],
  session: Session,
  cx: ConnectionContext,
): Promise<void> {
  const accepted = session.inbox.enqueue(msg.request_id, msg.prompt, images);
  if (!accepted.ok) return await cx.error(msg.request_id, "invalid_request", accepted.message);
  accepted.entry.announced = (async () => {
    await accepted.recorded;
    await cx.send<"turn.queued">({
      type: "turn.queued",
      request_id: msg.request_id,
      session_id: session.id,
      position: accepted.position,
    });
  })();
  await accepted.entry.announced;
}

/**
 * Runs a turn on an idle session as its own task; when it ends, the next queued prompt starts
 * (after its `turn.queued` went out), so the session is never idle while prompts wait.
 */
function startTurn(
  session: Session,
  start: Pick<Queued, "requestId" | "prompt" | "images">,
  turnId: string,
  cx: ConnectionContext,
  announced: Promise<void> = Promise.resolve(),
): void {
  const { requestId } = start;
  const maxFrameBytes = cx.config.max_server_frame_bytes;
  const writer = cx.writer;
  const turn = new Turn({
    session,
    requestId: start.requestId,
    prompt: start.prompt,
    ...(start.images ? { images: start.images } : {}),
    id: turnId,
    maxFrameBytes,
    onEnd: async (end, t) => {
      // On disk (fdatasync) before the client hears the turn ended.
      await session.recorder?.endTurn(turnEndOf(end), session.seq.peek());
      await cx.onTurnEnd?.(end, t);
    },
    sink: async (event, signal) => {
      // Each completed step is recorded as the next event goes out.
      session.recorder?.observe(event);
      await writer.send(event, signal ? { signal } : {});
    },
  });
  const active: ActiveTurn = {
    id: turnId,
    requestId,
    controller: new AbortController(),
    done: Promise.resolve(),
  };
  session.turn = active;
  active.done = (async () => {
    try {
      // A queued prompt's turn.queued goes out before its turn.started.
      await announced.catch(() => {});
      await runPeonTurn(turn, active.controller.signal, cx);
    } catch (e) {
      cx.log(`scv-server: turn ${turnId} ended abnormally: ${errorText(e)}`);
    } finally {
      if (session.turn === active) session.turn = undefined;
      const next = session.turn ? undefined : session.inbox.nextQueued();
      if (next) {
        startTurn(session, next, crypto.randomUUID(), cx, next.announced);
      }
    }
  })();
  cx.track(active.done);
}

/** Loads what the turn needs and runs it; a failure to load still ends it with `turn.failed`. */
async function runPeonTurn(turn: Turn, signal: AbortSignal, cx: ConnectionContext): Promise<void> {
  let deps;
  let systemPrompt;
  try {
    deps = await cx.deps();
    systemPrompt = await deps.systemPrompt(turn.session.cwd);
  } catch (e) {
    const message = `cannot start the turn: ${errorText(e)}`;
    cx.log(`scv-server: ${message}`);
    turn.begin();
    await turn.emit("turn.started", {});
    // A provider that cannot be built as configured is the provider's failure, not scv's.
    const code = e instanceof ProviderConfigError ? "provider_error" : "internal_error";
    await turn.finish({ type: "turn.failed", code, message: clip(message, 500) });
    return;
  }
  cx.tools = deps.tools;
  // The agent loop (and zod, through the tool schemas) loads with the first turn.
  const { runTurn } = await import("../../core/run_turn.ts");
  await runTurn(turn, {
    ...deps,
    // What session.configure chose for this session.
    config: sessionConfig(turn.session, deps.config),
    systemPrompt,
    approvals: peonApprovals(turn.session, turn),
    signal,
    // Reasoning and notices only for clients that asked for them in initialize.
    reasoning: cx.capabilities.reasoning === true,
    notices: cx.capabilities.notices === true,
  });
}
