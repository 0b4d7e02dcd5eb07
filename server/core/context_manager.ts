/**
 * Keeps a session's context in bounds: before each provider call the prompt is compacted to fit
 * `context_max_tokens` (minus room for the answer), and after each step the canonical history
 * is trimmed to `max_history_bytes`. The pure planning lives in `context/`; this file builds the
 * plans for a configuration. It changes nothing and emits nothing: the turn applies a plan and
 * reports it.
 *
 * @module
 */
import type { Config } from "../config.ts";
import type { ChatMessage, ToolSpec } from "../provider/types.ts";
import {
  type CompactionDone,
  imageRuleOf,
  planCompaction,
  REPLY_PRIMING_TOKENS,
  TokenCounter,
  type TokenizerName,
  type TrimDone,
  trimHistory,
  usesO200k,
} from "../context/mod.ts";

/** What the next provider call needs: its messages, and whether the history must shrink first. */
export type FitPlan =
  /** The history fits as it is. */
  | { kind: "fits"; messages: ChatMessage[]; tight?: TightFit }
  /** Put `history` in place (it is the prompt of `messages`) and report the compaction. */
  | (CompactionDone & { messages: ChatMessage[]; tight?: TightFit })
  /** The current turn alone is too large: the turn fails with `context_limit`. */
  | { kind: "context_limit"; message: string };

/**
 * A prompt that fits only by leaving the answer less than its usual reserve: the current turn
 * alone (system prompt, tools and the turn's messages) is larger than the window less
 * {@link answerReserve}, but not larger than the window less {@link minimumAnswerRoom} (by a
 * tokenizer's count) or than the window (by scv's estimate, which errs high: the provider's
 * answer decides).
 */
export interface TightFit {
  /** The prompt's tokens as counted. */
  promptTokens: number;
  /** The tokens the window leaves for the answer (by the count; 0 when it leaves none). */
  answerRoom: number;
  /** Whether the count is scv's estimate (which errs high), not a tokenizer's. */
  estimated: boolean;
}

/** Whether the history stays within `max_history_bytes`, and what to cut when it does not. */
export type TrimPlan =
  /** Nothing to do. */
  | { kind: "fits" }
  /** Put `history` in place and report `session.trimmed`. */
  | TrimDone
  /** The current turn alone is too large: the turn fails with `history_limit`. */
  | { kind: "history_limit"; message: string };

/** What the agent loop asks of context management; every answer is a plan, nothing is changed. */
export interface ContextManager {
  /** The messages of the next provider call, or the compaction to apply first. */
  fit(
    history: ChatMessage[],
    options: { turnStart: number; systemPrompt: string; tools: ToolSpec[] },
  ): Promise<FitPlan>;
  /** Whether `history` must be trimmed to `max_history_bytes`, and how. */
  trim(history: ChatMessage[], turnStart: number): TrimPlan;
  /**
   * scv 0.3: the tokens a prompt of `history` would take, counted as `fit` counts (calibrated by
   * what providers reported); undefined before the first `fit` loaded a counter. What the status
   * line shows when the provider reports no usage.
   */
  count?(
    history: ChatMessage[],
    options: { systemPrompt: string; tools: ToolSpec[] },
  ): number | undefined;
  /** Feeds a provider's reported prompt size for `messages` back into the estimate. */
  calibrate(messages: ChatMessage[], promptTokens: number): void;
  /** The window in force: the smaller of `context_max_tokens` and the provider's own. */
  readonly window: number;
  /**
   * Takes the window the provider reported (asked of the server, or named by an overflow
   * answer). Returns a notice for the user when it now caps `context_max_tokens`.
   */
  learnWindow(tokens: number, source: string): string | undefined;
  /**
   * After the provider refused `messages` as too large for its context: takes the window and
   * the prompt size its answer named (or, without them, its own count as too large), so the
   * next `fit` compacts to a prompt that fits.
   */
  overflowed(
    messages: ChatMessage[],
    overflow: { window?: number; promptTokens?: number },
  ): Promise<void>;
  /** Settled: the tokenizer loads on first need, inside `fit`. */
  readonly ready: Promise<void>;
  /** What the last `fit` counted with: `"upper_bound"` until the real tokenizer was needed. */
  readonly tokenizer: TokenizerName | undefined;
}

