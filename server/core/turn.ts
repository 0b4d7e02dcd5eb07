/**
 * One turn of a session, as one object: its envelope (`request_id`, `session_id`, `turn_id`),
 * `seq` assignment, the canonical history's append and repair, usage, the frame budget, and the
 * one terminal event. The agent loop (`agent/run_turn.ts`) drives it; a front-end gives it the
 * sink its events go to.
 *
 * @module
 */
import { encodeFrame, FrameTooLargeError } from "../../protocol/ndjson.ts";
import type { Usage } from "../../protocol/types.ts";
import type {
  EventBody,
  ProgressEventType,
  TurnEnd,
  TurnEvent,
} from "../../protocol/turn_events.ts";
import type { ChatMessage, ImagePart, ProviderUsage } from "../provider/types.ts";
import { costOf, roundUsd } from "../provider/pricing.ts";
import type { ModelPrice } from "../pricing.ts";
import type { HistoryCut, Session } from "./session.ts";
import { truncateText } from "../tools/output.ts";

/**
 * Where a turn's events go. Resolves once the event is committed (queued for the client);
 * rejects when it was not: with a `FrameTooLargeError` when it cannot fit a frame, with the
 * signal's reason when aborted while waiting for room, or with the sink's own error once the
 * output is gone. A turn takes the event's `seq` only when the sink resolves.
 */
export type TurnSink = (event: TurnEvent, signal?: AbortSignal) => Promise<void>;

/**
 * Called once per turn, after the history was repaired and before the terminal event is sent,
 * and awaited: a recorder can flush the turn to disk first, so a client that saw the terminal
 * event can rely on the record. The terminal event will carry `seq` `turn.session.seq.peek()`.
 * It should not throw; if it does, the terminal event is still sent and the error rethrown.
 */
export type TurnEndObserver = (end: TurnEnd, turn: Turn) => void | Promise<void>;

/** What a turn is built from. */
export interface TurnOptions {
  /** The session the turn runs on: its history, usage, seq and workspace. */
  session: Session;
  /** The `request_id` of the `turn.start` (or the front-end's equivalent). */
  requestId: string;
  /** The user's prompt; {@link Turn.begin} appends it to the history. */
  prompt: string;
  /** scv 0.3: images attached to the prompt (checked already); omitted: none. */
  images?: readonly ImagePart[];
  /** Where events go. */
  sink: TurnSink;
  /** The largest encoded event, excluding its newline; bounds the free-text fields. */
  maxFrameBytes: number;
  /** Omitted: a fresh UUID. */
  id?: string;
  /** Omitted: nobody observes the end. */
  onEnd?: TurnEndObserver;
}

/** The counts of a provider's usage that a turn sums. */
const USAGE_KEYS = [
  "prompt_tokens",
  "completion_tokens",
  "cached_prompt_tokens",
  "cache_write_tokens",
  "reasoning_tokens",
] as const satisfies readonly (keyof ProviderUsage)[];

/** Sent instead of a failure message when even the bounded one does not fit a frame. */
const FAILURE_TOO_LARGE = "the failure message did not fit max_server_frame_bytes";

/** Characters of room a turn's failure message must have in a frame for the turn to start. */
const MIN_FAILURE_MESSAGE_CHARS = 64;

/** What an interrupted tool call reports, and what repair puts in for an unanswered call. */
export const CANCELLED_RESULT = "The tool call was cancelled before it finished.";

/**
 * The bytes one free-text field of an event (a tool's output or arguments, a failure message)
 * may take: the frame also carries its envelope, and JSON escaping can grow text up to six-fold.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { fieldBudget } from "./turn.ts";
 * assert.equal(fieldBudget(8 * 1024 * 1024), 1398016);
 * assert.equal(fieldBudget(1024), 256);
 * ```
 */
export function fieldBudget(maxFrameBytes: number): number {
  return Math.max(256, Math.floor((maxFrameBytes - 512) / 6));
}

/**
 * A turn in progress. Events go out through {@link Turn.emit} (typed from the protocol table),
 * and the turn ends with exactly one {@link Turn.finish}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Session } from "./session.ts";
 * import { Turn } from "./turn.ts";
 * const events: { type: string; seq: number }[] = [];
 * const turn = new Turn({
 *   session: new Session("/tmp"), requestId: "1", prompt: "hi", maxFrameBytes: 65536,
 *   sink: (e) => { events.push(e); return Promise.resolve(); },
 * });
 * turn.begin();
 * await turn.emit("turn.started", {});
 * await turn.emit("assistant.delta", { content: "hello" });
 * await turn.finish({ type: "turn.completed", steps: 1 });
 * assert.deepEqual(events.map((e) => [e.type, e.seq]), [
 *   ["turn.started", 1], ["assistant.delta", 2], ["turn.completed", 3],
 * ]);
 * ```
 */
