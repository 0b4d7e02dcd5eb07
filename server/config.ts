/**
 * scv's configuration: built-in defaults, then JSONC files, then environment variables, then
 * command-line flags, later wins. Every value is validated; an unknown key, a wrong type or an
 * out-of-range value is a {@link ConfigError} naming the source, the key and what was expected.
 *
 * @module
 */
import { stripUrlCredentials } from "./error_text.ts";
import { JsoncSyntaxError, parseJsonc } from "./jsonc.ts";
import { type McpServerConfig, validateMcpServers } from "./mcp_servers.ts";
import { HOST_PATTERN } from "./host_pattern.ts";
import { MAX_TIMER_MS } from "./timer.ts";
import { type ModelPrice, validatePricing } from "./pricing.ts";
import { type HooksConfig, mergeHooks, validateHooks } from "./hooks_config.ts";
import {
  DEFAULT_SANDBOX_LIMITS,
  type SandboxLimits,
  validateSandboxLimits,
} from "./sandbox_limits.ts";

/**
 * How tool calls are approved: every call, calls whose risk is not `read`, none, `auto`
 * (workspace reads and writes and sandboxed `bash` run; the rest asks), or `plan` (plan mode:
 * only read-only tools run, as under `on-risk`; every other call is refused without asking).
 */
export type ApprovalPolicy = "always" | "on-risk" | "never" | "auto" | "plan";

/** The approval policies, in the order help texts list them (and the TUI's Shift+Tab cycles). */
export const APPROVAL_POLICIES: readonly ApprovalPolicy[] = [
  "always",
  "on-risk",
  "auto",
  "never",
  "plan",
];

/** Where `bash` runs: see CONTRACT.md "More configuration". */
export type SandboxMode = "auto" | "workspace-write" | "read-only" | "off";

/** The sandbox modes a config may name. */
export const SANDBOX_MODES: readonly SandboxMode[] = [
  "auto",
  "workspace-write",
  "read-only",
  "off",
];

/** The most entries a list-valued setting may hold (each list is copied into every bash call). */
export const MAX_LIST_ENTRIES = 256;

/** The wire APIs a `provider` may name. */
export type ProviderKind = "openai-chat" | "openai-responses" | "anthropic";

/** The providers, in the order help texts list them. */
export const PROVIDER_KINDS: readonly ProviderKind[] = [
  "openai-chat",
  "openai-responses",
  "anthropic",
];

/** The most headers `provider_headers` may hold. */
export const MAX_PROVIDER_HEADERS = 64;

/** Defaults that depend on the provider (CONTRACT.md: Anthropic has its own). */
export const PROVIDER_DEFAULTS: Readonly<
  Record<ProviderKind, { base_url: string; api_key_env: string; base_url_env: string }>
> = Object.freeze({
  "openai-chat": {
    base_url: "https://api.openai.com/v1",
    api_key_env: "OPENAI_API_KEY",
    base_url_env: "OPENAI_BASE_URL",
  },
  "openai-responses": {
    base_url: "https://api.openai.com/v1",
    api_key_env: "OPENAI_API_KEY",
    base_url_env: "OPENAI_BASE_URL",
  },
  "anthropic": {
    base_url: "https://api.anthropic.com/v1",
    api_key_env: "ANTHROPIC_API_KEY",
    base_url_env: "ANTHROPIC_BASE_URL",
  },
});

