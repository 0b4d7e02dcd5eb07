/**
 * The configured hooks of one server: which run for an event, with what JSON and environment,
 * and what they decided together. Every matching hook runs at once (identical commands once,
 * as in Claude Code); the runner (run_command.ts) does the I/O, outcome.ts the reading.
 *
 * @module
 */
import { truncateText } from "../tools/output.ts";
import {
  DEFAULT_HOOK_TIMEOUT_S,
  hookCounts,
  type HookEvent,
  type HooksConfig,
} from "../hooks_config.ts";
import { matches } from "./matcher.ts";
import { combineOutcomes, type HookExit, type HookOutcome, readHookExit } from "./outcome.ts";
import { type HookRun, runHookCommand } from "./run_command.ts";

/** The fields every event's JSON carries (Claude Code's common input fields). */
export interface HookCommonInput {
  session_id: string;
  /** The session's record (scv's own JSONL format); `""` when it is not recorded. */
  transcript_path: string;
  cwd: string;
  /** The approval policy in Claude Code's words (see {@link permissionMode}). */
  permission_mode: string;
}

/** What {@link Hooks} runs with. */
export interface HooksOptions {
  /** The clean environment every hook gets (the project variables are added per run). */
  env: Record<string, string>;
  /** The most text of a hook's answer that reaches the model or the user. */
  maxTextBytes: number;
  /** Runs one hook; the real runner by default (tests may script it). */
  run?: (run: HookRun) => Promise<HookExit>;
}

/**
 * Claude Code's `permission_mode` for an scv approval policy: `default` for `always` and
 * `on-risk`, `acceptEdits` for `auto`, `bypassPermissions` for `never`, `plan` for `plan`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { permissionMode } from "./hooks.ts";
 * assert.equal(permissionMode("never"), "bypassPermissions");
 * ```
 */
export function permissionMode(policy: string): string {
  switch (policy) {
    case "auto":
      return "acceptEdits";
    case "never":
      return "bypassPermissions";
    case "plan":
      return "plan";
    default:
      return "default";
  }
}

/**
 * The hooks of the configuration.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Hooks } from "./hooks.ts";
 * const hooks = new Hooks({}, { env: {}, maxTextBytes: 1000 });
 * assert.equal(hooks.has("Stop"), false);
 * ```
 */
export class Hooks {
  readonly config: HooksConfig;
  #options: HooksOptions;

  /** Builds the hooks of a validated `hooks` setting. */
  constructor(config: HooksConfig, options: HooksOptions) {
    this.config = config;
    this.#options = options;
  }

  /** Whether any hook is configured for `event`. */
  has(event: HookEvent): boolean {
    return (this.config[event]?.length ?? 0) > 0;
  }

  /** How many hooks each event has. */
  get counts(): Partial<Record<HookEvent, number>> {
    return hookCounts(this.config);
  }

  /**
   * Runs every hook of `event` whose matcher matches `matchOn` (the tool name, the session's
   * source or end reason; events without a matcher ignore it) with the event's JSON, and
   * resolves with what they decided together. Never rejects: a hook that fails is a notice.
   */
  async fire(
    event: HookEvent,
    matchOn: string | undefined,
    common: HookCommonInput,
    fields: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<HookOutcome> {
    const groups = this.config[event] ?? [];
    const usesMatcher = event !== "UserPromptSubmit" && event !== "Stop";
    const commands = new Map<string, number>();
    for (const g of groups) {
      if (usesMatcher && !matches(g.matcher, matchOn ?? "")) continue;
      for (const h of g.hooks) {
        if (!commands.has(h.command)) {
          commands.set(h.command, h.timeout ?? DEFAULT_HOOK_TIMEOUT_S);
        }
      }
    }
    if (commands.size === 0) return {};
    const input = JSON.stringify({ ...common, hook_event_name: event, ...fields });
    const env = {
      ...this.#options.env,
      CLAUDE_PROJECT_DIR: common.cwd,
      SCV_PROJECT_DIR: common.cwd,
    };
    const run = this.#options.run ?? runHookCommand;
    const outcomes = await Promise.all(
      [...commands].map(async ([command, timeoutSeconds]) => {
        const exit = await run({ command, cwd: common.cwd, env, input, timeoutSeconds, signal });
        return readHookExit(event, exit, label(command));
      }),
    );
    return this.#bounded(combineOutcomes(outcomes));
  }

  /** Cuts what reaches the model or the user to the text bound. */
  #bounded(o: HookOutcome): HookOutcome {
    const max = this.#options.maxTextBytes;
    const cut = (s: string) => truncateText(s, max).text;
    const out: HookOutcome = { ...o };
    if (o.block !== undefined) out.block = cut(o.block);
    if (o.context !== undefined) out.context = cut(o.context);
    if (o.permissionReason !== undefined) out.permissionReason = cut(o.permissionReason);
    if (o.stop) out.stop = { reason: cut(o.stop.reason) };
    if (o.notices) out.notices = o.notices.map(cut);
    return out;
  }
}

/** A hook's name in notices: its command, cut to one short line. */
function label(command: string): string {
  const line = command.replace(/\s+/g, " ").trim();
  return JSON.stringify(line.length > 60 ? line.slice(0, 57) + "..." : line);
}
