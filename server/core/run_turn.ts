/**
 * The agent loop of one turn: provider calls up to `max_steps`, each tool call through the
 * approval flow, the context fitted before every call and the history trimmed after each step,
 * and exactly one terminal event, last. It knows no wire: events go out through the
 * {@link Turn}, whose sink the front-end provides.
 *
 * @module
 */
import { FrameTooLargeError } from "../../protocol/ndjson.ts";
import type { EventBody, ProgressEventType, TurnEnd } from "../../protocol/turn_events.ts";
import { errorText } from "../error_text.ts";
import {
  type AssistantMessage,
  type ChatMessage,
  ContextOverflowError,
  ProviderError,
  type ProviderEvent,
  type ProviderUsage,
} from "../provider/types.ts";
import { priceOf } from "../provider/pricing.ts";
import { MAX_JOINED_TEXT_CHARS } from "../provider/join_text.ts";
import type { Turn } from "./turn.ts";
import { TurnFailure } from "./turn_failure.ts";
import type { AgentDeps } from "./deps.ts";
import { runToolCall } from "./tool_call.ts";
import { promptForPolicy, withoutToolGuidance } from "./prompt.ts";
import {
  checkpointCallsEnded,
  checkpointTurnEnd,
  checkpointTurnStart,
} from "./checkpoint_hooks.ts";
import { truncateText } from "../tools/output.ts";
import type { HookOutcome } from "../hooks/outcome.ts";
import { hooksOf, promptHooks, stopHooks, takeSessionStart } from "./hook_points.ts";

/**
 * Runs one turn to its terminal event and resolves with it. Every outcome is an event: this
 * rejects only when the turn's end observer throws (after the terminal event went out).
 */
export async function runTurn(turn: Turn, deps: AgentDeps): Promise<TurnEnd> {
  const { config, signal } = deps;
  const hooks = hooksOf(config);
  let end: TurnEnd;
  try {
    // Not interruptible: a turn that was accepted always shows its start before its end.
    await turn.emit("turn.started", {});
    // The prompt's hooks run before it joins the history: one that blocks keeps it out.
    const before = hooks ? await beforePrompt(turn, deps) : {};
    if (before.block !== undefined || before.stop) {
      return await finishWith(turn, { type: "turn.completed", steps: 0 });
    }
    turn.begin();
    await checkpointTurnStart(turn, deps.notices);
    if (before.context !== undefined) turn.append(hookContext(before.context));
    // The history bound applies to the prompt as soon as it is part of the history.
    await trim(turn, turn.start, deps);
    await learnServerWindow(turn, deps);
    let stopHookActive = false;
    while (true) {
      if (turn.steps >= config.max_steps) {
        throw new TurnFailure("step_limit", `agent reached ${config.max_steps} steps`);
      }
      signal.throwIfAborted();
      // The safe point (scv 0.3): every proposed call has ended and no request is out, so
      // waiting steers enter the conversation here, before the next provider request.
      await takeSteers(turn, signal);
      const notes = await deps.prepareTools?.(signal);
      if (notes && deps.notices) {
        for (const message of notes) {
          await emitBounded(turn, "turn.notice", { message }, "notice", signal);
        }
      }
      turn.countStep();
      const response = await callFitted(turn, deps);
      const calls = response.message.tool_calls ?? [];
      turn.append(response.message);
      if (calls.length === 0) {
        // A steer that came while the model was finishing gets one more request: never lost.
        if (turn.session.inbox.hasSteers(turn.id)) continue;
        // The bound holds between turns too, not only from the next turn's start. The answered
        // turn is history now: it may go like any earlier turn, so this never fails the turn.
        await trim(turn, turn.session.history.length, deps);
        const stop = await stopHooks(
          hooks,
          turn.session,
          config,
          stopHookActive,
          response.content,
          signal,
        );
        await hookNotices(turn, stop, deps);
        if (stop?.block === undefined || stop.stop) {
          // A steer that came meanwhile still gets its request, unless a hook stops the turn.
          if (!stop?.stop && turn.session.inbox.hasSteers(turn.id)) continue;
          // The turn is ending: a steer from now on is refused, not left waiting.
          turn.session.inbox.closeTurn(turn.id);
          break;
        }
        // A Stop hook that blocks keeps the turn going with its reason for the model.
        stopHookActive = true;
        turn.append({ role: "user", content: `Stop hook feedback:\n${stop.block}` });
        continue;
      }
      for (const call of calls) {
        signal.throwIfAborted();
        const result = await runToolCall(turn, call, deps);
        turn.append(
          result.images?.length
            ? { role: "tool", tool_call_id: call.id, content: result.output, images: result.images }
            : { role: "tool", tool_call_id: call.id, content: result.output },
        );
        if (turn.stopRequested !== undefined) break;
      }
      if (turn.stopRequested !== undefined) {
        // The calls after the one whose hook stopped the turn did not run: say so.
        turn.repairHistory();
        break;
      }
      // A hook (Stop, PreToolUse, ...) may change files at any point: with hooks, the closing
      // snapshot waits for the turn's end.
      if (!hooks) checkpointCallsEnded(turn);
      await trim(turn, turn.start, deps);
    }
    if (turn.stopRequested !== undefined && deps.notices) {
      const message = `A hook ended the turn: ${turn.stopRequested}`;
      await emitBounded(turn, "turn.notice", { message }, "notice", signal);
    }
    const usage = turn.usage;
    // scv's own count, for a client whose provider reports no usage (the status line's figure).
    const counted = deps.context.count?.(turn.session.history, {
      systemPrompt: deps.systemPrompt,
      tools: deps.tools.specs(),
    });
    const cost = turn.costUsd;
    end = {
      type: "turn.completed",
      steps: turn.steps,
      ...(usage ? { usage } : {}),
      ...(counted !== undefined ? { context_tokens: counted } : {}),
      ...(cost !== undefined ? { cost_usd: cost } : {}),
    };
  } catch (e) {
    turn.repairHistory();
    end = signal.aborted ? { type: "turn.cancelled" } : {
      type: "turn.failed",
      ...(e instanceof TurnFailure
        ? { code: e.code, message: e.message }
        : { code: "internal_error", message: errorText(e) }),
    };
  }
  // Bounded in time like every snapshot, and taken for a cancelled or failed turn too.
  await checkpointTurnEnd(turn, deps.notices);
  return await finishWith(turn, end);
}

