/**
 * What a finished hook means, as Claude Code documents it (docs/hooks.md): its exit code, its
 * stderr and its stdout (plain text, or a JSON object with `continue`, `stopReason`,
 * `systemMessage`, `decision`/`reason` and `hookSpecificOutput`), read for the event it ran
 * for; and several hooks' outcomes of one event combined. Pure.
 *
 * @module
 */
import type { HookEvent } from "../hooks_config.ts";

/** How a hook process ended, as the runner saw it. */
export type HookExit =
  | { kind: "exited"; code: number; stdout: string; stderr: string }
  | { kind: "timeout"; seconds: number; stderr: string }
  | { kind: "failed"; message: string };

/** A permission decision of a `PreToolUse` hook. */
export type PermissionDecision = "allow" | "deny" | "ask";

/** What one event's hooks decided; every field is optional, and absent means "nothing". */
export interface HookOutcome {
  /**
   * Blocks what the event is about, with the text the model (PreToolUse, PostToolUse, Stop) or
   * the user (UserPromptSubmit) is given: exit 2's stderr, or `decision: "block"`'s reason.
   */
  block?: string;
  /** `PreToolUse`: the permission decision, and its reason. */
  permission?: PermissionDecision;
  permissionReason?: string;
  /** Text added to the model's context (`additionalContext`, or plain stdout where it counts). */
  context?: string;
  /** `continue: false`: the turn ends after this event; `stopReason` is for the user. */
  stop?: { reason: string };
  /** Lines for the user: failures, timeouts, `systemMessage`, a blocked prompt's reason. */
  notices?: string[];
}

/** Events whose plain stdout (on exit 0) is added to the model's context. */
const STDOUT_IS_CONTEXT: ReadonlySet<HookEvent> = new Set(["UserPromptSubmit", "SessionStart"]);

/** Events that exit code 2 and `decision: "block"` can block. */
const BLOCKABLE: ReadonlySet<HookEvent> = new Set([
  "PreToolUse",
  "PostToolUse",
  "UserPromptSubmit",
  "Stop",
]);

/** The longest piece of a hook's stderr quoted in a notice. */
const NOTICE_STDERR_CHARS = 500;

function clip(s: string, n: number): string {
  const t = s.trim();
  return t.length > n ? t.slice(0, n) + "…" : t;
}

/**
 * What one hook's end means for `event`. `label` names the hook in notices.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readHookExit } from "./outcome.ts";
 * const exit2 = { kind: "exited" as const, code: 2, stdout: "", stderr: "no rm" };
 * assert.deepEqual(readHookExit("PreToolUse", exit2, "h"), { block: "no rm" });
 * const json = JSON.stringify({ hookSpecificOutput: { permissionDecision: "ask" } });
 * const ok = { kind: "exited" as const, code: 0, stdout: json, stderr: "" };
 * assert.deepEqual(readHookExit("PreToolUse", ok, "h"), { permission: "ask" });
 * ```
 */
export function readHookExit(event: HookEvent, exit: HookExit, label: string): HookOutcome {
  if (exit.kind === "failed") return { notices: [`Hook ${label} could not run: ${exit.message}`] };
  if (exit.kind === "timeout") {
    return {
      notices: [
        `Hook ${label} timed out after ${exit.seconds} s and was killed` +
        (exit.stderr.trim() ? `: ${clip(exit.stderr, NOTICE_STDERR_CHARS)}` : ""),
      ],
    };
  }
  if (exit.code === 2) {
    const stderr = exit.stderr.trim() || `hook ${label} exited 2 without a message`;
    if (!BLOCKABLE.has(event)) return { notices: [`Hook ${label}: ${clip(stderr, 2000)}`] };
    if (event === "UserPromptSubmit") {
      return { block: stderr, notices: [`The prompt was blocked by hook ${label}: ${stderr}`] };
    }
    return { block: stderr };
  }
  if (exit.code !== 0) {
    return {
      notices: [
        `Hook ${label} failed (exit ${exit.code})` +
        (exit.stderr.trim() ? `: ${clip(exit.stderr, NOTICE_STDERR_CHARS)}` : ""),
      ],
    };
  }
  const json = parseObject(exit.stdout);
  if (!json) {
    const text = exit.stdout.trim();
    return STDOUT_IS_CONTEXT.has(event) && text ? { context: text } : {};
  }
  return readJson(event, json, label);
}

