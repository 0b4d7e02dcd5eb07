/**
 * What a session's recorder reads of a live session, for both front ends (the Peon connection and
 * ACP): the session itself through getters, so every record sees its current state, and the
 * approval summary of a recorded call from the tools loaded at the time.
 *
 * @module
 */
import type { Session } from "../core/session.ts";
import type { ToolRegistry } from "../tools/registry.ts";
import type { RecordedSessionView } from "./recorder.ts";

/** The settings a session's turns run with, read when a record is written. */
export interface LiveSettings {
  /** The model of the next turn. */
  model(): string;
  /** The approval policy of the next turn. */
  approvalPolicy(): string;
  /** Whether both were chosen for this session (kept over the config's on resume). */
  configured?(): boolean;
}

/** The session as its recorder sees it, live. */
export function liveSessionView(session: Session, settings: LiveSettings): RecordedSessionView {
  return {
    id: session.id,
    cwd: session.cwd,
    get history() {
      return session.history;
    },
    get usage() {
      return session.usage;
    },
    get compactedMessages() {
      return session.compactedMessages;
    },
    get lastSeq() {
      return session.seq.last;
    },
    get model() {
      return settings.model();
    },
    get approvalPolicy() {
      return settings.approvalPolicy();
    },
    get configured() {
      return settings.configured?.() ?? false;
    },
  };
}

/**
 * The approval summary of a recorded call from the tools `tools()` gives at the time (none
 * loaded yet: undefined), undefined for an unknown tool or arguments it does not accept.
 */
export function recordedSummarizer(
  tools: () => ToolRegistry | undefined,
): (name: string, rawArguments: string) => string | undefined {
  return (name, raw) => {
    const tool = tools()?.get(name);
    if (!tool) return undefined;
    try {
      const parsed = tool.schema.safeParse(raw.trim() === "" ? {} : JSON.parse(raw));
      return parsed.success ? tool.summary(parsed.data) : undefined;
    } catch {
      return undefined;
    }
  };
}