async function finishWith(turn: Turn, end: TurnEnd): Promise<TurnEnd> {
  await turn.finish(end);
  return turn.end ?? end;
}

/**
 * Takes the context window the provider's server reports (asked once, in the background, by
 * the front-end's dependencies), saying so when it caps `context_max_tokens`.
 */
async function learnServerWindow(turn: Turn, deps: AgentDeps): Promise<void> {
  if (!deps.serverWindow) return;
  const { signal } = deps;
  // The question is bounded in time itself; a cancel ends the wait for it.
  const found = await Promise.race([
    deps.serverWindow(),
    new Promise<never>((_, reject) => {
      if (signal.aborted) reject(signal.reason);
      signal.addEventListener("abort", () => reject(signal.reason), { once: true });
    }),
  ]);
  const notice = found ? deps.context.learnWindow(found.tokens, found.source) : undefined;
  if (notice && deps.notices) {
    await emitBounded(turn, "turn.notice", { message: notice }, "notice", signal);
  }
}

/** Appends each waiting steer as a user message and tells the client with `user.steered`. */
async function takeSteers(turn: Turn, signal: AbortSignal): Promise<void> {
  const steers = turn.session.inbox.takeSteers(turn.id);
  if (steers.length === 0) return;
  // The client hears a steer was accepted before it hears it entered.
  await Promise.all(steers.map((s) => s.announced.catch(() => {})));
  // All enter the history first: a cancel while their events go out loses none of them.
  for (const steer of steers) {
    turn.append(
      steer.images?.length
        ? { role: "user", content: steer.prompt, images: [...steer.images] }
        : { role: "user", content: steer.prompt },
    );
  }
  for (const steer of steers) {
    await emitBounded(
      turn,
      "user.steered",
      {
        content: steer.prompt,
        steer_request_id: steer.requestId,
        ...(steer.images?.length ? { images: steer.images.map((i) => i.name) } : {}),
      },
      "steer",
      signal,
    );
  }
}

/** Hook context as the message the model reads it in, after the prompt. */
function hookContext(context: string): ChatMessage {
  return { role: "user", content: `<hook-context>\n${context}\n</hook-context>` };
}