/** The fully resolved configuration. */
export interface Config {
  /** The model name sent to the provider. */
  model: string;
  /** The provider API's base URL, e.g. `https://api.openai.com/v1`. */
  base_url: string;
  /** The environment variable holding the API key (the key itself is never in the config). */
  api_key_env: string;
  /** The wire API the provider speaks. */
  provider: ProviderKind;
  /** Extra HTTP headers sent to the provider; `${VAR}` values are read from the environment. */
  provider_headers: Readonly<Record<string, string>>;
  /** The model's context window; compaction keeps each prompt within it. */
  context_max_tokens: number;
  /** Provider calls one turn may make before it fails with `step_limit`. */
  max_steps: number;
  /** Which tool calls ask for approval. */
  approval_policy: ApprovalPolicy;
  /** The largest client frame accepted, newline excluded. */
  max_client_frame_bytes: number;
  /** The largest prompt accepted, in UTF-8 bytes. */
  max_prompt_bytes: number;
  /** The largest server frame sent, newline excluded. */
  max_server_frame_bytes: number;
  /** The canonical history's bound, in encoded bytes; older turns are trimmed beyond it. */
  max_history_bytes: number;
  /** The most a tool's output may take before it is cut (head and tail kept). */
  max_tool_output_bytes: number;
  /** scv 0.3: the largest image (attachment or read_file), decoded bytes. */
  max_image_bytes: number;
  /** Wall-clock limit of one tool call. */
  tool_timeout_ms: number;
  /** How long a provider response may stay silent before the call fails. */
  provider_timeout_ms: number;
  /** scv 0.3: how long a provider whose model is still loading is waited for. */
  provider_startup_timeout_ms: number;
  /** The client's transcript bound in bytes (reported in `session.started`). */
  max_transcript_bytes: number;
  /** The client's transcript bound in items (reported in `session.started`). */
  max_transcript_items: number;
  /** The client's prompt-history bound in bytes (reported in `session.started`). */
  max_prompt_history_bytes: number;
  /** The client's prompt-history bound in items (reported in `session.started`). */
  max_prompt_history_items: number;
  /** MCP servers by name (see server/mcp_servers.ts); merged by name across config files. */
  mcp_servers: Readonly<Record<string, McpServerConfig>>;
  /** Where `bash` runs: in the OS sandbox, or not. */
  sandbox: SandboxMode;
  /** Whether sandboxed commands may use the network. */
  sandbox_network: boolean | readonly string[];
  /** Extra absolute directories a `workspace-write` sandbox may write. */
  sandbox_writable_roots: readonly string[];
  /** Paths hidden from sandboxed commands. */
  sandbox_deny_read: readonly string[];
  /** scv 0.3: extra directories readable inside the sandbox under a scoped `--allow-read`. */
  sandbox_readable_roots: readonly string[];
  /** scv 0.3: resource limits of every sandboxed command. */
  sandbox_limits: Readonly<SandboxLimits>;
  /** Extra environment variable names (or `PREFIX_*` globs) handed to `bash`. */
  shell_env_passthrough: readonly string[];
  /** scv 0.2: record sessions under the state directory so they can be resumed. */
  persist_sessions: boolean;
  /** scv 0.2: recorded sessions not updated for this many days are deleted at startup. */
  session_retention_days: number;
  /** scv 0.2: beyond this many recorded sessions, the oldest are deleted at startup. */
  max_sessions: number;
  /** scv 0.3: snapshots of the workspace around changing turns, for `session.rewind`. */
  checkpoints: boolean;
  /** scv 0.3: files larger than this are not snapshotted. */
  checkpoint_max_file_bytes: number;
  /** scv 0.3: a snapshot that would store more changed bytes than this is skipped. */
  checkpoint_max_bytes: number;
  /**
   * scv 0.3, the TUI: the key that steers the running turn (`"enter"`, the default) or queues a
   * prompt behind it (the other one, Tab or Enter). Omitted: Enter steers, Tab queues.
   */
  steer_key?: "enter" | "tab";
  /**
   * scv 0.3: USD per million tokens by model name, for `cost_usd` (server/provider/pricing.ts);
   * merged by model across config files. No entry: no cost is reported for that model.
   */
  pricing: Readonly<Record<string, ModelPrice>>;
  /**
   * scv 0.3: command hooks in the shape of Claude Code's `hooks` setting (docs/hooks.md); the
   * groups of every config file run, as Claude Code runs those of every settings file.
   */
  hooks: Readonly<HooksConfig>;
  /** scv 0.3: the TUI notifies (OSC 9 or BEL) when a turn ends or an approval waits unfocused. */
  notify: boolean;
  /** scv 0.3: the hosts web_fetch may fetch (`"*"`: any public host); docs/web_fetch.md. */
  web_fetch_allow: readonly string[];
  /** scv 0.3: the time one web_fetch call may take, redirects and body included. */
  web_fetch_timeout_ms: number;
  /** scv 0.3: the most body bytes one web_fetch call may read (the cap on `max_bytes`). */
  web_fetch_max_bytes: number;
}

