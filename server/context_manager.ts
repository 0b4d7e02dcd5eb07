/**
 * Keeps a session's context in bounds: before each provider call the prompt is compacted to fit
 * `context_max_tokens` (minus room for the answer), and after each step the canonical history
 * is trimmed to `max_history_bytes`. The pure planning lives in `context/`; this file applies
 * the plans to a session and emits their events.
 *
 * @module
 */
import type { Config } from "./config.ts";
import type { Session } from "./session.ts";
import type { ChatMessage } from "./provider/types.ts";
import { type TurnEmit, TurnFailure } from "./agent.ts";
import type { ToolRegistry } from "./tools/registry.ts";
import {
  planCompaction,
  REPLY_PRIMING_TOKENS,
  TokenCounter,
  type TokenizerName,
  trimHistory,
  usesO200k,
} from "./context/mod.ts";

/** Where the current turn begins in the history; moved when older messages are removed. */
export interface TurnCursor {
  start: number;
}

/** What the agent loop asks of context management. */
export interface ContextManager {
  /** The messages of the next provider call, compacting the history first when needed. */
  fit(
    session: Session,
    turn: TurnCursor,
    deps: { systemPrompt: string; tools: ToolRegistry },
    emit: TurnEmit,
    signal: AbortSignal,
  ): Promise<ChatMessage[]>;
  /** Trims the history to `max_history_bytes`, emitting `session.trimmed`. */
  trim(session: Session, turn: TurnCursor, emit: TurnEmit, signal: AbortSignal): Promise<void>;
  /** Feeds a provider's reported prompt size for `messages` back into the estimate. */
  calibrate(messages: ChatMessage[], promptTokens: number): void;
  /** Settled: the tokenizer loads on first need, inside `fit`. */
  readonly ready: Promise<void>;
  /** What the last `fit` counted with: `"upper_bound"` until the real tokenizer was needed. */
  readonly tokenizer: TokenizerName | undefined;
}

/**
 * Tokens kept free for the model's answer: a fifth of the window, at most 8,192. Compaction
 * starts when the prompt would pass the rest, and goes down to three quarters of it.
 */
export function answerReserve(contextMaxTokens: number): number {
  return Math.min(8192, Math.floor(contextMaxTokens / 5));
}

/** The most tokens a prompt may take: the window less {@link answerReserve}. */
function maxPromptTokens(config: Config): number {
  return config.context_max_tokens - answerReserve(config.context_max_tokens);
}

/**
 * Builds the context manager for a configuration. The `o200k_base` tokenizer is loaded only
 * when a prompt's upper bound (see `TokenCounter.upperBound`) does not fit: a short session never
 * pays its ~100 ms and ~60 MB.
 */
export function createContextManager(config: Config): ContextManager {
  const bound = usesO200k(config.model) ? TokenCounter.upperBound(config.model) : undefined;
  let counter: TokenCounter | undefined; // the real one (or the estimate), once loaded
  let loading: Promise<TokenCounter> | undefined;
  let systemMessage: ChatMessage = { role: "system", content: "" };
  const estimates = new WeakMap<ChatMessage[], number>();
  // Prompts planned with the bound have no real estimate; the newest one's reported size
  // calibrates the real counter when it loads.
  const boundPlans = new WeakSet<ChatMessage[]>();
  let pending: { messages: ChatMessage[]; promptTokens: number } | undefined;
  let used: TokenCounter | undefined;

  const planWith = (c: TokenCounter, session: Session, turn: TurnCursor, tools: ToolRegistry) =>
    planCompaction(session.history, {
      turnStart: turn.start,
      countMessage: c.countMessage,
      fixedTokens: c.countMessage(systemMessage) + c.countTools(tools.specs()) +
        REPLY_PRIMING_TOKENS,
      maxTokens: Math.max(1, maxPromptTokens(config)),
    });
  const load = async (tools: ToolRegistry): Promise<TokenCounter> => {
    const c = await (loading ??= TokenCounter.create(config.model));
    if (counter === undefined) {
      counter = c;
      if (pending) {
        const { messages, promptTokens } = pending;
        pending = undefined;
        c.calibrate(c.countPrompt(messages, 0, c.countTools(tools.specs())), promptTokens);
      }
    }
    return c;
  };

  return {
    ready: Promise.resolve(),
    get tokenizer() {
      return used?.tokenizer;
    },
    async fit(session, turn, deps, emit, signal) {
      if (systemMessage.content !== deps.systemPrompt) {
        systemMessage = { role: "system", content: deps.systemPrompt };
      }
      let c = counter ?? bound ?? await load(deps.tools);
      let plan = planWith(c, session, turn, deps.tools);
      if (c === bound && plan.kind !== "fits") {
        c = await load(deps.tools);
        signal.throwIfAborted();
        plan = planWith(c, session, turn, deps.tools);
      }
      used = c;
      if (plan.kind === "context_limit") {
        const maxTokens = maxPromptTokens(config);
        throw new TurnFailure(
          "context_limit",
          `the current turn needs about ${plan.minTokens} tokens of context, more than the ${maxTokens} ` +
            `available (context_max_tokens ${config.context_max_tokens} less room for the answer)`,
        );
      }
      if (plan.kind === "compacted") {
        dropOldest(session, turn, plan);
        await emit({
          type: "context.compacted",
          before_tokens: plan.beforeTokens,
          after_tokens: plan.afterTokens,
          removed_messages: plan.removedMessages,
        }, signal);
      }
      const messages = [systemMessage, ...session.history];
      // The plan already counted this prompt; calibration compares it with the reported size.
      if (c === bound) boundPlans.add(messages);
      else estimates.set(messages, plan.kind === "fits" ? plan.tokens : plan.afterTokens);
      return messages;
    },

    async trim(session, turn, emit, signal) {
      const r = trimHistory(session.history, {
        turnStart: turn.start,
        maxBytes: config.max_history_bytes,
      });
      if (r.kind === "fits") return;
      if (r.kind === "history_limit") {
        throw new TurnFailure(
          "history_limit",
          `the current turn's messages take ${r.minBytes} bytes, more than max_history_bytes ` +
            `(${config.max_history_bytes})`,
        );
      }
      dropOldest(session, turn, r);
      await emit({
        type: "session.trimmed",
        removed_messages: r.removedMessages,
        history_bytes: r.historyBytes,
      }, signal);
    },

    calibrate(messages, promptTokens) {
      const estimate = estimates.get(messages);
      if (estimate !== undefined) counter?.calibrate(estimate, promptTokens);
      else if (boundPlans.has(messages)) pending = { messages, promptTokens };
    },
  };
}

/** Puts a shortened history in place, for compaction and trimming alike. */
function dropOldest(
  session: Session,
  turn: TurnCursor,
  cut: { history: ChatMessage[]; newTurnStart: number; removedMessages: number },
): void {
  session.history = cut.history;
  turn.start = cut.newTurnStart;
  session.compactedMessages += cut.removedMessages;
}
