/**
 * The `hooks` setting (in the base layer, as the config reads it), in the shape of Claude Code's
 * documented `hooks` setting (see docs/hooks.md): for each event, a list of matcher groups, each
 * with its command hooks.
 *
 * ```jsonc
 * "hooks": {
 *   "PreToolUse": [
 *     { "matcher": "Bash", "hooks": [{ "type": "command", "command": "~/bin/check.sh", "timeout": 5 }] }
 *   ]
 * }
 * ```
 *
 * @module
 */

/** The events scv fires, as Claude Code names them. */
export const HOOK_EVENTS: readonly HookEvent[] = [
  "PreToolUse",
  "PostToolUse",
  "UserPromptSubmit",
  "Stop",
  "SessionStart",
  "SessionEnd",
];

/** One hook event name. */
export type HookEvent =
  | "PreToolUse"
  | "PostToolUse"
  | "UserPromptSubmit"
  | "Stop"
  | "SessionStart"
  | "SessionEnd";

/** One command hook. */
export interface CommandHook {
  /** Always a command (Claude Code's `prompt`, `http` and `agent` hooks are refused). */
  type: "command";
  /** Run with `bash -c` in the workspace. */
  command: string;
  /** Seconds before the hook is killed; omitted: {@link DEFAULT_HOOK_TIMEOUT_S}. */
  timeout?: number;
}

/** Hooks that run when the matcher matches. */
export interface MatcherGroup {
  /** Tool name (or session source or end reason) pattern; omitted, `""` or `*`: every one. */
  matcher?: string;
  /** The hooks run when it matches, at once. */
  hooks: CommandHook[];
}

/** The validated setting: only events with at least one group appear. */
export type HooksConfig = Partial<Record<HookEvent, MatcherGroup[]>>;

/** A hook's timeout when it names none, in seconds (Claude Code's). */
export const DEFAULT_HOOK_TIMEOUT_S = 60;

/** The longest timeout a hook may name, in seconds (what a timer can hold, rounded down). */
export const MAX_HOOK_TIMEOUT_S = 2_000_000;

/** The most hooks the whole setting may hold. */
export const MAX_HOOKS = 128;

/** The longest command, in characters. */
export const MAX_COMMAND_CHARS = 16384;

/**
 * Validates a `hooks` object, throwing a RangeError naming the exact place that is wrong.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { validateHooks } from "./hooks_config.ts";
 * const h = validateHooks({ Stop: [{ hooks: [{ type: "command", command: "true" }] }] });
 * assert.equal(h.Stop?.[0]?.hooks[0]?.command, "true");
 * assert.throws(() => validateHooks({ Stpo: [] }), /"hooks\.Stpo" is not an event scv fires/);
 * ```
 */
export function validateHooks(value: unknown): HooksConfig {
  if (!isPlainObject(value)) {
    throw new RangeError(`"hooks" must be an object of event names to lists of matcher groups`);
  }
  const out: HooksConfig = {};
  let count = 0;
  for (const [event, groups] of Object.entries(value)) {
    const at = `"hooks.${event}"`;
    if (!(HOOK_EVENTS as readonly string[]).includes(event)) {
      throw new RangeError(
        `${at} is not an event scv fires; the events are ${HOOK_EVENTS.join(", ")}`,
      );
    }
    if (!Array.isArray(groups)) {
      throw new RangeError(`${at} must be a list of {"matcher": ..., "hooks": [...]} groups`);
    }
    const list: MatcherGroup[] = [];
    groups.forEach((group: unknown, i) => {
      const g = `"hooks.${event}[${i}]`;
      if (!isPlainObject(group)) {
        throw new RangeError(`${g}" must be an object with "hooks" (and an optional "matcher")`);
      }
      for (const key of Object.keys(group)) {
        if (key !== "matcher" && key !== "hooks") {
          throw new RangeError(`${g}.${key}" is not a key of a matcher group (matcher, hooks)`);
        }
      }
      const matcher = group.matcher;
      if (matcher !== undefined) {
        if (typeof matcher !== "string") throw new RangeError(`${g}.matcher" must be a string`);
        checkMatcher(matcher, `${g}.matcher"`);
      }
      if (!Array.isArray(group.hooks)) {
        throw new RangeError(`${g}.hooks" must be a list of {"type": "command", ...} hooks`);
      }
      const hooks = group.hooks.map((h: unknown, j) => commandHook(h, `${g}.hooks[${j}]`));
      count += hooks.length;
      if (count > MAX_HOOKS) throw new RangeError(`"hooks" may hold at most ${MAX_HOOKS} hooks`);
      list.push({ ...(matcher !== undefined ? { matcher } : {}), hooks });
    });
    if (list.length > 0) out[event as HookEvent] = list;
  }
  return out;
}

