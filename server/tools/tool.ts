/**
 * The interface every tool implements. A tool is a name, a description for the model, a zod
 * schema for its arguments, a risk, a one-line approval summary and a `run`. Failures at run
 * time are values (`success: false` with a message the model can act on), never throws; a
 * throw from `run` is caught by the agent loop and reported the same way.
 *
 * @module
 */
import type { PlanStatus, Risk } from "../../protocol/constants.ts";
import type { ImagePart } from "../images/image_part.ts";

export type { Risk };

/** One reason arguments failed their schema; zod's issues have this shape. */
export interface ArgumentIssue {
  /** Where in the arguments: property names and array indexes, outermost first. */
  readonly path: readonly PropertyKey[];
  /** What is wrong, in a sentence. */
  readonly message: string;
  /** The kind of issue (zod's `invalid_type`, `too_small`...); omitted when unknown. */
  readonly code?: string;
  /** For a wrong type: the type expected; omitted otherwise. */
  readonly expected?: unknown;
}

/** The outcome of checking arguments against a tool's schema. */
export type ArgumentCheck<A> =
  | { readonly success: true; readonly data: A }
  | { readonly success: false; readonly error: { readonly issues: readonly ArgumentIssue[] } };

/**
 * What scv needs of a tool's argument schema: zod's `safeParse`. Any zod schema is one
 * (`z.object({...})`), and scv sends it to the model as JSON Schema.
 */
export interface ArgumentSchema<A> {
  /** Checks raw arguments; never throws. */
  safeParse(value: unknown): ArgumentCheck<A>;
}

/** The argument type a schema's successful check yields. */
export type ArgumentsOf<S> = S extends { safeParse(value: unknown): infer R }
  ? R extends { success: true; data: infer D } ? D : never
  : never;

/** The longest delay a timer can hold (server/timer.ts owns it; tools read it from here). */
export { MAX_TIMER_MS } from "../timer.ts";

/** Limits a tool must respect. */
export interface ToolLimits {
  /** Output kept (head and tail) before `truncated: true`. */
  maxOutputBytes: number;
  /** Wall-clock limit for one call, in milliseconds. */
  timeoutMs: number;
}

/** What a tool call runs with. */
export interface ToolContext {
  /** The session's canonical workspace directory. */
  cwd: string;
  /**
   * Aborted on cancellation, or with a `ToolTimeoutError` when the call runs out of time; a
   * tool stops promptly and returns.
   */
  signal: AbortSignal;
  /** The output bound and time limit of this call. */
  limits: ToolLimits;
  /** Names of environment variables that must not reach child processes (API keys). */
  secretEnv: readonly string[];
  /**
   * scv 0.3: the largest image a tool may give the model (`max_image_bytes`); omitted: the
   * provider takes no images, and a tool says so instead of giving one.
   */
  maxImageBytes?: number;
  /** scv 0.3: the session the call belongs to, for what a tool keeps per session (web_fetch's cache). */
  sessionId?: string;
}

/**
 * The reason a call's signal is aborted with when the call runs past its time limit
 * (`tool_timeout_ms`), so that a tool can tell a timeout from a cancellation.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ToolTimeoutError } from "./tool.ts";
 * assert(new ToolTimeoutError("grep", 50).message === "grep timed out after 50 ms");
 * ```
 */
export class ToolTimeoutError extends Error {
  /** The limit that was reached, in milliseconds. */
  readonly ms: number;
  /** Creates the reason for `tool` stopped after `ms` milliseconds. */
  constructor(tool: string, ms: number) {
    super(`${tool} timed out after ${ms} ms`);
    this.name = "ToolTimeoutError";
    this.ms = ms;
  }
}

/**
 * What a tool that stopped because its signal was aborted reports: the timeout's message when
 * the call ran out of time, else `cancelled`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { stopMessage, ToolTimeoutError } from "./tool.ts";
 * const c = new AbortController();
 * c.abort(new ToolTimeoutError("glob", 10));
 * assert(stopMessage(c.signal, "cancelled") === "glob timed out after 10 ms");
 * ```
 */
export function stopMessage(signal: AbortSignal, cancelled: string): string {
  return signal.reason instanceof ToolTimeoutError ? signal.reason.message : cancelled;
}