/** The built-in defaults of CONTRACT.md. */
export const DEFAULT_CONFIG: Readonly<Config> = Object.freeze({
  model: "gpt-4.1-mini",
  base_url: "https://api.openai.com/v1",
  api_key_env: "OPENAI_API_KEY",
  provider: "openai-chat",
  provider_headers: Object.freeze({}),
  context_max_tokens: 128000,
  max_steps: 32,
  approval_policy: "on-risk",
  max_client_frame_bytes: 1048576,
  max_prompt_bytes: 262144,
  max_server_frame_bytes: 8388608,
  max_history_bytes: 16777216,
  max_tool_output_bytes: 65536,
  max_image_bytes: 5242880,
  tool_timeout_ms: 120000,
  provider_timeout_ms: 120000,
  provider_startup_timeout_ms: 120000,
  max_transcript_bytes: 8388608,
  max_transcript_items: 10000,
  max_prompt_history_bytes: 1048576,
  max_prompt_history_items: 200,
  mcp_servers: Object.freeze({}),
  sandbox: "auto",
  sandbox_network: false,
  sandbox_writable_roots: Object.freeze([]),
  // The credential stores of CONTRACT.md's "The sandbox, tighter", browsers' profiles included.
  sandbox_deny_read: Object.freeze([
    "~/.ssh",
    "~/.gnupg",
    "~/.aws",
    "~/.azure",
    "~/.config/gcloud",
    "~/.config/gh",
    "~/.kube",
    "~/.docker/config.json",
    "~/.netrc",
    "~/.git-credentials",
    "~/.npmrc",
    "~/.pypirc",
    "~/.cargo/credentials.toml",
    "~/.local/share/keyrings",
    "~/.password-store",
    "~/.mozilla",
    "~/.config/google-chrome",
    "~/.config/chromium",
    "~/.config/BraveSoftware",
    "~/.config/microsoft-edge",
    "~/.config/vivaldi",
    "~/snap/firefox",
    "~/snap/chromium",
  ]),
  sandbox_readable_roots: Object.freeze([]),
  sandbox_limits: DEFAULT_SANDBOX_LIMITS,
  shell_env_passthrough: Object.freeze([]),
  persist_sessions: true,
  session_retention_days: 30,
  max_sessions: 500,
  checkpoints: true,
  checkpoint_max_file_bytes: 4 * 1024 * 1024,
  checkpoint_max_bytes: 256 * 1024 * 1024,
  pricing: Object.freeze({}),
  hooks: Object.freeze({}),
  notify: true,
  web_fetch_allow: Object.freeze(["*"]),
  web_fetch_timeout_ms: 30000,
  web_fetch_max_bytes: 10485760,
});

/** A rule for one config key: what a valid value is, and how an invalid one is described. */
interface KeyRule {
  expected: string;
  valid: (value: unknown) => boolean;
  /**
   * For structured values: the normalized value, or a RangeError whose message names the exact
   * key path and what is wrong there (used instead of `expected`).
   */
  normalize?: (value: unknown) => unknown;
}

const positiveInt: KeyRule = {
  expected: "must be a positive integer",
  valid: (v) => typeof v === "number" && Number.isSafeInteger(v) && v > 0,
};
/** Timers: a positive integer that a timer can hold (it overflows past 2^31 - 1 ms). */
const positiveMs: KeyRule = {
  expected: `must be a positive integer of milliseconds, at most ${MAX_TIMER_MS}`,
  valid: (v) => typeof v === "number" && Number.isSafeInteger(v) && v > 0 && v <= MAX_TIMER_MS,
};
const nonEmpty: KeyRule = {
  expected: "must be a non-empty string",
  valid: (v) => typeof v === "string" && v.trim().length > 0,
};
/** A name `Deno.env.get` can look up and a shell could export. */
const envName: KeyRule = {
  expected:
    "must be an environment variable name (letters, digits and _, not starting with a digit)",
  valid: (v) => typeof v === "string" && /^[A-Za-z_][A-Za-z0-9_]*$/.test(v),
};

/** A list of at most {@link MAX_LIST_ENTRIES} strings, each passing `item`. */
function listOf(what: string, item: (s: string) => boolean): KeyRule {
  return {
    expected: `must be an array of at most ${MAX_LIST_ENTRIES} ${what}`,
    valid: (v) =>
      Array.isArray(v) && v.length <= MAX_LIST_ENTRIES &&
      v.every((e) => typeof e === "string" && item(e)),
  };
}

/** An absolute path or one starting with `~/`, without NUL bytes. */
function userPath(p: string): boolean {
  return (p.startsWith("/") || p.startsWith("~/") || p === "~") && !p.includes("\0");
}

