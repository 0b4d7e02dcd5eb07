/**
 * Keeps a session's context in bounds before each provider call and its canonical history under
 * `max_history_bytes` after each step. Placeholder until the context logic lands.
 *
 * @module
 */
import type { Session } from "./session.ts";
import type { ChatMessage } from "./provider/types.ts";
import type { TurnEmit } from "./agent.ts";

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
    deps: { systemPrompt: string },
    emit: TurnEmit,
    signal: AbortSignal,
  ): Promise<ChatMessage[]>;
  /** Trims the history to `max_history_bytes`, emitting `session.trimmed`. */
  trim(session: Session, turn: TurnCursor, emit: TurnEmit, signal: AbortSignal): Promise<void>;
  /** Feeds a provider's reported prompt size back into the estimate. */
  calibrate(messages: ChatMessage[], promptTokens: number): void;
}

/** Builds the context manager for a configuration. */
export function createContextManager(_config: import("./config.ts").Config): ContextManager {
  return {
    fit(session, _turn, deps) {
      return Promise.resolve([{ role: "system", content: deps.systemPrompt }, ...session.history]);
    },
    trim() {
      return Promise.resolve();
    },
    calibrate() {},
  };
}
