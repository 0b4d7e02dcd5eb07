/**
 * `session.compact`: compacts an idle session now (every turn but the last becomes one
 * compaction record) and answers `context.compacted` with the request's id and no `turn_id`.
 *
 * @module
 */
import type { ClientMessageOf } from "../../../protocol/schema.ts";
import type { ChatMessage } from "../../provider/types.ts";
import type { TokenCounter } from "../../context/tokens.ts";
import { planCompactNow } from "../../sessions/compact_now.ts";
import { utf8Length } from "../../utf8.ts";
import type { ConnectionContext } from "../context.ts";
import { idleSessionOf } from "../idle_session.ts";
import { sessionModel } from "../recording.ts";

const counters = new Map<string, Promise<TokenCounter>>();

/** The tokens of a history, counted as the context manager counts them. */
async function historyTokens(
  model: string,
  history: readonly ChatMessage[],
  provider: string,
): Promise<number> {
  const key = `${provider}\n${model}`;
  let counter = counters.get(key);
  if (!counter) {
    const { imageRuleOf, TokenCounter } = await import("../../context/tokens.ts");
    counter = TokenCounter.create(model, imageRuleOf(provider));
    counters.set(key, counter);
  }
  const c = await counter;
  let total = 0;
  for (const m of history) total += c.countMessage(m);
  return total;
}

/** Compacts; `turn_active` while a turn runs, `invalid_request` for oversized instructions. */
export async function sessionCompact(
  msg: ClientMessageOf<"session.compact">,
  cx: ConnectionContext,
): Promise<void> {
  const session = await idleSessionOf(msg, cx, "compact");
  if (!session) return;
  const { instructions } = msg;
  const max = cx.config.max_prompt_bytes;
  if (instructions !== undefined && utf8Length(instructions) > max) {
    return await cx.error(
      msg.request_id,
      "invalid_request",
      `instructions of ${utf8Length(instructions)} bytes exceed max_prompt_bytes (${max})`,
    );
  }
  const model = sessionModel(session, cx.config);
  const { provider } = cx.config;
  const before = await historyTokens(model, session.history, provider);
  const plan = planCompactNow(session.history, instructions);
  const after = plan ? await historyTokens(model, plan.history, provider) : before;
  if (plan) session.applyCut({ ...plan, newTurnStart: 0 });
  await cx.sendSession<"context.compacted">({
    type: "context.compacted",
    request_id: msg.request_id,
    session_id: session.id,
    before_tokens: before,
    after_tokens: after,
    removed_messages: plan?.removedMessages ?? 0,
  }, session);
  if (plan) await session.recorder?.checkpoint();
}