/**
 * Tokens kept free for the model's answer: a fifth of the window, at most 8,192. Compaction
 * starts when the prompt would pass the rest, and goes down to three quarters of it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { answerReserve } from "./context_manager.ts";
 * assert.equal(answerReserve(1000), 200);
 * assert.equal(answerReserve(128_000), 8192);
 * ```
 */
export function answerReserve(contextMaxTokens: number): number {
  return Math.min(8192, Math.floor(contextMaxTokens / 5));
}

/**
 * The least room for the answer a prompt may leave: a sixteenth of the window, at least 64 tokens
 * and at most {@link answerReserve}. A turn whose own messages leave less fails with
 * `context_limit`; one that leaves more but less than the reserve still goes, after everything
 * before it is compacted away. Small local windows (2,048 or 4,096 tokens, most of it taken by
 * the system prompt and the tools) would otherwise refuse prompts the server takes.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { minimumAnswerRoom } from "./context_manager.ts";
 * assert.equal(minimumAnswerRoom(2048), 128);
 * assert.equal(minimumAnswerRoom(128_000), 8000);
 * assert.equal(minimumAnswerRoom(200), 40);
 * ```
 */
export function minimumAnswerRoom(contextMaxTokens: number): number {
  return Math.min(answerReserve(contextMaxTokens), Math.max(64, Math.floor(contextMaxTokens / 16)));
}

/** Calibration ratios learnt per model in this process, so a new session starts from them. */
const RATIOS = new Map<string, number>();
/** Models whose ratio is kept, at most. */
const MAX_MODELS = 64;

/**
 * Builds the context manager for a configuration. The `o200k_base` tokenizer is loaded only
 * when a prompt's upper bound (see `TokenCounter.upperBound`) does not fit: a short session
 * never pays for it.
 */
