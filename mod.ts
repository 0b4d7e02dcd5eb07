/**
 * scv as a library: start a Peon server on any pair of byte streams, talk to it with a typed
 * client, add tools and providers, load configuration the way the CLI does, and drive the agent
 * core (`Turn`, `runTurn`) from a front-end of your own (see docs/agent_core.md).
 *
 * @example
 * ```ts ignore
 * import { DEFAULT_CONFIG, PeonClient, serve } from "./mod.ts";
 * const c2s = new TransformStream<Uint8Array, Uint8Array>();
 * const s2c = new TransformStream<Uint8Array, Uint8Array>();
 * const done = serve({ readable: c2s.readable, writable: s2c.writable, config: { ...DEFAULT_CONFIG } });
 * const client = new PeonClient(s2c.readable, c2s.writable);
 * await client.initialize();
 * await client.close();
 * await done;
 * ```
 *
 * @module
 */
export * from "./protocol/schema.ts";
export * from "./protocol/turn_events.ts";
export {
  encodeFrame,
  FrameTooLargeError,
  NdjsonDecoderStream,
  NdjsonEncoderStream,
} from "./protocol/ndjson.ts";
export type { DecodedFrame } from "./protocol/ndjson.ts";
export { PeonClient, PeonRequestError } from "./protocol/client.ts";
export type {
  ClientInput,
  ClientListener,
  OutgoingMessage,
  PeonClientOptions,
} from "./protocol/client.ts";
export { providerFromConfig, serve } from "./server/serve.ts";
export type { ServeOptions } from "./server/serve.ts";
export { ConfigError, DEFAULT_CONFIG, loadConfig, parseConfigText } from "./server/config.ts";
export type { ApprovalPolicy, Config, ConfigFlags } from "./server/config.ts";
export { defineTool } from "./server/tools/tool.ts";
export type { AnyTool, Tool, ToolContext, ToolLimits, ToolResult } from "./server/tools/tool.ts";
export { ToolRegistry } from "./server/tools/registry.ts";
export { builtinTools } from "./server/tools/builtin.ts";
export { OpenAIProvider } from "./server/provider/openai.ts";
export type { OpenAIProviderOptions } from "./server/provider/openai.ts";
export { ProviderError } from "./server/provider/types.ts";
export type {
  AssistantMessage,
  ChatMessage,
  ChatToolCall,
  Provider,
  ProviderData,
  ProviderEvent,
  ProviderRequest,
  ProviderUsage,
  ToolSpec,
} from "./server/provider/types.ts";
export { CANCELLED_RESULT, fieldBudget, Turn } from "./server/turn.ts";
export type { TurnEndObserver, TurnOptions, TurnSink } from "./server/turn.ts";
export { TurnFailure } from "./server/turn_failure.ts";
export { runTurn } from "./server/agent/run_turn.ts";
export type { AgentDeps } from "./server/agent/deps.ts";
export { needsApproval } from "./server/agent/approvals.ts";
export type { ApprovalRequest, Approvals } from "./server/agent/approvals.ts";
export { Session } from "./server/session.ts";
export type { HistoryCut, UsageTotals } from "./server/session.ts";
export { answerReserve, createContextManager } from "./server/context_manager.ts";
export type { ContextManager, FitPlan, TrimPlan } from "./server/context_manager.ts";
