/**
 * The agent loop in process: a scripted in-memory provider, scripted tools and approvals, a
 * recording sink, and a harness that runs one turn with them. No process, no HTTP.
 */
import * as z from "zod";
import { assert, assertEquals } from "../../support/assert.ts";
import type { TurnEnd, TurnEvent } from "../../../protocol/turn_events.ts";
import type { ApprovalRequest, Approvals } from "../../../server/core/approvals.ts";
import type { AgentDeps } from "../../../server/core/deps.ts";
import { runTurn } from "../../../server/core/run_turn.ts";
import { type Config, DEFAULT_CONFIG } from "../../../server/config.ts";
import type { ContextManager, FitPlan, TrimPlan } from "../../../server/core/context_manager.ts";
import type {
  ChatMessage,
  ChatToolCall,
  Provider,
  ProviderEvent,
  ProviderRequest,
} from "../../../server/provider/types.ts";
import { ToolRegistry } from "../../../server/tools/registry.ts";
import { type AnyTool, defineTool, type ToolResult } from "../../../server/tools/tool.ts";
import { Session } from "../../../server/core/session.ts";
import { Turn } from "../../../server/core/turn.ts";

/** Resolves when the signal aborts, rejecting with its reason: a wait only cancellation ends. */
export function untilAborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) return reject(signal.reason);
    signal.addEventListener("abort", () => reject(signal.reason), { once: true });
  });
}

/** One provider call's script: its events, or a function producing them. */
export type ProviderStep =
  | ProviderEvent[]
  | ((request: ProviderRequest) => AsyncIterable<ProviderEvent>);

/** A text answer, streamed in the given pieces. */
export function answer(...pieces: string[]): ProviderEvent[] {
  return [
    ...pieces.map((text) => ({ type: "text" as const, text })),
    { type: "done", message: { role: "assistant", content: pieces.join("") } },
  ];
}

/** A tool call as the model sends it; `args` is encoded unless it is already a string. */
export function call(id: string, name: string, args: unknown = {}): ChatToolCall {
  return {
    id,
    type: "function",
    function: { name, arguments: typeof args === "string" ? args : JSON.stringify(args) },
  };
}

/** A step that asks for tool calls (with optional text first). */
export function callTools(calls: ChatToolCall[], text = ""): ProviderEvent[] {
  return [
    ...(text ? [{ type: "text" as const, text }] : []),
    ...calls.map((c) => ({ type: "tool_call" as const, call: c })),
    { type: "done", message: { role: "assistant", content: text || null, tool_calls: calls } },
  ];
}

/** A provider that plays one step per call and records each request's messages. */
export class ScriptedProvider implements Provider {
  /** The messages of each call, copied when the call was made. */
  readonly requests: ChatMessage[][] = [];
  #steps: ProviderStep[];

  /** Plays `steps` in order; a call past the end fails the test. */
  constructor(steps: ProviderStep[]) {
    this.#steps = [...steps];
  }

  /** One call: the next step's events. */
  stream(request: ProviderRequest): AsyncIterable<ProviderEvent> {
    this.requests.push(structuredClone(request.messages));
    const step = this.#steps.shift();
    if (!step) throw new Error(`unexpected provider call #${this.requests.length}`);
    if (typeof step === "function") return step(request);
    return (async function* () {
      for (const ev of step) {
        request.signal.throwIfAborted();
        yield ev;
      }
    })();
  }
}

/** A tool whose behaviour a test scripts; records the arguments of each run. */
export function scriptedTool(
  name: string,
  options: {
    risk?: AnyTool["risk"];
    run?: (
      args: { text?: string | undefined },
      ctx: Parameters<AnyTool["run"]>[1],
    ) => Promise<ToolResult>;
    runs?: unknown[];
  } = {},
): AnyTool {
  return defineTool({
    name,
    description: `The ${name} test tool`,
    schema: z.object({ text: z.string().optional() }),
    risk: options.risk ?? (() => "read"),
    summary: (args) => `${name} ${args.text ?? ""}`.trim(),
    run: (args, ctx) => {
      options.runs?.push(args);
      return options.run?.(args, ctx) ??
        Promise.resolve({ success: true, output: `${name}: ${args.text ?? ""}`, truncated: false });
    },
  });
}

/** Approvals that answer from a function and record every request. */
export class ScriptedApprovals implements Approvals {
  /** Every request, in order. */
  readonly requests: ApprovalRequest[] = [];
  #decide: (request: ApprovalRequest, signal: AbortSignal) => Promise<boolean>;

  /** Answers with `decide` (default: approve). */
  constructor(decide?: (request: ApprovalRequest, signal: AbortSignal) => Promise<boolean>) {
    this.#decide = decide ?? (() => Promise.resolve(true));
  }