/** Sends a hook outcome's notices, to a client that takes them. */
async function hookNotices(
  turn: Turn,
  outcome: HookOutcome | undefined,
  deps: AgentDeps,
): Promise<void> {
  if (!deps.notices || !outcome?.notices) return;
  for (const message of outcome.notices) {
    const body = { message: truncateText(message, turn.fieldBudget).text };
    await emitBounded(turn, "turn.notice", body, "notice", deps.signal);
  }
}

/**
 * The next provider call with the context fitted. An answer that the prompt overflows the
 * provider's window (a local server's, typically) is the one 400 retried: once, after
 * compacting to the window it named; a second overflow fails the turn with `context_limit`.
 */
async function callFitted(turn: Turn, deps: AgentDeps): Promise<StepResponse> {
  for (let attempt = 1;; attempt++) {
    const messages = await fit(turn, deps);
    // A cancellation during fitting makes no provider call.
    deps.signal.throwIfAborted();
    try {
      return await callProvider(turn, messages, deps);
    } catch (e) {
      if (!(e instanceof ContextOverflowError)) throw e;
      if (attempt > 1) {
        throw new TurnFailure(
          "context_limit",
          `the prompt still does not fit the provider's context window after compacting: ` +
            e.message,
        );
      }
      await deps.context.overflowed(messages, {
        ...(e.window !== undefined ? { window: e.window } : {}),
        ...(e.promptTokens !== undefined ? { promptTokens: e.promptTokens } : {}),
      });
      if (deps.notices) {
        const message = `The provider's context window is full (${e.message}); ` +
          `compacting to ${deps.context.window} tokens and trying again`;
        await emitBounded(turn, "turn.notice", { message }, "notice", deps.signal);
      }
    }
  }
}

/** Whether the provider takes tools for the configured model (it may have refused them). */
function toolsTaken(deps: AgentDeps): boolean {
  return deps.provider.acceptsTools?.(deps.config.model) ?? true;
}

/**
 * The session's `SessionStart` outcome (on its first turn) and the prompt's `UserPromptSubmit`
 * hooks: notices sent, contexts joined; a block or stop of the prompt's hooks says the prompt
 * goes no further.
 */
async function beforePrompt(turn: Turn, deps: AgentDeps): Promise<HookOutcome> {
  const { signal, config } = deps;
  const start = await takeSessionStart(turn.session, signal);
  await hookNotices(turn, start, deps);
  const prompt = await promptHooks(hooksOf(config), turn.session, config, turn.prompt, signal);
  signal.throwIfAborted();
  await hookNotices(turn, prompt, deps);
  if (prompt?.stop && deps.notices) {
    const message = `A hook ended the turn: ${prompt.stop.reason}`;
    await emitBounded(turn, "turn.notice", { message }, "notice", signal);
  }
  const contexts = [start?.context, prompt?.context].filter((c) => c !== undefined);
  return {
    ...(prompt?.block !== undefined ? { block: prompt.block } : {}),
    ...(prompt?.stop ? { stop: prompt.stop } : {}),
    ...(contexts.length > 0 ? { context: contexts.join("\n") } : {}),
  };
}

/** The messages of the next provider call, after compacting the history when it must be. */
async function fit(turn: Turn, deps: AgentDeps): Promise<ChatMessage[]> {
  const tools = toolsTaken(deps);
  const plan = await deps.context.fit(turn.session.history, {
    turnStart: turn.start,
    // A server that refused tools gets a prompt that does not ask the model to use them; plan
    // mode is said at every call (the policy may change mid-turn).
    systemPrompt: promptForPolicy(
      tools ? deps.systemPrompt : withoutToolGuidance(deps.systemPrompt),
      deps.config.approval_policy,
    ),
    tools: tools ? deps.tools.specs() : [],
  });
  if (plan.kind === "context_limit") throw new TurnFailure("context_limit", plan.message);
  if (plan.tight && deps.notices) {
    const { promptTokens, answerRoom, estimated } = plan.tight;
    const message = `The current turn takes about ${promptTokens} of the ` +
      `${deps.context.window} tokens of context${estimated ? " by scv's estimate" : ""}, ` +
      `leaving ${answerRoom} for the answer (less than the usual fifth)` +
      (plan.kind === "compacted" ? "; earlier turns are compacted away" : "") +
      (estimated ? "; the estimate errs high, so the provider's answer decides" : "");
    await emitBounded(turn, "turn.notice", { message }, "notice", deps.signal);
  }
  if (plan.kind === "compacted") {
    turn.applyCut(plan);
    await turn.emit("context.compacted", {
      before_tokens: plan.beforeTokens,
      after_tokens: plan.afterTokens,
      removed_messages: plan.removedMessages,
    }, deps.signal);
  }
  return plan.messages;
}

