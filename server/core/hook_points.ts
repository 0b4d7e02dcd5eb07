/**
 * Where the agent core fires hooks (server/hooks/): the session's start and end, a prompt, a
 * tool call before and after it runs, and a turn about to stop. Each point builds the event's
 * JSON from the session and hands back what the hooks decided.
 *
 * @module
 */
import type { Config } from "../config.ts";
import { type HookCommonInput, Hooks, permissionMode } from "../hooks/hooks.ts";
import type { HookOutcome } from "../hooks/outcome.ts";
import { hookToolCall, hookToolResponse } from "../hooks/tool_names.ts";
import { providerSecretEnv } from "../provider/secret_env.ts";
import type { Session } from "./session.ts";
import { callEnv } from "../tools/bash_env.ts";
import { after } from "../timer.ts";

/** Keyed by the `hooks` object, which every copy of a loaded config shares. */
const built = new WeakMap<object, Hooks | undefined>();

/**
 * The hooks of a configuration, built once per loaded configuration; undefined when none is set. Their
 * environment is bash's clean one (the core set and `shell_env_passthrough`) without the
 * provider's key, even when `shell_env_passthrough` names it.
 */
export function hooksOf(config: Config): Hooks | undefined {
  if (built.has(config.hooks)) return built.get(config.hooks);
  let hooks: Hooks | undefined;
  if (Object.keys(config.hooks).length > 0) {
    const secrets = providerSecretEnv(config);
    const env = callEnv({
      passthrough: config.shell_env_passthrough.filter((n) => !secrets.includes(n)),
      secrets,
    });
    hooks = new Hooks(config.hooks, { env, maxTextBytes: config.max_tool_output_bytes });
  }
  built.set(config.hooks, hooks);
  return hooks;
}

/** The fields every event's JSON carries, for this session under `policy`. */
export function commonInput(session: Session, policy: string): HookCommonInput {
  return {
    session_id: session.id,
    transcript_path: session.recorder?.path ?? "",
    cwd: session.cwd,
    permission_mode: permissionMode(policy),
  };
}

/** How a session came to be, as `SessionStart`'s `source` says it. */
export type SessionSource = "startup" | "resume" | "clear";

/**
 * Fires `SessionStart` in the background; the session's first turn waits for it and takes its
 * context and notices (see {@link takeSessionStart}).
 */
export function startSessionHooks(session: Session, config: Config, source: SessionSource): void {
  const hooks = hooksOf(config);
  if (!hooks?.has("SessionStart")) return;
  const model = session.model ?? config.model;
  const stop = new AbortController();
  starting.set(session, stop);
  const fired = hooks.fire(
    "SessionStart",
    source,
    commonInput(session, session.approvalPolicy ?? config.approval_policy),
    { source, model },
    stop.signal,
  );
  session.hookStart = fired;
  void fired.finally(() => {
    if (starting.get(session) === stop) starting.delete(session);
  });
}

/** The `SessionStart` hooks still running per session, so that its end can stop them. */
const starting = new WeakMap<Session, AbortController>();

/** What `SessionStart` decided, once; later turns get nothing. */
export async function takeSessionStart(
  session: Session,
  signal: AbortSignal,
): Promise<HookOutcome | undefined> {
  const pending = session.hookStart;
  if (!pending) return undefined;
  session.hookStart = undefined;
  const { promise, resolve, reject } = Promise.withResolvers<HookOutcome>();
  const onAbort = () => reject(signal.reason);
  signal.addEventListener("abort", onAbort, { once: true });
  pending.then(resolve, reject);
  try {
    return await promise;
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
}

/**
 * The most a `SessionEnd` hook may take, in seconds, whatever its `timeout`: the session is
 * ending, and scv's exit must stay within its grace period.
 */
export const SESSION_END_TIMEOUT_S = 2;

/** Fires `SessionEnd` and waits for it, at most {@link SESSION_END_TIMEOUT_S}. */
export async function endSessionHooks(
  session: Session,
  config: Config,
  reason: "clear" | "other",
): Promise<HookOutcome | undefined> {
  // A SessionStart hook still running when the session ends is killed first.
  const pending = session.hookStart;
  starting.get(session)?.abort();
  await pending?.catch(() => {});
  session.hookStart = undefined;
  const hooks = hooksOf(config);
  if (!hooks?.has("SessionEnd")) return undefined;
  const stop = new AbortController();
  const timer = after(SESSION_END_TIMEOUT_S * 1000, () => stop.abort());
  try {
    return await hooks.fire(
      "SessionEnd",
      reason,
      commonInput(session, session.approvalPolicy ?? config.approval_policy),
      { reason },
      stop.signal,
    );
  } finally {
    timer.cancel();
  }
}

/** `UserPromptSubmit` for the turn's prompt. */
export async function promptHooks(
  hooks: Hooks | undefined,
  session: Session,
  config: Config,
  prompt: string,
  signal: AbortSignal,
): Promise<HookOutcome | undefined> {
  if (!hooks?.has("UserPromptSubmit")) return undefined;
  return await hooks.fire(
    "UserPromptSubmit",
    undefined,
    commonInput(session, config.approval_policy),
    { prompt },
    signal,
  );
}

/** `PreToolUse` for one call. */
export async function preToolHooks(
  hooks: Hooks | undefined,
  session: Session,
  config: Config,
  call: { id: string; name: string; args: unknown },
  signal: AbortSignal,
): Promise<HookOutcome | undefined> {
  if (!hooks?.has("PreToolUse")) return undefined;
  const tool = hookToolCall(call.name, call.args, session.cwd);
  return await hooks.fire(
    "PreToolUse",
    tool.tool_name,
    commonInput(session, config.approval_policy),
    { ...tool, tool_use_id: call.id },
    signal,
  );
}

/** `PostToolUse` for one call that ran and succeeded. */
export async function postToolHooks(
  hooks: Hooks | undefined,
  session: Session,
  config: Config,
  call: { id: string; name: string; args: unknown },
  result: { success: boolean; output: string },
  signal: AbortSignal,
): Promise<HookOutcome | undefined> {
  if (!hooks?.has("PostToolUse")) return undefined;
  const tool = hookToolCall(call.name, call.args, session.cwd);
  return await hooks.fire(
    "PostToolUse",
    tool.tool_name,
    commonInput(session, config.approval_policy),
    {
      ...tool,
      tool_response: hookToolResponse(
        tool.tool_name,
        tool.tool_input,
        result.success,
        result.output,
      ),
      tool_use_id: call.id,
    },
    signal,
  );
}

/** `Stop` when the turn is about to end; `active` after a Stop hook already kept it going. */
export async function stopHooks(
  hooks: Hooks | undefined,
  session: Session,
  config: Config,
  active: boolean,
  lastMessage: string,
  signal: AbortSignal,
): Promise<HookOutcome | undefined> {
  if (!hooks?.has("Stop")) return undefined;
  return await hooks.fire(
    "Stop",
    undefined,
    commonInput(session, config.approval_policy),
    { stop_hook_active: active, last_assistant_message: lastMessage },
    signal,
  );
}
