/**
 * The TUI's client state and the functions that change it: {@link applyEvent} for a server
 * event and {@link applyKey} for a key event. Both mutate the state in place (so a delta costs
 * the same with 10 or 10,000 finished items) and return the effects the I/O shell must carry
 * out: messages to send, the screen to clear, the program to end. Nothing here touches a
 * terminal or a stream.
 *
 * @module
 */
export * from "./model.ts";
export { addNotice, drainOutbox, finishItem, itemBytes, welcome } from "./transcript.ts";
export { cleanEvent } from "./clean_event.ts";
export {
  contextPercent,
  contextUnknown,
  formatTokens,
  formatUsd,
  mcpLine,
  sandboxLabel,
  toolSummary,
} from "./format.ts";
export { applyEvent, EVENT_HANDLERS } from "./events.ts";
export { notificationBytes, notifyEffects } from "./notify.ts";
export type { EventHandler, EventScope, EventTable } from "./events.ts";
export {
  ACTIONS,
  applyKey,
  APPROVAL_KEYMAP,
  KEYMAP,
  PICKER_KEYMAP,
  SEARCH_KEYMAP,
} from "./keymap.ts";
export type { Action, ActionName, KeyContext } from "./keymap.ts";
export { findCommand, HELP_TEXT, helpText, SLASH_COMMANDS } from "./commands.ts";
export type { SlashCommand } from "./commands.ts";
export { applyNoReply, applySendFailure, awaitingReply } from "./replies.ts";
export { interruptTurn, markClosed } from "./turn.ts";
export {
  applyModelList,
  type ModelList,
  openPicker,
  sessionDate,
  shownSessions,
} from "./sessions.ts";
export {
  applyWorkspaceIndex,
  attachMentions,
  MAX_MENTION_BYTES,
  type MentionedFile,
  splitAttachments,
} from "./mentions.ts";
export { parseCustomCommand } from "./custom_commands.ts";
export { MAX_REASONING_BYTES, reasoningLine } from "./reasoning.ts";