/**
 * Whether a string looks like an API key rather than the name of a variable holding one: a
 * known key prefix, or long with lower-case letters and digits (variable names are upper case).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { looksLikeSecret } from "./config.ts";
 * assert(looksLikeSecret("sk-proj-abc123"));
 * assert(!looksLikeSecret("OPENAI_API_KEY"));
 * ```
 */
export function looksLikeSecret(v: string): boolean {
  if (/^(?:sk-|sk_|rk_|pk_|gsk_|xai-|hf_|ghp_|gho_|github_pat_|AIza|nvapi-|pplx-|r8_)/.test(v)) {
    return true;
  }
  return v.length >= 24 && /[a-z]/.test(v) && /[0-9]/.test(v) && /[A-Za-z0-9]{16}/.test(v);
}

/** `api_key_env`: a variable name, never echoed when it is not one (it may be a pasted key). */
const apiKeyEnv: KeyRule = {
  expected: "must be an environment variable name " +
    "(letters, digits and _, not starting with a digit) that holds the key, not the key itself",
  valid: (v) => envName.valid(v) && !looksLikeSecret(v as string),
};

/** An HTTP header name (RFC 9110 token). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** `provider_headers`: header names to string values without line breaks. */
const providerHeaders: KeyRule = {
  expected: `must be an object of at most ${MAX_PROVIDER_HEADERS} HTTP header names ` +
    "to string values without line breaks",
  valid: (v) =>
    typeof v === "object" && v !== null && !Array.isArray(v) &&
    Object.keys(v).length <= MAX_PROVIDER_HEADERS &&
    Object.entries(v).every(([name, value]) =>
      HEADER_NAME.test(name) && typeof value === "string" && !/[\r\n\0]/.test(value) &&
      value.length <= 8192
    ),
};

/**
 * Every config key and its rule. A plain table rather than a zod schema: importing zod costs
 * about 35 ms, most of the server's start budget, and the config is read before the handshake.
 */
export const CONFIG_RULES: Readonly<Record<keyof Config, KeyRule>> = Object.freeze({
  steer_key: {
    expected: 'must be "enter" or "tab"',
    valid: (v) => v === "enter" || v === "tab",
  },
  model: nonEmpty,
  base_url: {
    expected: "must be an absolute http(s) URL",
    valid: (v) => typeof v === "string" && URL.canParse(v) && /^https?:$/.test(new URL(v).protocol),
  },
  api_key_env: apiKeyEnv,
  provider: {
    expected: 'must be one of "openai-chat", "openai-responses", "anthropic"',
    valid: (v) => (PROVIDER_KINDS as readonly unknown[]).includes(v),
  },
  provider_headers: providerHeaders,
  context_max_tokens: positiveInt,
  max_steps: positiveInt,
  approval_policy: {
    expected: 'must be one of "always", "on-risk", "auto", "never", "plan"',
    valid: (v) => (APPROVAL_POLICIES as readonly unknown[]).includes(v),
  },
  max_client_frame_bytes: positiveInt,
  max_prompt_bytes: positiveInt,
  max_server_frame_bytes: positiveInt,
  max_history_bytes: positiveInt,
  max_tool_output_bytes: positiveInt,
  max_image_bytes: positiveInt,
  tool_timeout_ms: positiveMs,
  provider_timeout_ms: positiveMs,
  provider_startup_timeout_ms: positiveMs,
  max_transcript_bytes: positiveInt,
  max_transcript_items: positiveInt,
  max_prompt_history_bytes: positiveInt,
  max_prompt_history_items: positiveInt,
  mcp_servers: {
    expected: "must be an object of MCP server entries",
    valid: () => true,
    normalize: validateMcpServers,
  },
  sandbox: {
    expected: 'must be one of "auto", "workspace-write", "read-only", "off"',
    valid: (v) => (SANDBOX_MODES as readonly unknown[]).includes(v),
  },
  sandbox_network: {
    expected: `must be true, false or an array of at most ${MAX_LIST_ENTRIES} host patterns ` +
      '("registry.npmjs.org", "*.github.com:443", "127.0.0.1:4873", "[::1]:8080")',
    valid: (v) =>
      typeof v === "boolean" ||
      (Array.isArray(v) && v.length <= MAX_LIST_ENTRIES &&
        v.every((p) => typeof p === "string" && HOST_PATTERN.test(p))),
  },
  sandbox_writable_roots: listOf('absolute directory paths or paths starting with "~/"', userPath),
  sandbox_deny_read: listOf('absolute paths or paths starting with "~/"', userPath),
  sandbox_readable_roots: listOf('absolute directory paths or paths starting with "~/"', userPath),
  sandbox_limits: {
    expected: "must be an object of memory_mb, processes, file_size_mb, cpu_seconds",
    valid: () => true,
    normalize: validateSandboxLimits,
  },
  shell_env_passthrough: listOf(
    'environment variable names or PREFIX_* globs (letters, digits and _, an optional final "*")',
    (n) => /^[A-Za-z_][A-Za-z0-9_]*\*?$/.test(n),
  ),
  persist_sessions: { expected: "must be true or false", valid: (v) => typeof v === "boolean" },
  session_retention_days: positiveInt,
  max_sessions: positiveInt,
  checkpoints: { expected: "must be true or false", valid: (v) => typeof v === "boolean" },
  checkpoint_max_file_bytes: positiveInt,
  checkpoint_max_bytes: positiveInt,
  pricing: {
    expected: "must be an object of model names to prices",
    valid: () => true,
    normalize: validatePricing,
  },
  hooks: {
    expected: "must be an object of hook events to matcher groups",
    valid: () => true,
    normalize: validateHooks,
  },
  notify: { expected: "must be true or false", valid: (v) => typeof v === "boolean" },
  web_fetch_allow: listOf(
    '"*" (any public host) or host patterns ("docs.deno.com", "*.github.com:443", "127.0.0.1", ' +
      '"[::1]:8080")',
    (p) => p === "*" || HOST_PATTERN.test(p),
  ),
  web_fetch_timeout_ms: positiveMs,
  web_fetch_max_bytes: positiveInt,
});

