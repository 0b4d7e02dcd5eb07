/**
 * What one turn of the agent loop runs with. The loop knows no wire: the front-end builds these
 * (the Peon connection per `turn.start`, an ACP agent per `session/prompt`, a test from scripts).
 *
 * @module
 */
import type { Config } from "../config.ts";
import type { ContextManager } from "./context_manager.ts";
import type { Provider } from "../provider/types.ts";
import type { ToolRegistry } from "../tools/registry.ts";
import type { Approvals } from "./approvals.ts";

/** Everything `runTurn` needs besides the turn itself. */
export interface AgentDeps {
  /** Limits and policies: `model`, `max_steps`, `approval_policy`, tool output and time. */
  config: Config;
  /** The model. */
  provider: Provider;
  /** The tools offered to the model. */
  tools: ToolRegistry;
  /** Plans compaction and trimming. */
  context: ContextManager;
  /** Asks the user about calls the policy does not let run on their own. */
  approvals: Approvals;
  /** Aborts the turn: it then ends with `turn.cancelled`. */
  signal: AbortSignal;
  /** The system prompt of this session's workspace. */
  systemPrompt: string;
  /** Names of environment variables that must not reach tools (the API key's). */
  secretEnv: readonly string[];
  /** The front-end shows reasoning: emit `assistant.reasoning.delta` (default: none). */
  reasoning?: boolean;
  /** The front-end shows notices: emit `turn.notice` (default: none). */
  notices?: boolean;
  /**
   * Called before every provider call: brings `tools` up to date (MCP servers still starting
   * are waited for, at most their startup timeout; changed tool lists are applied). What it
   * resolves with are notices for the user (a tool left out, say), sent as `turn.notice`.
   */
  prepareTools?: (signal: AbortSignal) => Promise<readonly string[] | void>;
  /**
   * The context window the provider's server reports (llama.cpp, Ollama, LM Studio, vLLM),
   * asked once and bounded in time; never rejects. Absent: only overflow answers teach it.
   */
  serverWindow?: () => Promise<{ tokens: number; source: string } | undefined>;
}