function commandHook(h: unknown, at: string): CommandHook {
  if (!isPlainObject(h)) throw new RangeError(`${at}" must be an object`);
  if (h.type !== "command") {
    throw new RangeError(
      `${at}.type" must be "command" (scv runs command hooks only), got ${show(h.type)}`,
    );
  }
  for (const key of Object.keys(h)) {
    if (key !== "type" && key !== "command" && key !== "timeout") {
      throw new RangeError(`${at}.${key}" is not a key scv takes (type, command, timeout)`);
    }
  }
  if (typeof h.command !== "string" || h.command.trim() === "") {
    throw new RangeError(`${at}.command" must be a non-empty string`);
  }
  if (h.command.length > MAX_COMMAND_CHARS || h.command.includes("\0")) {
    throw new RangeError(
      `${at}.command" must be at most ${MAX_COMMAND_CHARS} characters, without NUL`,
    );
  }
  const timeout = h.timeout;
  if (
    timeout !== undefined &&
    (typeof timeout !== "number" || !Number.isFinite(timeout) || timeout <= 0 ||
      timeout > MAX_HOOK_TIMEOUT_S)
  ) {
    throw new RangeError(
      `${at}.timeout" must be a positive number of seconds, at most ${MAX_HOOK_TIMEOUT_S}, got ${
        show(timeout)
      }`,
    );
  }
  return { type: "command", command: h.command, ...(timeout !== undefined ? { timeout } : {}) };
}

/** A matcher that is a regular expression must compile. */
function checkMatcher(matcher: string, at: string): void {
  if (matcher.length > 1024) throw new RangeError(`${at} must be at most 1024 characters`);
  try {
    new RegExp(matcher);
  } catch (e) {
    throw new RangeError(`${at} is not a valid regular expression: ${(e as Error).message}`);
  }
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function show(v: unknown): string {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 60 ? s.slice(0, 57) + "..." : s;
}

/**
 * Two settings' hooks together: each event's groups of `a`, then those of `b`. The total stays
 * within {@link MAX_HOOKS}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { mergeHooks } from "./hooks_config.ts";
 * const g = { hooks: [{ type: "command" as const, command: "true" }] };
 * assert.equal(mergeHooks({ Stop: [g] }, { Stop: [g] }).Stop?.length, 2);
 * ```
 */
export function mergeHooks(a: HooksConfig, b: HooksConfig): HooksConfig {
  const out: HooksConfig = { ...a };
  for (const event of HOOK_EVENTS) {
    const more = b[event];
    if (more) out[event] = [...(a[event] ?? []), ...more];
  }
  const total = Object.values(hookCounts(out)).reduce((x, y) => x + y, 0);
  if (total > MAX_HOOKS) throw new RangeError(`"hooks" may hold at most ${MAX_HOOKS} hooks`);
  return out;
}

/**
 * How many hooks each event has, for `session.started` and `/status`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { hookCounts } from "./hooks_config.ts";
 * const cmd = { type: "command" as const, command: "true" };
 * assert.deepEqual(hookCounts({ Stop: [{ hooks: [cmd, cmd] }] }), { Stop: 2 });
 * ```
 */
export function hookCounts(config: HooksConfig): Partial<Record<HookEvent, number>> {
  const out: Partial<Record<HookEvent, number>> = {};
  for (const event of HOOK_EVENTS) {
    const n = (config[event] ?? []).reduce((sum, g) => sum + g.hooks.length, 0);
    if (n > 0) out[event] = n;
  }
  return out;
}

/** One matcher group as `session.started.hooks` reports it: never the commands themselves. */
export interface HookGroupInfo {
  event: HookEvent;
  matcher?: string;
  commands: number;
}

/**
 * The configured matcher groups, event by event, without their commands (a command line may
 * hold what the user would not show).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { hookGroups } from "./hooks_config.ts";
 * const cmd = { type: "command" as const, command: "true" };
 * assert.deepEqual(hookGroups({ PreToolUse: [{ matcher: "Bash", hooks: [cmd] }] }), [
 *   { event: "PreToolUse", matcher: "Bash", commands: 1 },
 * ]);
 * ```
 */
export function hookGroups(config: HooksConfig): HookGroupInfo[] {
  return HOOK_EVENTS.flatMap((event) =>
    (config[event] ?? []).map((g) => ({
      event,
      ...(g.matcher !== undefined ? { matcher: g.matcher } : {}),
      commands: g.hooks.length,
    }))
  );
}