/** A configuration that cannot be loaded; the message names the source and the key. */
export class ConfigError extends Error {
  /** Builds the error; `message` is already user-facing. */
  constructor(message: string) {
    super(message);
    this.name = "ConfigError";
  }
}

/** Overrides given on the command line; each wins over every other source. */
export interface ConfigFlags {
  /** `--config`: a config file that must exist and be readable. */
  config?: string | undefined;
  /** `--model`. */
  model?: string | undefined;
  /** `--approval-policy`, checked like the config key. */
  approvalPolicy?: string | undefined;
}

/** What {@link loadConfig} reads from the outside world, injectable for tests. */
export interface ConfigSources {
  /** Environment lookup; defaults to `Deno.env.get` where permitted. */
  env?: (name: string) => string | undefined;
  /** The file's text, undefined when it does not exist; throws when it cannot be read. */
  readTextFile?: (path: string) => string | undefined;
  /** A one-line notice: an optional config location scv may not read is skipped. */
  notice?: (line: string) => void;
}

/** What is wrong with a `provider_headers` object, naming the header but never its value. */
function badHeader(v: object): string {
  const entries = Object.entries(v);
  if (entries.length > MAX_PROVIDER_HEADERS) return `${entries.length} headers`;
  for (const [name, value] of entries) {
    const shown = JSON.stringify(name.length > 60 ? name.slice(0, 57) + "..." : name);
    if (!HEADER_NAME.test(name)) return `the header name ${shown}`;
    if (typeof value !== "string") return `a ${typeof value} for header ${shown}`;
    if (value.length > 8192) return `a value of ${value.length} characters for header ${shown}`;
    return `a value with a line break for header ${shown} (not shown)`;
  }
  return "an object";
}

/** Keys whose invalid value is never quoted back (it may be a secret pasted in the wrong key). */
const UNQUOTED_KEYS: ReadonlySet<string> = new Set(["api_key_env", "provider_headers"]);

function describeValue(v: unknown, key?: string): string {
  if (v === undefined) return "nothing";
  if (key !== undefined && UNQUOTED_KEYS.has(key)) {
    if (typeof v === "string") {
      return looksLikeSecret(v)
        ? `a value of ${v.length} characters that looks like a key (not shown)`
        : `a string of ${v.length} characters (not shown)`;
    }
    if (typeof v === "object" && v !== null && !Array.isArray(v)) return badHeader(v);
  }
  // JSON has no Infinity: 1e400 parses to it, and JSON.stringify would call it null.
  if (typeof v === "number" && !Number.isFinite(v)) return String(v);
  if (typeof v === "number" && Number.isInteger(v) && !Number.isSafeInteger(v)) {
    return `${v} (beyond 9007199254740991, the largest integer JSON numbers hold exactly)`;
  }
  // URL credentials go before the cut: a cut password no longer looks like one.
  const json = JSON.stringify(v);
  const s = json === undefined ? undefined : stripUrlCredentials(json);
  return s === undefined ? String(v) : s.length > 60 ? s.slice(0, 57) + "..." : s;
}

