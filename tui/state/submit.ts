/**
 * What Enter does with the composer's text: a slash command, a new turn, or a prompt queued
 * behind the running turn; a prompt that cannot be sent stays in the composer.
 *
 * @module
 */
import * as ed from "../composer.ts";
import { findCommand, findCustomCommand, runCommand } from "./commands.ts";
import { formatBytes } from "./format.ts";
import type { ClientState, Effect } from "./model.ts";
import { notice } from "./transcript.ts";
import { startTurn } from "./turn.ts";
import { busyKindOf, sendWhileBusy } from "./waiting.ts";

const encoder = new TextEncoder();

/**
 * Sends the composer's text: a slash command, a new turn, or (while a turn runs, scv 0.3) a
 * steer of it or a prompt queued behind it, as `key` and the `steer_key` setting say.
 */
export function submit(state: ClientState, key: "enter" | "tab" = "enter"): Effect[] {
  const text = state.composer.text;
  if (text.trim() === "") return [];
  const effects: Effect[] = [];
  const named = /^\/([a-z]+)\s+\S/i.exec(text.trim());
  const withWords = named ? findCommand(`/${named[1]!}`) : undefined;
  if (withWords && withWords.args === undefined) {
    // "/clear now" is a command typed with words it does not take, not a prompt for the model;
    // the text stays so it can be fixed. A path such as "/etc/hosts is wrong" is still a prompt.
    notice(state, "error", `/${named![1]} takes no arguments; the text is kept in the composer`);
    return effects;
  }
  const first = text.trim().split(/\s/)[0]!;
  const custom = findCustomCommand(state, first);
  if (!custom && !withWords && first !== text.trim() && /^\/[a-z][\w-]*$/i.test(first)) {
    // "/reveiw src/a.ts" is a misspelt command, not a question for the model; a path such as
    // "/etc/hosts" or "/README.md" has a second "/" or a "." and goes on as a prompt.
    notice(
      state,
      "error",
      `Unknown command ${first}; type /help for the list. The text is kept in the composer ` +
        `(to send it as a prompt, put a word before ${first})`,
    );
    return effects;
  }
  if (!custom && (withWords || /^\/[a-z]+\s*$/i.test(text.trim()))) {
    state.composer = ed.EMPTY_BUFFER;
    state.history.add(text);
    effects.push({ kind: "save-history" });
    effects.push(...runCommand(state, text));
    return effects;
  }
  // A prompt that cannot be sent stays in the composer, so nothing typed is lost.
  if (!state.session) {
    notice(state, "error", "Not connected to a session yet; the prompt is kept in the composer");
    return effects;
  }
  const bytes = encoder.encode(text).length;
  if (bytes > state.maxPromptBytes) {
    notice(
      state,
      "error",
      `The prompt is ${formatBytes(bytes)}, over the server's limit of ${
        formatBytes(state.maxPromptBytes)
      }; it was not sent and is kept in the composer`,
    );
    return effects;
  }
  if (state.turn && state.images.length > 0) {
    notice(state, "error", "A prompt with images is sent once the turn ends; it is kept");
    return effects;
  }
  state.composer = ed.EMPTY_BUFFER;
  state.history.add(text);
  effects.push({ kind: "save-history" });
  if (state.turn) {
    effects.push(...sendWhileBusy(state, text, busyKindOf(state, key)));
    return effects;
  }
  effects.push(...startTurn(state, text));
  return effects;
}