  /** Records the request and answers it. */
  request(request: ApprovalRequest, signal: AbortSignal): Promise<boolean> {
    this.requests.push(request);
    return this.#decide(request, signal);
  }
}

/** A context manager with no limits, or with scripted plans. */
export function scriptedContext(options: {
  fit?: (history: ChatMessage[], turnStart: number) => FitPlan | Promise<FitPlan>;
  trim?: (history: ChatMessage[], turnStart: number) => TrimPlan;
} = {}): ContextManager & { calibrations: number[] } {
  const calibrations: number[] = [];
  return {
    calibrations,
    ready: Promise.resolve(),
    tokenizer: undefined,
    fit: async (history, { turnStart, systemPrompt }) =>
      await options.fit?.(history, turnStart) ??
        { kind: "fits", messages: [{ role: "system", content: systemPrompt }, ...history] },
    trim: (history, turnStart) => options.trim?.(history, turnStart) ?? { kind: "fits" },
    calibrate: (_messages, promptTokens) => void calibrations.push(promptTokens),
    window: 128_000,
    learnWindow: () => undefined,
    overflowed: () => Promise.resolve(),
  };
}

/** What one in-process turn runs with; everything has a default. */
export interface Harness {
  steps?: ProviderStep[];
  provider?: Provider;
  tools?: AnyTool[];
  approvals?: Approvals;
  context?: ContextManager;
  config?: Partial<Config>;
  session?: Session;
  controller?: AbortController;
  /** Called for each event before it is recorded; may wait (honouring the signal) or throw. */
  sink?: (event: TurnEvent, signal: AbortSignal | undefined) => Promise<void> | void;
  prompt?: string;
  /** Overrides of the agent's dependencies (the reasoning and notice opt-ins, say). */
  deps?: Partial<AgentDeps>;
}

/** The outcome of {@link runScripted}. */
export interface Ran {
  end: TurnEnd;
  events: TurnEvent[];
  types: string[];
  session: Session;
  turn: Turn;
  /** The messages of each provider call, when the provider was scripted. */
  requests: ChatMessage[][];
}

/** Runs one turn in process and checks the invariants every turn keeps. */
export async function runScripted(h: Harness): Promise<Ran> {
  const session = h.session ?? new Session("/workspace");
  const config: Config = { ...DEFAULT_CONFIG, approval_policy: "never", ...h.config };
  const events: TurnEvent[] = [];
  const turn = new Turn({
    session,
    requestId: "r1",
    prompt: h.prompt ?? "do it",
    maxFrameBytes: config.max_server_frame_bytes,
    sink: async (event, signal) => {
      await h.sink?.(event, signal);
      events.push(structuredClone(event));
    },
  });
  const provider = h.provider ?? new ScriptedProvider(h.steps ?? []);
  const deps: AgentDeps = {
    config,
    provider,
    tools: new ToolRegistry(h.tools ?? []),
    context: h.context ?? scriptedContext(),
    approvals: h.approvals ?? new ScriptedApprovals(),
    signal: (h.controller ?? new AbortController()).signal,
    systemPrompt: "You are a test.",
    secretEnv: [],
    ...h.deps,
  };
  const end = await runTurn(turn, deps);
  const types = events.map((e) => e.type);
  assertEquals(types[0], "turn.started", `first event: ${types.join(", ")}`);
  const terminals = types.filter((t) => /^turn\.(completed|cancelled|failed)$/.test(t));
  assertEquals(terminals, [end.type], `terminal events: ${types.join(", ")}`);
  assertEquals(types.at(-1), end.type);
  assertEquals(events.map((e) => e.seq), events.map((_, i) => i + 1));
  assertHistoryValid(session.history);
  const requests = provider instanceof ScriptedProvider ? provider.requests : [];
  return { end, events, types, session, turn, requests };
}

/** Every tool call in the history has exactly one result. */
export function assertHistoryValid(history: ChatMessage[]): void {
  const calls = history.flatMap((m) => m.role === "assistant" ? m.tool_calls ?? [] : []);
  const results = history.flatMap((m) => m.role === "tool" ? [m.tool_call_id] : []);
  assertEquals(results.sort(), calls.map((c) => c.id).sort(), "tool calls and results");
}

/** The events of one type, narrowed. */
export function eventsOf<T extends TurnEvent["type"]>(
  events: TurnEvent[],
  type: T,
): Extract<TurnEvent, { type: T }>[] {
  return events.filter((e): e is Extract<TurnEvent, { type: T }> => e.type === type);
}

/** The one event of a type. */
export function only<T extends TurnEvent["type"]>(
  events: TurnEvent[],
  type: T,
): Extract<TurnEvent, { type: T }> {
  const found = eventsOf(events, type);
  assert(found.length === 1, `${found.length} ${type} events`);
  return found[0]!;
}
