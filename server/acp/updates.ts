/**
 * The agent core's turn events as ACP `session/update` payloads: text and reasoning deltas as
 * message and thought chunks, a tool call's life as `tool_call` then `tool_call_update`s. Pure
 * apart from the per-turn memory of which call is which; file contents for diffs are read by
 * the caller and handed in.
 *
 * @module
 */
import type { SessionUpdate, ToolCallContent } from "@agentclientprotocol/sdk";
import type { ServerEventOf, ServerEventType, TurnEventType } from "../../protocol/schema.ts";
import { absoluteIn, pathArgument, toolKind, toolLocations, writesFile } from "./tool_view.ts";
import { utf8Length } from "../utf8.ts";
import { planUpdate } from "./plan_update.ts";

/** An event without its envelope: what the adapter needs of it. */
type Body<T extends ServerEventType> = Omit<
  ServerEventOf<T>,
  "request_id" | "session_id" | "turn_id" | "seq"
>;

/** Any turn event without its envelope: what the adapter maps. */
export type MappedEvent = { [T in TurnEventType]: Body<T> }[TurnEventType];

/** How one turn event type becomes ACP updates. */
export type Mapping<T extends TurnEventType> = (
  event: Body<T>,
  change?: FileChange,
) => SessionUpdate[];

/** The mapping of every turn event type: a new turn event without an entry is a compile error. */
export type TurnUpdates = { readonly [T in TurnEventType]: Mapping<T> };

/** No update: for an event ACP shows some other way, or not at all (each entry says which). */
const NONE = (): SessionUpdate[] => [];

/** A file's text before and after a call that rewrote it. */
export interface FileChange {
  /** The file, absolute. */
  path: string;
  /** The text before; null when the call created the file. */
  oldText: string | null;
  /** The text after. */
  newText: string;
}

/** What the mapper needs to know about the session. */
export interface UpdateMapperOptions {
  /** The session's workspace, absolute. */
  cwd: string;
  /** A call's one-line title (the approval summary), or undefined when it cannot be given. */
  title: (name: string, args: unknown) => string | undefined;
  /**
   * Most UTF-8 bytes of file text one update may carry in a diff (old and new together); a
   * larger change is shown as the tool's text output alone.
   */
  maxDiffBytes: number;
}

/** A call the mapper saw proposed and has not seen completed. */
interface OpenCall {
  name: string;
  args: unknown;
}

/** Calls one turn may have open at once before the oldest is forgotten (bounded memory). */
const MAX_OPEN_CALLS = 1024;

/**
 * Maps one session's turn events to ACP updates. One instance per session: a call's id is
 * remembered from `tool.proposed` until its `tool.completed`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { UpdateMapper } from "./updates.ts";
 * const m = new UpdateMapper({ cwd: "/ws", title: () => undefined, maxDiffBytes: 1024 });
 * const [u] = m.map({ type: "assistant.delta", content: "Hi" });
 * assert.deepEqual(u, { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "Hi" } });
 * ```
 */
export class UpdateMapper {
  #o: UpdateMapperOptions;
  #calls = new Map<string, OpenCall>();

  /** A mapper for one session. */
  constructor(options: UpdateMapperOptions) {
    this.#o = options;
  }

  /** The call a `call_id` names, while it is open (for the caller's diff reads). */
  call(callId: string): Readonly<OpenCall> | undefined {
    return this.#calls.get(callId);
  }