/** The stdout as a JSON object, or undefined when it is not one. */
function parseObject(stdout: string): Record<string, unknown> | undefined {
  const text = stdout.trim();
  if (!text.startsWith("{")) return undefined;
  try {
    const v = JSON.parse(text);
    return typeof v === "object" && v !== null && !Array.isArray(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

function str(v: unknown): string | undefined {
  return typeof v === "string" ? v : undefined;
}

function readJson(event: HookEvent, j: Record<string, unknown>, label: string): HookOutcome {
  const out: HookOutcome = {};
  const notices: string[] = [];
  const system = str(j.systemMessage);
  if (system) notices.push(system);
  if (j.continue === false) {
    out.stop = { reason: str(j.stopReason) ?? `hook ${label} asked to stop` };
  }
  const specific = typeof j.hookSpecificOutput === "object" && j.hookSpecificOutput !== null
    ? j.hookSpecificOutput as Record<string, unknown>
    : {};
  const context = str(specific.additionalContext);
  if (context && event !== "PreToolUse" && event !== "Stop" && event !== "SessionEnd") {
    out.context = context;
  }
  const reason = str(j.reason);
  if (event === "PreToolUse") {
    const decision = specific.permissionDecision;
    if (decision === "allow" || decision === "deny" || decision === "ask") {
      out.permission = decision;
      const why = str(specific.permissionDecisionReason);
      if (why) out.permissionReason = why;
    } else if (j.decision === "approve" || j.decision === "block") {
      // The older top-level fields, which Claude Code still reads for PreToolUse.
      out.permission = j.decision === "approve" ? "allow" : "deny";
      if (reason) out.permissionReason = reason;
    }
  } else if (j.decision === "block" && BLOCKABLE.has(event)) {
    out.block = reason ?? `blocked by hook ${label}`;
    if (event === "UserPromptSubmit") {
      notices.push(`The prompt was blocked by hook ${label}: ${out.block}`);
    }
  }
  if (notices.length > 0) out.notices = notices;
  return out;
}

/** How strict each permission decision is: the strictest of several hooks wins. */
const STRICTNESS: Readonly<Record<PermissionDecision, number>> = { allow: 0, ask: 1, deny: 2 };

/**
 * Several hooks' outcomes of one event as one: blocks, contexts and notices add up, the
 * strictest permission decision wins (deny over ask over allow), any stop stops.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { combineOutcomes } from "./outcome.ts";
 * assert.deepEqual(
 *   combineOutcomes([{ permission: "allow" }, { permission: "deny", permissionReason: "no" }]),
 *   { permission: "deny", permissionReason: "no" },
 * );
 * ```
 */
export function combineOutcomes(outcomes: readonly HookOutcome[]): HookOutcome {
  const out: HookOutcome = {};
  const join = (a: string | undefined, b: string) => a === undefined ? b : `${a}\n${b}`;
  for (const o of outcomes) {
    if (o.block !== undefined) out.block = join(out.block, o.block);
    if (o.context !== undefined) out.context = join(out.context, o.context);
    if (o.stop && !out.stop) out.stop = o.stop;
    if (o.notices) out.notices = [...(out.notices ?? []), ...o.notices];
    if (
      o.permission &&
      (!out.permission || STRICTNESS[o.permission] > STRICTNESS[out.permission])
    ) {
      out.permission = o.permission;
      if (o.permissionReason !== undefined) out.permissionReason = o.permissionReason;
      else delete out.permissionReason;
    }
  }
  return out;
}