/** Trims the history to `max_history_bytes`, keeping everything from `keepFrom` on. */
async function trim(turn: Turn, keepFrom: number, deps: AgentDeps): Promise<void> {
  const plan = deps.context.trim(turn.session.history, keepFrom);
  if (plan.kind === "fits") return;
  if (plan.kind === "history_limit") throw new TurnFailure("history_limit", plan.message);
  turn.applyCut(plan);
  await turn.emit("session.trimmed", {
    removed_messages: plan.removedMessages,
    history_bytes: plan.historyBytes,
  }, deps.signal);
}

/** What a delta or a completed message that does not fit a frame fails the turn with. */
function responseLimit(e: unknown, what: string): unknown {
  if (!(e instanceof FrameTooLargeError)) return e;
  return new TurnFailure(
    "response_limit",
    `${what} of ${e.bytes} bytes does not fit max_server_frame_bytes (${e.limit})`,
  );
}

/** One provider call's outcome, as the loop uses it. */
interface StepResponse {
  content: string;
  message: AssistantMessage;
  usage?: ProviderUsage;
}

/** Sends one turn event, failing the turn with `response_limit` when it cannot fit a frame. */
async function emitBounded<T extends ProgressEventType>(
  turn: Turn,
  type: T,
  body: EventBody<T>,
  what: string,
  signal: AbortSignal,
): Promise<void> {
  try {
    await turn.emit(type, body, signal);
  } catch (e) {
    throw responseLimit(e, what);
  }
}

/** Passes a streamed provider event on to the client, when the client wants that kind. */
async function relay(turn: Turn, ev: ProviderEvent, deps: AgentDeps): Promise<void> {
  const { signal } = deps;
  if (ev.type === "text") {
    await emitBounded(turn, "assistant.delta", { content: ev.text }, "assistant delta", signal);
  } else if (ev.type === "reasoning" && deps.reasoning) {
    const body = { content: ev.text };
    await emitBounded(turn, "assistant.reasoning.delta", body, "reasoning delta", signal);
  } else if (ev.type === "notice" && deps.notices) {
    await emitBounded(turn, "turn.notice", { message: ev.message }, "notice", signal);
  }
}

/** One provider call: its text streamed as deltas, its usage counted, its message completed. */
async function callProvider(
  turn: Turn,
  messages: ChatMessage[],
  deps: AgentDeps,
): Promise<StepResponse> {
  const { signal } = deps;
  let response: StepResponse | undefined;
  let content = "";
  let usage: ProviderUsage | undefined;
  try {
    const events = deps.provider.stream({
      model: deps.config.model,
      messages,
      tools: deps.tools.specs(),
      contextWindow: deps.context.window,
      signal,
      // Joined text stays within a delta's frame: a code unit is at most 6 bytes of JSON.
      joinTextChars: Math.min(MAX_JOINED_TEXT_CHARS, Math.floor(turn.fieldBudget / 6)),
    });
    for await (const ev of events) {
      if (ev.type === "text") content += ev.text;
      if (ev.type === "usage") usage = ev.usage; // the latest report is the call's
      else if (ev.type === "done") {
        response = { content, message: ev.message, ...(usage ? { usage } : {}) };
      } else await relay(turn, ev, deps);
    }
  } catch (e) {
    if (e instanceof ContextOverflowError) throw e; // callFitted compacts and retries
    if (e instanceof ProviderError) throw new TurnFailure(e.code, e.message);
    throw e;
  }
  if (!response) {
    throw new TurnFailure("provider_error", "Provider stream ended without a final message");
  }
  if (response.usage) {
    turn.addUsage(response.usage, priceOf(deps.config.pricing, deps.config.model));
    if (response.usage.prompt_tokens !== undefined) {
      deps.context.calibrate(messages, response.usage.prompt_tokens);
    }
  }
  const completed = { content: response.content };
  await emitBounded(turn, "assistant.completed", completed, "assistant message", signal);
  return response;
}