export function createContextManager(
  config: Pick<Config, "model" | "context_max_tokens" | "max_history_bytes"> & {
    provider?: Config["provider"];
  },
): ContextManager {
  const imageRule = imageRuleOf(config.provider ?? "openai-chat");
  const bound = usesO200k(config.model)
    ? TokenCounter.upperBound(config.model, imageRule)
    : undefined;
  let counter: TokenCounter | undefined; // the real one (or the estimate), once loaded
  let loading: Promise<TokenCounter> | undefined;
  let used: TokenCounter | undefined;
  let systemMessage: ChatMessage = { role: "system", content: "" };
  const estimates = new WeakMap<ChatMessage[], number>();
  // Prompts planned with the bound have no real estimate; the newest one's reported size
  // calibrates the real counter when it loads.
  const boundPlans = new WeakMap<ChatMessage[], ToolSpec[]>();
  let pending: { messages: ChatMessage[]; promptTokens: number; tools: ToolSpec[] } | undefined;
  let window = config.context_max_tokens;
  const maxTokens = () => window - answerReserve(window);
  const plannedTools = new WeakMap<ChatMessage[], ToolSpec[]>();
  const keepRatio = (c: TokenCounter) => {
    if (c.tokenizer === "upper_bound") return;
    if (RATIOS.size >= MAX_MODELS && !RATIOS.has(config.model)) RATIOS.clear();
    RATIOS.set(config.model, c.ratio);
  };

  const planWith = (
    c: TokenCounter,
    history: ChatMessage[],
    turnStart: number,
    tools: ToolSpec[],
    max = maxTokens(),
  ) =>
    planCompaction(history, {
      turnStart,
      countMessage: c.countMessage,
      fixedTokens: c.countMessage(systemMessage) + c.countTools(tools) + REPLY_PRIMING_TOKENS,
      maxTokens: Math.max(1, max),
    });
  const load = async (): Promise<TokenCounter> => {
    const c = await (loading ??= TokenCounter.create(config.model, imageRule));
    if (counter === undefined) {
      counter = c;
      // What this process learnt of the model's tokenizer before: the estimate errs safe from
      // the first prompt of a new session on.
      const learnt = RATIOS.get(config.model);
      if (learnt !== undefined) c.restoreRatio(learnt);
      if (pending) {
        const { messages, promptTokens, tools } = pending;
        pending = undefined;
        c.calibrate(c.countPrompt(messages, 0, c.countTools(tools)), promptTokens);
      }
    }
    return c;
  };

  let windowSource: string | undefined;
  const windowText = () =>
    windowSource === undefined
      ? `context_max_tokens ${config.context_max_tokens}`
      : `the provider's window of ${window} tokens`;
  const learnWindow = (tokens: number, source: string): string | undefined => {
    if (!(Number.isSafeInteger(tokens) && tokens > 0)) return undefined;
    const next = Math.min(config.context_max_tokens, tokens);
    if (next >= window) return undefined;
    window = next;
    windowSource = source;
    return `The provider's context window is ${tokens} tokens (${source}): using it instead ` +
      `of context_max_tokens (${config.context_max_tokens}); ${answerReserve(window)} of them ` +
      `are kept for the answer`;
  };

  return {
    ready: Promise.resolve(),
    get window() {
      return window;
    },
    learnWindow,
    async overflowed(messages, overflow) {
      if (overflow.window !== undefined) {
        learnWindow(overflow.window, "named by its overflow answer");
      }
      const c = counter ?? await load();
      const tools = plannedTools.get(messages) ?? [];
      const estimate = c.countPrompt(messages, 0, c.countTools(tools));
      // The server's count of this prompt is at least what it named, or the window it refused
      // it for; without either, scv's own count was too large for the window in force.
      const reported = overflow.promptTokens ?? overflow.window;
      if (reported !== undefined) {
        c.calibrate(estimate, Math.max(reported, estimate + 1));
        keepRatio(c);
      } else {
        learnWindow(Math.max(1, Math.floor(estimate * 0.9)), "scv's count of a prompt it refused");
      }
    },
    get tokenizer() {
      return used?.tokenizer;
    },
    async fit(history, { turnStart, systemPrompt, tools }) {
      if (systemMessage.content !== systemPrompt) {
        systemMessage = { role: "system", content: systemPrompt };
      }
      let c = counter ?? bound ?? await load();
      let plan = planWith(c, history, turnStart, tools);
      if (c === bound && plan.kind !== "fits") {
        c = await load();
        plan = planWith(c, history, turnStart, tools);
      }
      used = c;
      let tight: TightFit | undefined;
      // An estimate errs high (a server's template may also leave the tools out): a turn it
      // puts within the window goes, and the provider's answer decides. A real tokenizer's
      // count must leave the answer its minimum room.
      const estimated = c.tokenizer === "estimate";
      const tightMax = estimated ? window : window - minimumAnswerRoom(window);
      if (plan.kind === "context_limit" && c !== bound && plan.minTokens <= tightMax) {
        // The turn alone passes the reserve: everything before it goes, and the answer gets
        // what is left.
        plan = planWith(c, history, turnStart, tools, Math.max(plan.minTokens, maxTokens()));
        if (plan.kind !== "context_limit") {
          const promptTokens = plan.kind === "fits" ? plan.tokens : plan.afterTokens;
          tight = { promptTokens, answerRoom: Math.max(0, window - promptTokens), estimated };
        }
      }
      if (plan.kind === "context_limit") {
        return {
          kind: "context_limit",
          message: `the current turn needs about ${plan.minTokens} tokens of context, more than ` +
            `the ${maxTokens()} available (${windowText()} less room for the answer)`,
        };
      }
      const messages = [systemMessage, ...(plan.kind === "compacted" ? plan.history : history)];
      plannedTools.set(messages, tools);
      // The plan already counted this prompt; calibration compares it with the reported size.
      if (c === bound) boundPlans.set(messages, tools);
      else estimates.set(messages, plan.kind === "fits" ? plan.tokens : plan.afterTokens);
      const done = tight === undefined ? {} : { tight };
      return plan.kind === "fits"
        ? { kind: "fits", messages, ...done }
        : { ...plan, messages, ...done };
    },

    count(history, { systemPrompt, tools }) {
      const c = used;
      if (!c) return undefined;
      const system = c.countMessage({ role: "system", content: systemPrompt });
      return c.countPrompt(history, system, c.countTools(tools));
    },

    trim(history, turnStart) {
      const r = trimHistory(history, { turnStart, maxBytes: config.max_history_bytes });
      if (r.kind === "fits") return { kind: "fits" };
      if (r.kind === "history_limit") {
        return {
          kind: "history_limit",
          message: `the current turn's messages take ${r.minBytes} bytes, more than ` +
            `max_history_bytes (${config.max_history_bytes})`,
        };
      }
      return r;
    },

    calibrate(messages, promptTokens) {
      const estimate = estimates.get(messages);
      if (estimate !== undefined && counter) {
        counter.calibrate(estimate, promptTokens);
        keepRatio(counter);
      }
      const tools = boundPlans.get(messages);
      if (estimate === undefined && tools) pending = { messages, promptTokens, tools };
    },
  };
}