export class Turn {
  /** The `turn_id`. */
  readonly id: string;
  /** The `request_id` every event of the turn echoes. */
  readonly requestId: string;
  /** The session the turn runs on. */
  readonly session: Session;
  /** The user's prompt. */
  readonly prompt: string;
  /** The images attached to the prompt; empty when none. */
  readonly images: readonly ImagePart[];
  /** The bytes one free-text field may take (see {@link fieldBudget}). */
  readonly fieldBudget: number;
  /**
   * scv 0.3: why a hook asked the turn to end (`continue: false`); the agent loop then stops
   * after the current step and completes the turn.
   */
  stopRequested: string | undefined;
  #sink: TurnSink;
  #onEnd: TurnEndObserver | undefined;
  #start = -1;
  #steps = 0;
  #usage: ProviderUsage = {};
  #cost: number | undefined;
  #end: TurnEnd | undefined;
  #ended = Promise.withResolvers<TurnEnd>();

  /** Builds the turn; nothing is sent or appended until {@link Turn.begin} and the first emit. */
  constructor(options: TurnOptions) {
    this.id = options.id ?? crypto.randomUUID();
    this.requestId = options.requestId;
    this.session = options.session;
    this.prompt = options.prompt;
    this.images = options.images ?? [];
    this.fieldBudget = fieldBudget(options.maxFrameBytes);
    this.#sink = options.sink;
    this.#onEnd = options.onEnd;
    // From now on the session accepts steers for this turn (scv 0.3).
    this.session.inbox.openTurn(this.id);
  }

  /**
   * Whether a turn with this envelope can always end: its `turn.failed` with a short message
   * must fit the frame limit, or a client could wait forever for a terminal event.
   */
  static canEnd(
    envelope: { request_id: string; session_id: string; turn_id: string },
    maxFrameBytes: number,
  ): boolean {
    try {
      encodeFrame({
        type: "turn.failed",
        ...envelope,
        seq: Number.MAX_SAFE_INTEGER,
        code: "internal_error",
        message: "x".repeat(MIN_FAILURE_MESSAGE_CHARS),
      }, maxFrameBytes);
      return true;
    } catch {
      return false;
    }
  }

  /** Where the turn's prompt is in the history; -1 before {@link Turn.begin}. */
  get start(): number {
    return this.#start;
  }

  /** Provider calls made so far. */
  get steps(): number {
    return this.#steps;
  }

  /** Tokens this turn's provider calls reported, as `turn.completed` carries them. */
  get usage(): Usage | undefined {
    const t = this.#usage;
    // A usage chunk without token counts (only total_tokens, say) reports nothing to sum.
    if (t.prompt_tokens === undefined && t.completion_tokens === undefined) return undefined;
    const u: Usage = {};
    if (t.prompt_tokens !== undefined) u.input_tokens = t.prompt_tokens;
    if (t.completion_tokens !== undefined) u.output_tokens = t.completion_tokens;
    if (t.cached_prompt_tokens !== undefined) u.cached_input_tokens = t.cached_prompt_tokens;
    if (t.cache_write_tokens !== undefined) u.cache_creation_input_tokens = t.cache_write_tokens;
    if (t.reasoning_tokens !== undefined) u.reasoning_tokens = t.reasoning_tokens;
    return u;
  }

  /** This turn's cost in USD by `pricing`; undefined while no priced call reported usage. */
  get costUsd(): number | undefined {
    return this.#cost === undefined ? undefined : roundUsd(this.#cost);
  }

  /** How the turn ended, once {@link Turn.finish} was called. */
  get end(): TurnEnd | undefined {
    return this.#end;
  }

  /** Settles with the end once the terminal event was sent (or could not be). */
  get ended(): Promise<TurnEnd> {
    return this.#ended.promise;
  }

