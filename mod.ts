/**
 * scv as a library: start a Peon server on any pair of byte streams, talk to it with a typed
 * client, add tools and providers, and load configuration the way the CLI does. The agent core
 * that front-ends drive (`server/core/turn.ts`, `server/core/run_turn.ts`) is described in
 * docs/agent_core.md.
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
export * from "./protocol/constants.ts";
export * from "./protocol/wire.ts";
export type * from "./protocol/types.ts";
export * from "./protocol/turn_events.ts";
export {
  encodeFrame,
  FrameTooLargeError,
  NdjsonDecoderStream,
  NdjsonEncoderStream,
} from "./protocol/ndjson.ts";
export type { DecodedFrame } from "./protocol/ndjson.ts";
export { PeonClient, PeonRequestError } from "./protocol/mod.ts";
export type {
  ClientInput,
  ClientListener,
  DistributiveOmit,
  OutgoingMessage,
  PeonClientOptions,
} from "./protocol/mod.ts";
export { providerFromConfig, serve } from "./server/peon/serve.ts";
export type { ServeOptions } from "./server/peon/serve.ts";
export { ConfigError, DEFAULT_CONFIG, loadConfig, parseConfigText } from "./server/config.ts";
export type { ApprovalPolicy, Config, ConfigFlags } from "./server/config.ts";
export { defineTool } from "./server/tools/tool.ts";
export type {
  AnyTool,
  ArgumentCheck,
  ArgumentIssue,
  ArgumentSchema,
  ArgumentsOf,
  FileChangePreview,
  Tool,
  ToolContext,
  ToolLimits,
  ToolResult,
} from "./server/tools/tool.ts";
export { ToolRegistry } from "./server/tools/registry.ts";
export { builtinTools } from "./server/tools/builtin.ts";
export { OpenAIProvider } from "./server/provider/openai.ts";
export type { OpenAIProviderOptions } from "./server/provider/openai.ts";
export { AnthropicProvider } from "./server/provider/anthropic.ts";
export { OpenAIResponsesProvider } from "./server/provider/openai_responses.ts";
export type { ProviderOptions } from "./server/provider/options.ts";
export { ProviderMemory } from "./server/provider/memory.ts";
export type { RetryPolicy } from "./server/provider/retry.ts";
export {
  ContextOverflowError,
  ProviderError,
  type ProviderQuote,
} from "./server/provider/types.ts";
export type {
  AssistantMessage,
  ChatMessage,
  ChatToolCall,
  ImagePart,
  Provider,
  ProviderData,
  ProviderEvent,
  ProviderRequest,
  ProviderUsage,
  ToolMessage,
  ToolSpec,
  UserMessage,
} from "./server/provider/types.ts";
export type { ProviderFailureCode } from "./server/provider/types.ts";
export type { ResponseLimits } from "./server/provider/limits.ts";
export type { ConfigSources, ProviderKind, SandboxMode } from "./server/config.ts";
export type { SandboxLimits } from "./server/sandbox_limits.ts";
export type { BashOptions } from "./server/tools/bash.ts";
export type { WebFetchConfig } from "./server/tools/web_fetch.ts";
export type {
  McpHttpServerConfig,
  McpServerCommon,
  McpServerConfig,
  McpStdioServerConfig,
} from "./server/mcp_servers.ts";
export type { McpServerStatus } from "./server/mcp/manager.ts";
export type { ModelPrice } from "./server/pricing.ts";
export type { CommandHook, HookEvent, HooksConfig, MatcherGroup } from "./server/hooks_config.ts";
export type { McpStatus } from "./server/mcp/server.ts";