/**
 * Validates a partial config object from one named source.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { validateConfigObject } from "./config.ts";
 * try {
 *   validateConfigObject({ max_steps: -1 }, "x.jsonc");
 * } catch (e) {
 *   assert(String(e).includes('"max_steps" must be a positive integer, got -1'));
 * }
 * ```
 */
export function validateConfigObject(value: unknown, source: string): Partial<Config> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new ConfigError(
      `Cannot load config ${source}: the top level must be an object, got ${describeValue(value)}`,
    );
  }
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    const rule = Object.hasOwn(CONFIG_RULES, key) ? CONFIG_RULES[key as keyof Config] : undefined;
    if (!rule) {
      throw new ConfigError(
        `Cannot load config ${source}: unknown key "${key}"; known keys are ${
          Object.keys(DEFAULT_CONFIG).join(", ")
        }`,
      );
    }
    if (!rule.valid(v)) {
      throw new ConfigError(
        `Cannot load config ${source}: "${key}" ${rule.expected}, got ${describeValue(v, key)}`,
      );
    }
    if (rule.normalize) {
      try {
        out[key] = rule.normalize(v);
      } catch (e) {
        if (!(e instanceof RangeError)) throw e;
        throw new ConfigError(`Cannot load config ${source}: ${e.message}`);
      }
      continue;
    }
    out[key] = v;
  }
  return out as Partial<Config>;
}

/**
 * Parses JSONC text (comments and trailing commas allowed) from a named file.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseConfigText } from "./config.ts";
 * const c = parseConfigText('{ "max_steps": 3, // three\n }', "a.jsonc");
 * assert(c.max_steps === 3);
 * ```
 */
export function parseConfigText(text: string, path: string): Partial<Config> {
  let value: unknown;
  try {
    value = parseJsonc(text);
  } catch (e) {
    if (e instanceof JsoncSyntaxError) {
      throw new ConfigError(`Cannot load config "${path}": ${e.message}`);
    }
    throw e;
  }
  return validateConfigObject(value, `"${path}"`);
}

/** A config file scv has no Deno permission to read (`--allow-read` scoped elsewhere). */
export class ConfigUnreadableError extends ConfigError {
  /** Builds the error for `path`. */
  constructor(path: string) {
    super(
      `Cannot load config "${path}": scv was started without read permission for it (--allow-read)`,
    );
    this.name = "ConfigUnreadableError";
  }
}

function defaultReadTextFile(path: string): string | undefined {
  try {
    return Deno.readTextFileSync(path);
  } catch (e) {
    // A path through a file (XDG_CONFIG_HOME naming a file) names no config file either.
    if (e instanceof Deno.errors.NotFound || e instanceof Deno.errors.NotADirectory) {
      return undefined;
    }
    if (e instanceof Deno.errors.NotCapable) throw new ConfigUnreadableError(path);
    throw new ConfigError(`Cannot load config "${path}": ${(e as Error).message}`);
  }
}

/** Variables {@link readEnv} could not read for want of `--allow-env`, for one warning. */
const deniedEnv = new Set<string>();

/**
 * Reads an environment variable; unset when env access was not granted (the name is kept, and
 * {@link loadConfigOrReport} warns about it, so a missing `--allow-env` is never silent).
 */
export function readEnv(name: string): string | undefined {
  try {
    return Deno.env.get(name);
  } catch (e) {
    if (!(e instanceof Deno.errors.NotCapable || e instanceof Deno.errors.PermissionDenied)) {
      throw e;
    }
    deniedEnv.add(name);
    return undefined;
  }
}

/** The environment variables that could not be read so far (no `--allow-env` for them). */
export function deniedEnvNames(): string[] {
  return [...deniedEnv];
}

/**
 * Loads the configuration for a command: on a {@link ConfigError} the message goes to
 * `report` and the result is undefined (the command exits with status 2).
 */
