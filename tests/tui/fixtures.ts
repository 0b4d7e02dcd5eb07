/**
 * Builders of server events for the TUI's unit tests: one session, turns with automatic `seq`.
 *
 * @module
 */
import type { ServerEvent } from "../../protocol/schema.ts";
import type { OutgoingMessage } from "../../protocol/client.ts";
import type { KeyEvent } from "../../tui/keys.ts";
import {
  applyEvent,
  applyKey,
  attachMentions,
  type ClientState,
  createState,
  drainOutbox,
  type Effect,
  MAX_MENTION_BYTES,
  type MentionedFile,
} from "../../tui/state/mod.ts";

/** Limits reported by the test session. */
export interface Limits {
  maxTranscriptItems?: number;
  maxTranscriptBytes?: number;
}

/** A `session.started` event for session `s1`. */
export function sessionStarted(limits: Limits = {}): ServerEvent {
  return {
    type: "session.started",
    request_id: "c2",
    session_id: "s1",
    cwd: "/work/project",
    model: "gpt-test",
    context_max_tokens: 128000,
    max_server_frame_bytes: 8388608,
    max_transcript_bytes: limits.maxTranscriptBytes ?? 8388608,
    max_transcript_items: limits.maxTranscriptItems ?? 10000,
    max_prompt_history_bytes: 1048576,
    max_prompt_history_items: 200,
  };
}

/** A state with a started session. */
export function readyState(limits: Limits = {}): ClientState {
  const s = createState({
    model: "gpt-test",
    cwd: "/work/project",
    historyLimits: { maxItems: 200, maxBytes: 1048576 },
  });
  applyEvent(s, sessionStarted(limits));
  return s;
}

/** Emits turn events with consecutive seq numbers for the turn requested with `requestId`. */
export class TurnScript {
  seq: number;
  readonly requestId: string;
  readonly turnId: string;
  constructor(requestId: string, firstSeq = 1, turnId = "t1") {
    this.requestId = requestId;
    this.seq = firstSeq;
    this.turnId = turnId;
  }

  #env() {
    return {
      request_id: this.requestId,
      session_id: "s1",
      turn_id: this.turnId,
      seq: this.seq++,
    };
  }

  started(): ServerEvent {
    return { type: "turn.started", ...this.#env() };
  }
  delta(content: string): ServerEvent {
    return { type: "assistant.delta", ...this.#env(), content };
  }
  completedText(content: string): ServerEvent {
    return { type: "assistant.completed", ...this.#env(), content };
  }
  plan(steps: { text: string; status: "pending" | "in_progress" | "done" }[]): ServerEvent {
    return { type: "plan.updated", ...this.#env(), steps };
  }
  proposed(callId: string, name: string, args: unknown): ServerEvent {
    return { type: "tool.proposed", ...this.#env(), call_id: callId, name, arguments: args };
  }
  approval(callId: string, name: string, summary: string): ServerEvent {
    return {
      type: "approval.requested",
      ...this.#env(),
      approval_id: `a-${callId}`,
      call_id: callId,
      name,
      risk: "process",
      cwd: "/work/project",
      summary,
    };
  }
  toolStarted(callId: string, name: string): ServerEvent {
    return { type: "tool.started", ...this.#env(), call_id: callId, name };
  }
  toolCompleted(callId: string, name: string, success: boolean, output: string): ServerEvent {
    return {
      type: "tool.completed",
      ...this.#env(),
      call_id: callId,
      name,
      success,
      output,
      truncated: false,
    };
  }
  completed(input = 1000, output = 200, steps = 1): ServerEvent {
    return {
      type: "turn.completed",
      ...this.#env(),
      steps,
      usage: { input_tokens: input, output_tokens: output },
    };
  }
  compacted(before: number, after: number): ServerEvent {
    return {
      type: "context.compacted",
      ...this.#env(),
      before_tokens: before,
      after_tokens: after,
      removed_messages: 4,
    };
  }
  cancelled(): ServerEvent {
    return { type: "turn.cancelled", ...this.#env() };
  }
}

/** Applies events in order and returns every effect. */
export function applyAll(state: ClientState, events: ServerEvent[]): Effect[] {
  return events.flatMap((e) => applyEvent(state, e));
}

/** A key event named `name`, with modifiers. */
export function key(
  name: string,
  mods: { ctrl?: boolean; alt?: boolean; shift?: boolean } = {},
): KeyEvent {
  return {
    type: "key",
    name,
    ctrl: mods.ctrl ?? false,
    alt: mods.alt ?? false,
    shift: mods.shift ?? false,
  };
}

/** Types `text` as one text event. */
export function typeText(s: ClientState, text: string): Effect[] {
  return applyKey(s, { type: "text", text });
}

/** The messages among `effects` that are sent. */
export function sent(effects: Effect[]): OutgoingMessage[] {
  return effects.flatMap((f) => f.kind === "send" ? [f.message] : []);
}

/** The texts of the notices waiting for scrollback (drained). */
export function notices(s: ClientState): string[] {
  return drainOutbox(s).flatMap((i) => i.kind === "notice" ? [i.text] : []);
}

/** Types `text`, presses Enter and returns what was sent. */
export function enter(s: ClientState, text: string): OutgoingMessage[] {
  typeText(s, text);
  return sent(applyKey(s, key("enter")));
}

/** What the server's `files.read` would answer for `file` (a string is a text file's content). */
function answerOf(file: string | MentionedFile | undefined): MentionedFile {
  if (file === undefined) return { refused: { reason: "missing", message: "no such file" } };
  if (typeof file !== "string") return file;
  const bytes = new TextEncoder().encode(file);
  const head = bytes.subarray(0, MAX_MENTION_BYTES);
  return {
    text: new TextDecoder().decode(head),
    size: bytes.length,
    truncated: head.length < bytes.length,
  };
}

/**
 * The messages among `effects` that are sent, a prompt's mentioned files answered from `files`
 * as the server's `files.read` would (a path not among them names no file), as the shell does.
 */
export function sentWith(
  s: ClientState,
  effects: Effect[],
  files: Record<string, string | MentionedFile>,
): OutgoingMessage[] {
  return effects.flatMap((f) => {
    if (f.kind === "send") return [f.message];
    if (f.kind !== "send-attached") return [];
    const read = new Map(f.paths.map((p) => [p, answerOf(files[p])]));
    return [{ ...f.message, prompt: attachMentions(s, f.typed, f.maxBytes, f.images, read) }];
  });
}

/** Types `text`, presses Enter and returns what was sent, mentioned files read from `files`. */
export function enterWith(
  s: ClientState,
  text: string,
  files: Record<string, string | MentionedFile>,
): OutgoingMessage[] {
  typeText(s, text);
  return sentWith(s, applyKey(s, key("enter")), files);
}
