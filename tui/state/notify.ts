/**
 * Desktop notifications while the terminal is not focused: when a turn ends or an approval
 * waits, and only then. The terminal reports focus (`CSI ? 1004 h`, answered by `CSI I` and
 * `CSI O`); a notification is OSC 9 where the terminal shows it as one, else BEL. Pure: the
 * shell writes what {@link notificationBytes} returns.
 *
 * @module
 */
import type { ClientState, Effect } from "./model.ts";

/** A notification for the user, when notifications are on and the terminal is not focused. */
export function notifyEffects(state: ClientState, message: string): Effect[] {
  return state.notify && !state.focused ? [{ kind: "notify", message }] : [];
}

/**
 * `TERM_PROGRAM` values of terminals that show OSC 9 as a desktop notification (iTerm2,
 * WezTerm, Ghostty); Windows Terminal is told by `WT_SESSION`, kitty by `TERM=xterm-kitty`.
 */
const OSC9_PROGRAMS: ReadonlySet<string> = new Set(["iTerm.app", "WezTerm", "ghostty"]);

/**
 * What to write for a notification: OSC 9 with the message (control characters removed, at
 * most 200 characters) on a terminal that takes it, else BEL (inside tmux or screen too, which
 * pass BEL on to the outer terminal but not OSC 9).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { notificationBytes } from "./notify.ts";
 * const env = (vars: Record<string, string>) => (name: string) => vars[name];
 * assert.equal(notificationBytes("done", env({ TERM_PROGRAM: "WezTerm" })), "\x1b]9;done\x07");
 * assert.equal(notificationBytes("done", env({ TERM_PROGRAM: "Apple_Terminal" })), "\x07");
 * ```
 */
export function notificationBytes(
  message: string,
  env: (name: string) => string | undefined,
): string {
  const osc9 = OSC9_PROGRAMS.has(env("TERM_PROGRAM") ?? "") || env("WT_SESSION") !== undefined ||
    env("TERM") === "xterm-kitty";
  if (!osc9) return "\x07";
  // deno-lint-ignore no-control-regex
  const text = message.replace(/[\x00-\x1f\x7f-\x9f]/g, " ").slice(0, 200);
  return `\x1b]9;${text}\x07`;
}