  /**
   * The file a call rewrites, absolute, when it is a `write_file`/`edit_file` call with a path;
   * the caller reads it before the call runs and after it completes.
   */
  changedFile(callId: string): string | undefined {
    const call = this.#calls.get(callId);
    if (!call || !writesFile(call.name)) return undefined;
    const p = pathArgument(call.name, call.args);
    return p === undefined ? undefined : absoluteIn(this.#o.cwd, p);
  }

  /** The updates for one event; `change` is the file change of a completed write. */
  map(event: MappedEvent, change?: FileChange): SessionUpdate[] {
    // The table pairs each type with its mapping; TypeScript cannot see that
    // `TURN_UPDATES[event.type]` takes exactly `event`, so one cast stands for that correlation.
    const mapping = this.#updates[event.type] as Mapping<TurnEventType>;
    return mapping(event as never, change);
  }

  /** Every turn event type's updates: `TURN_UPDATES`, bound to this session's memory. */
  readonly #updates: TurnUpdates = {
    // The prompt request itself is the turn; its stop reason says how it ended (acp_session.ts).
    "turn.started": NONE,
    "assistant.delta": (e) => [chunk("agent_message_chunk", e.content)],
    "assistant.reasoning.delta": (e) => [chunk("agent_thought_chunk", e.content)],
    // Sent only to a client that advertised `session.notices` (the core emits none else).
    "turn.notice": (e) => [{ sessionUpdate: "notice", severity: "info", title: e.message }],
    // The text went out as chunks already.
    "assistant.completed": NONE,
    "tool.proposed": (e) => [this.#proposed(e)],
    // The question itself is `session/request_permission` (permissions.ts); this names the call.
    "approval.requested": (e) => [{
      sessionUpdate: "tool_call_update",
      toolCallId: e.call_id,
      title: e.summary,
    }],
    "tool.started": (e) => [{
      sessionUpdate: "tool_call_update",
      toolCallId: e.call_id,
      status: "in_progress",
    }],
    "tool.completed": (e, change) => [this.#completed(e, change)],
    // ACP v1 has no update for these; the session logs them (acp_session.ts).
    "context.compacted": NONE,
    "session.trimmed": NONE,
    // A steer entered as the user's message (scv acp itself queues rather than steers).
    "user.steered": (e) => [chunk("user_message_chunk", e.content)],
    // The whole plan, which the client shows in place of the last one.
    "plan.updated": (e) => [planUpdate(e.steps)],
    // The end of a turn is the prompt's stop reason (stop_reason.ts), not an update.
    "turn.completed": NONE,
    "turn.cancelled": NONE,
    "turn.failed": NONE,
  };

  #proposed(e: Body<"tool.proposed">): SessionUpdate {
    if (this.#calls.size >= MAX_OPEN_CALLS) {
      this.#calls.delete(this.#calls.keys().next().value!);
    }
    this.#calls.set(e.call_id, { name: e.name, args: e.arguments });
    let title: string | undefined;
    try {
      title = this.#o.title(e.name, e.arguments);
    } catch {
      title = undefined; // a title is a courtesy; the call goes on without one
    }
    return {
      sessionUpdate: "tool_call",
      toolCallId: e.call_id,
      title: title ?? e.name,
      kind: toolKind(e.name),
      status: "pending",
      locations: toolLocations(e.name, e.arguments, this.#o.cwd),
      rawInput: e.arguments,
    };
  }

  #completed(e: Body<"tool.completed">, change: FileChange | undefined): SessionUpdate {
    this.#calls.delete(e.call_id);
    const content: ToolCallContent[] = [];
    if (e.output !== "") {
      content.push({ type: "content", content: { type: "text", text: e.output } });
    }
    if (
      e.success && change &&
      utf8Length(change.oldText ?? "") + utf8Length(change.newText) <= this.#o.maxDiffBytes
    ) {
      content.push({
        type: "diff",
        path: change.path,
        oldText: change.oldText,
        newText: change.newText,
      });
    }
    return {
      sessionUpdate: "tool_call_update",
      toolCallId: e.call_id,
      status: e.success ? "completed" : "failed",
      content,
    };
  }
}

/**
 * A smaller form of an update that did not fit a frame: a `tool_call_update` without its `diff`
 * blocks, a `tool_call` without its raw input (the title still says what the call does). The
 * update itself when nothing can be left out.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { slimmed } from "./updates.ts";
 * const u = { sessionUpdate: "tool_call_update" as const, toolCallId: "c", content: [
 *   { type: "diff" as const, path: "/a", newText: "x" },
 * ] };
 * assert.deepEqual(slimmed(u), { ...u, content: [] });
 * ```
 */
export function slimmed(update: SessionUpdate): SessionUpdate {
  if (update.sessionUpdate === "tool_call" && update.rawInput !== undefined) {
    const { rawInput: _, ...lean } = update;
    return lean;
  }
  if (update.sessionUpdate !== "tool_call_update" || !update.content) return update;
  if (!update.content.some((c) => c.type === "diff")) return update;
  return { ...update, content: update.content.filter((c) => c.type !== "diff") };
}

function chunk(
  kind: "agent_message_chunk" | "agent_thought_chunk" | "user_message_chunk",
  text: string,
): SessionUpdate {
  return { sessionUpdate: kind, content: { type: "text", text } };
}
