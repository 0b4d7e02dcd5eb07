/**
 * One Peon session: its canonical workspace, its monotonic `seq`, its canonical history, its
 * usage totals, the turn running on it and the approvals that turn waits for.
 *
 * @module
 */
import { Inbox } from "./inbox.ts";
import type { ChatMessage } from "../provider/types.ts";
import type { ApprovalAnswer } from "./approvals.ts";
import { BUILTIN_RULES } from "./rules/builtin.ts";
import type { Rule } from "./rules/rule.ts";
import { SessionRules } from "./rules/session_rules.ts";
import type { Recorder } from "../sessions/recorder.ts";
import type { SessionCheckpoints } from "../checkpoints/session_checkpoints.ts";
import type { HookOutcome } from "../hooks/outcome.ts";
import { SeqCounter } from "./seq.ts";

/** A turn in progress. */
export interface ActiveTurn {
  readonly id: string;
  readonly requestId: string;
  readonly controller: AbortController;
  /** Settles once the turn's terminal event was queued. */
  done: Promise<void>;
}

/** An approval the running turn waits for. */
interface PendingApproval {
  resolve: (answer: ApprovalAnswer) => void;
}

/** A shortened history to put in place: what compaction and trimming plans carry. */
export interface HistoryCut {
  /** The history after the cut. */
  history: ChatMessage[];
  /** Where the current turn now begins in it. */
  newTurnStart: number;
  /** How many messages the cut removed (a compaction record counts as added). */
  removedMessages: number;
}

/** Input and output tokens a session has used since it started or was cleared. */
export interface UsageTotals {
  input_tokens: number;
  output_tokens: number;
  /** scv 0.3: USD by `pricing`; omitted while no priced provider call was made. */
  cost_usd?: number;
}

/**
 * Session state. A running turn (`turn.ts`) appends to `history` and takes `seq`
 * numbers; the front-end owns turn bookkeeping (`turn`) and approvals.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Session } from "./session.ts";
 * const s = new Session("/tmp");
 * s.history.push({ role: "user", content: "hi" });
 * s.clear();
 * assert(s.history.length === 0);
 * ```
 */
export class Session {
  readonly id: string;
  readonly cwd: string;
  readonly seq: SeqCounter;
  /** scv 0.2 `session.configure`: the model of the next turns; undefined: the config's. */
  model: string | undefined;
  /** scv 0.2 `session.configure`: the approval policy of the next turns; undefined: the config's. */
  approvalPolicy: string | undefined;
  #recorder: Recorder | undefined;
  /** scv 0.3: snapshots of the workspace for `session.rewind`; undefined: checkpoints are off. */
  checkpoints: SessionCheckpoints | undefined;
  history: ChatMessage[] = [];
  usage: UsageTotals = { input_tokens: 0, output_tokens: 0 };
  /** Compaction metadata: how many messages compaction and trimming removed so far. */
  compactedMessages = 0;
  turn: ActiveTurn | undefined;
  /** scv 0.3: the steers waiting for the active turn and the prompts queued behind it. */
  readonly inbox: Inbox = new Inbox();
  /**
   * The approval rules of the rules files and the built-in ones (`rules/load.ts`), set by the
   * face that opened the session; the built-in rules alone until then.
   */
  rules: readonly Rule[] = BUILTIN_RULES;
  /** The rules this session's user added with `remember: "session"`. */
  readonly remembered: SessionRules = new SessionRules();
  /** scv 0.3: the `SessionStart` hooks still running; the next turn takes what they decided. */
  hookStart: Promise<HookOutcome> | undefined;
  #approvals = new Map<string, PendingApproval>();

  /**
   * Creates a session on a canonical workspace path; a resumed one keeps its recorded id and
   * continues its seq after `lastSeq`.
   */
  constructor(cwd: string, resumed?: { id: string; lastSeq: number }) {
    this.cwd = cwd;
    this.id = resumed?.id ?? crypto.randomUUID();
    this.seq = new SeqCounter(resumed?.lastSeq ?? 0);
  }

  /** Records the session on disk (server/sessions/); undefined: nothing observes it. */
  get recorder(): Recorder | undefined {
    return this.#recorder;
  }

  /** Sets the recorder; it also keeps the inbox's waiting steers and queued prompts (scv 0.3). */
  set recorder(recorder: Recorder | undefined) {
    this.#recorder = recorder;
    this.inbox.observer = recorder;
  }

  /** Drops history, compaction metadata and usage totals; `seq` goes on. */
  clear(): void {
    this.history = [];
    this.usage = { input_tokens: 0, output_tokens: 0 };
    this.compactedMessages = 0;
  }

  /**
   * Puts a shortened history in place and counts what it removed, for compaction and trimming
   * alike; returns where the current turn now begins.
   */
  applyCut(cut: HistoryCut): number {
    this.history = cut.history;
    this.compactedMessages += cut.removedMessages;
    return cut.newTurnStart;
  }

  /**
   * Registers an approval and waits for its resolution. The id is a fresh UUID; on abort the
   * approval is forgotten (a later resolve gets `approval_not_found`) and the promise rejects.
   */
  waitForApproval(approvalId: string, signal: AbortSignal): Promise<ApprovalAnswer> {
    return new Promise<ApprovalAnswer>((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason);
      const onAbort = () => {
        this.#approvals.delete(approvalId);
        reject(signal.reason);
      };
      this.#approvals.set(approvalId, {
        resolve: (approved) => {
          signal.removeEventListener("abort", onAbort);
          resolve(approved);
        },
      });
      signal.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** The rules in force: the files', the built-in ones, then the remembered ones. */
  rulesInForce(): Rule[] {
    return [...this.rules, ...this.remembered.list];
  }

  /**
   * Resolves a pending approval (`"session"`: approved, and remembered for the session); false
   * when the id is unknown or already resolved.
   */
  resolveApproval(approvalId: string, approved: ApprovalAnswer): boolean {
    const pending = this.#approvals.get(approvalId);
    if (!pending) return false;
    this.#approvals.delete(approvalId);
    pending.resolve(approved);
    return true;
  }
}