/** A tool call's result; `output` is what the model sees. */
export interface ToolResult {
  /** Whether the call did what was asked; a failure's `output` says why. */
  success: boolean;
  /** What the model sees (bounded again before it is sent). */
  output: string;
  /** Whether `output` was cut to the output limit. */
  truncated: boolean;
  /** scv 0.3: images the model sees with the output (read_file of an image); omitted: none. */
  images?: ImagePart[];
  /**
   * scv 0.3: the plan the call set (`update_plan`), which the turn announces as `plan.updated`
   * before the call completes; omitted: the call set none.
   */
  plan?: { text: string; status: PlanStatus }[];
}

/** A file change a call would make, shown before it runs (`approval.requested.preview`). */
export interface FileChangePreview {
  /** The path as diffs show it: relative to the workspace. */
  path: string;
  /** The absolute path. */
  absolute: string;
  /** The file's text now; null when it does not exist yet. */
  before: string | null;
  /** Its text after the call. */
  after: string;
}

/** One tool. `A` is the parsed argument type. */
export interface Tool<A = unknown> {
  /** The name the model calls it by. */
  readonly name: string;
  /** What the tool does, for the model. */
  readonly description: string;
  /** Validates arguments (a zod schema); sent to the provider as JSON Schema. */
  readonly schema: ArgumentSchema<A>;
  /**
   * The JSON Schema sent to the provider instead of one derived from `schema`: for tools whose
   * schema comes from elsewhere as JSON (MCP servers' tools).
   */
  readonly parameters?: Record<string, unknown>;
  /** This tool's time limit per call, instead of `tool_timeout_ms` (an MCP server's own). */
  readonly timeoutMs?: number;
  /**
   * scv 0.3: the tool changes nothing (no file, no process, nothing outside scv): in plan mode
   * (`approval_policy: "plan"`) its calls run where their risk is neither `write` nor `process`
   * (`runsInPlanMode` in `registry.ts`). Absent: false, so plan mode refuses the tool.
   */
  readonly readOnly?: boolean;
  /**
   * scv 0.3: a call runs without asking under every policy (`update_plan`: it only tells the
   * user something). Absent: the policy decides.
   */
  readonly neverAsks?: boolean;
  /**
   * The risk of one call, used for approval. A `read` tool whose path leaves the workspace
   * reports `write`.
   */
  risk(args: A, ctx: { cwd: string }): Risk | Promise<Risk>;
  /** The one-line approval summary, e.g. `Run shell command: ls`. */
  summary(args: A): string;
  /**
   * Whether calls run inside the OS sandbox (`bash` with the sandbox on), reported as
   * `approval.requested.sandboxed`; absent for tools that run no process.
   */
  sandboxed?(): boolean;
  /**
   * Under `approval_policy: "auto"`: whether a call of this risk runs without asking. Absent:
   * only `read` calls do.
   */
  autoApproved?(risk: Risk): boolean;
  /**
   * The file change a call would make, read now for the approval preview; undefined when there
   * is none to show (the call would fail, the file is not text). Absent for other tools.
   */
  preview?(args: A, ctx: { cwd: string }): Promise<FileChangePreview | undefined>;
  /** Runs one call. Should not throw; a throw is reported as a failed call. */
  run(args: A, ctx: ToolContext): Promise<ToolResult>;
  /**
   * Starts the one-time set-up its calls need (a sandbox's probes) in the background, as soon as
   * a call is proposed: it then overlaps the approval, the hooks and the checkpoint snapshot.
   * `cwd` is where the call will run. Must change nothing the user could see.
   */
  warm?(cwd: string): void;
  /**
   * For a tool whose code loads on first use (scv's built-ins in a server: `lazyTool`): loads
   * it. Until it resolves, `schema` accepts nothing and `risk`, `summary`, `preview` and `run`
   * throw; the name, description, parameters and flags are there from the start. Absent: the
   * tool is loaded.
   */
  load?(): Promise<void>;
}

/** A tool of any argument type, as stored in a registry. */
// deno-lint-ignore no-explicit-any
export type AnyTool = Tool<any>;

/**
 * Builds a tool with its argument type inferred from its schema.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import * as z from "zod";
 * import { defineTool } from "./tool.ts";
 * const echo = defineTool({
 *   name: "echo",
 *   description: "Echo text back",
 *   schema: z.object({ text: z.string() }),
 *   risk: () => "read",
 *   summary: (a) => `Echo: ${a.text}`,
 *   run: (a) => Promise.resolve({ success: true, output: a.text, truncated: false }),
 * });
 * assert(echo.name === "echo");
 * ```
 */
export function defineTool<S extends ArgumentSchema<unknown>>(
  tool: Tool<ArgumentsOf<S>> & { schema: S },
): Tool<ArgumentsOf<S>> {
  return tool;
}