  /** Appends the prompt to the history; the turn starts there. */
  begin(): void {
    if (this.#start !== -1) throw new TypeError(`Cannot begin turn "${this.id}" twice`);
    this.session.history.push(
      this.images.length > 0
        ? { role: "user", content: this.prompt, images: [...this.images] }
        : { role: "user", content: this.prompt },
    );
    this.#start = this.session.history.length - 1;
  }

  /** Appends one message of this turn to the canonical history. */
  append(message: ChatMessage): void {
    this.session.history.push(message);
  }

  /** Puts a compacted or trimmed history in place, moving the turn's start with it. */
  applyCut(cut: HistoryCut): void {
    this.#start = this.session.applyCut(cut);
  }

  /** Counts one provider call. */
  countStep(): void {
    this.#steps++;
  }

  /**
   * Adds one provider call's reported tokens to the turn's and the session's totals, and its
   * cost by `price` (the call's model's; omitted: it has none) to both costs.
   */
  addUsage(usage: ProviderUsage, price?: ModelPrice): void {
    for (const key of USAGE_KEYS) {
      const n = usage[key];
      if (n !== undefined) this.#usage[key] = (this.#usage[key] ?? 0) + n;
    }
    if (usage.prompt_tokens !== undefined) this.session.usage.input_tokens += usage.prompt_tokens;
    if (usage.completion_tokens !== undefined) {
      this.session.usage.output_tokens += usage.completion_tokens;
    }
    if (price) {
      const cost = costOf(usage, price);
      this.#cost = (this.#cost ?? 0) + cost;
      this.session.usage.cost_usd = (this.session.usage.cost_usd ?? 0) + cost;
    }
  }

  /** Gives every tool call of the last assistant message a result, so the next request is valid. */
  repairHistory(): void {
    const history = this.session.history;
    for (let i = history.length - 1; i >= 0; i--) {
      const m = history[i]!;
      if (m.role !== "assistant") continue;
      if (!m.tool_calls) return;
      const answered = new Set(
        history.slice(i + 1).flatMap((t) => t.role === "tool" ? [t.tool_call_id] : []),
      );
      for (const c of m.tool_calls) {
        if (!answered.has(c.id)) {
          history.push({ role: "tool", tool_call_id: c.id, content: CANCELLED_RESULT });
        }
      }
      return;
    }
  }

  /**
   * Sends one event of the turn with its envelope and the session's next `seq`. Waiting for
   * room honours `signal`. Rejects as the sink does; an event after the end is a programming
   * error (TypeError).
   */
  async emit<T extends ProgressEventType>(
    type: T,
    body: EventBody<T>,
    signal?: AbortSignal,
  ): Promise<void> {
    if (this.#end) {
      throw new TypeError(`Cannot emit "${type}": turn "${this.id}" already ended`);
    }
    await this.#send(type, body, signal);
  }

  /**
   * Ends the turn: calls the end observer, then sends the terminal event, which is never
   * interrupted. A failure message is bounded to the frame budget; should it still not fit, a
   * short one goes out instead. An output that is gone is not an error here: nobody is left to
   * tell. A second call is a programming error (TypeError).
   */
  async finish(end: TurnEnd): Promise<void> {
    if (this.#end) {
      throw new TypeError(`Cannot end turn "${this.id}" twice: it ended with "${this.#end.type}"`);
    }
    let final: TurnEnd = end.type === "turn.failed"
      ? { ...end, message: truncateText(end.message, this.fieldBudget).text }
      : end;
    // Steers that never entered go back to the client, so none is lost without a word. A
    // turn that completes on its own closed its steers when it decided to, so it has none; one
    // a hook stopped may.
    const dropped = this.session.inbox.closeTurn(this.id);
    if (dropped.length > 0) final = { ...final, dropped_steers: dropped };
    this.#end = final;
    try {
      await this.#onEnd?.(final, this);
    } finally {
      await this.#sendTerminal(final);
      this.#ended.resolve(final);
    }
  }

  async #sendTerminal(end: TurnEnd): Promise<void> {
    const { type, ...rest } = end;
    const total = this.session.usage.cost_usd;
    const body = total === undefined ? rest : { ...rest, session_cost_usd: roundUsd(total) };
    try {
      await this.#send(type, body);
    } catch (e) {
      if (!(e instanceof FrameTooLargeError) || end.type !== "turn.failed") return;
      const short = { ...body, code: end.code, message: FAILURE_TOO_LARGE };
      await this.#send(type, short).catch(() => {});
    }
  }

  async #send(type: TurnEvent["type"], body: object, signal?: AbortSignal): Promise<void> {
    const { requestId: request_id, session, id: turn_id } = this;
    // session.trimmed belongs to the session, not the turn: no turn_id.
    const envelope = type === "session.trimmed"
      ? { request_id, session_id: session.id }
      : { request_id, session_id: session.id, turn_id };
    const event = { type, ...envelope, seq: session.seq.peek(), ...body } as TurnEvent;
    await this.#sink(event, signal);
    session.seq.take();
  }
}