export function loadConfigOrReport(
  flags: ConfigFlags,
  report: (line: string) => void,
): Config | undefined {
  try {
    const config = loadConfig(flags, { notice: report });
    // The API key is read later, by the provider; look now, so a denial is in the warning.
    readEnv(config.api_key_env);
    const denied = deniedEnvNames();
    if (denied.length > 0) {
      report(
        `scv: warning: cannot read ${denied.join(", ")} without --allow-env; treated as unset`,
      );
    }
    return config;
  } catch (e) {
    if (e instanceof ConfigError) {
      report(`scv: ${e.message}`);
      return undefined;
    }
    throw e;
  }
}

/** The per-user config file path, `$XDG_CONFIG_HOME/scv/config.jsonc` or `~/.config/...`. */
export function userConfigPath(env: (name: string) => string | undefined): string | undefined {
  const xdg = env("XDG_CONFIG_HOME");
  // The XDG spec: a relative value is invalid and is ignored.
  if (xdg?.startsWith("/")) return `${xdg}/scv/config.jsonc`;
  const home = env("HOME");
  return home ? `${home}/.config/scv/config.jsonc` : undefined;
}

/**
 * Resolves the configuration from every source in CONTRACT.md's order, throwing a
 * {@link ConfigError} at the first bad value.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadConfig } from "./config.ts";
 * const c = loadConfig({ model: "m" }, { env: () => undefined, readTextFile: () => undefined });
 * assert(c.model === "m" && c.max_steps === 32);
 * ```
 */
export function loadConfig(flags: ConfigFlags = {}, sources: ConfigSources = {}): Config {
  const env = sources.env ?? readEnv;
  const read = sources.readTextFile ?? defaultReadTextFile;
  const config: Config = { ...DEFAULT_CONFIG };
  const files: Array<[string, boolean]> = [];
  /** Keys a file set: provider-specific defaults never override them. */
  const explicit = new Set<string>();
  const user = userConfigPath(env);
  if (user) files.push([user, false]);
  const fromEnv = env("SCV_CONFIG");
  if (fromEnv) files.push([fromEnv, true]);
  if (flags.config === "") {
    throw new ConfigError("Cannot load config: --config was given an empty path");
  }
  if (flags.config !== undefined) files.push([flags.config, true]);
  for (const [path, required] of files) {
    let text: string | undefined;
    try {
      text = read(path);
    } catch (e) {
      // A locked-down run may not read the per-user location; it is optional, so skip it.
      if (required || !(e instanceof ConfigUnreadableError)) throw e;
      sources.notice?.(
        `scv: notice: skipped the optional config file "${path}": no read permission for it`,
      );
      continue;
    }
    if (text === undefined) {
      if (required) throw new ConfigError(`Cannot load config "${path}": file not found`);
      continue;
    }
    const { mcp_servers, pricing, hooks, ...rest } = parseConfigText(text, path);
    for (const key of Object.keys(rest)) explicit.add(key);
    Object.assign(config, rest);
    // Merged by name, so a --config file adding one server keeps the user's others.
    if (mcp_servers) config.mcp_servers = { ...config.mcp_servers, ...mcp_servers };
    if (pricing) config.pricing = { ...config.pricing, ...pricing };
    if (hooks) {
      try {
        config.hooks = mergeHooks(config.hooks, hooks);
      } catch (e) {
        if (!(e instanceof RangeError)) throw e;
        throw new ConfigError(`Cannot load config "${path}": ${e.message}`);
      }
    }
  }
  // The provider's own defaults and base URL variable (ANTHROPIC_BASE_URL for Anthropic), so
  // switching providers needs one key; a value a file gave always wins.
  const byProvider = PROVIDER_DEFAULTS[config.provider];
  if (!explicit.has("base_url")) config.base_url = byProvider.base_url;
  if (!explicit.has("api_key_env")) config.api_key_env = byProvider.api_key_env;
  // Each variable is its own source, so an error names the variable that holds the bad value.
  for (
    const [name, key] of [["SCV_MODEL", "model"], [byProvider.base_url_env, "base_url"]] as const
  ) {
    const value = env(name);
    if (value === undefined) continue;
    Object.assign(
      config,
      validateConfigObject({ [key]: value }, `from environment variable ${name}`),
    );
  }
  const flagValues: Record<string, unknown> = {};
  if (flags.model !== undefined) flagValues.model = flags.model;
  if (flags.approvalPolicy !== undefined) flagValues.approval_policy = flags.approvalPolicy;
  Object.assign(config, validateConfigObject(flagValues, "from the command line"));
  return config;
}
