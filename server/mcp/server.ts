/**
 * One configured MCP server as scv sees it: starting it (spawn or connect, `initialize`, the
 * first `tools/list`) within its startup timeout, its status, its tools, calling one with a
 * timeout and cancellation, a restart after a crash (once), and stopping it.
 *
 * This module imports the MCP SDK; it is only ever loaded lazily, when a server is configured.
 *
 * @module
 */
import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import * as z from "zod";
import { SCV_VERSION } from "../../protocol/constants.ts";
import { clip, errorText } from "../error_text.ts";
import { isStdio, type McpServerConfig } from "../mcp_servers.ts";
import { expandMap, expandReferences } from "./expand.ts";
import { serverEnv } from "./env.ts";
import { MAX_MESSAGE_BYTES, StdioTransport } from "./stdio_transport.ts";
import { boundedFetch } from "./http_fetch.ts";
import { within } from "../timer.ts";

/** A server's state, as `session.started.mcp_servers` reports it. */
export type McpStatus = "starting" | "ready" | "failed";

/** A tool as a server listed it (already checked to be well-formed). */
export interface McpToolInfo {
  /** The server's own name for it, sent back in `tools/call`. */
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  /** `annotations.readOnlyHint`. */
  readOnly: boolean;
}

/** What starting a server needs from scv. */
export interface StartContext {
  /** The working directory of a stdio server without `cwd`: the first session's workspace. */
  cwd: string;
  env: (name: string) => string | undefined;
  /** The names of scv's environment variables (the core set is picked from them). */
  envNames: readonly string[];
  /** Variables that never reach a server unless configured for it (the provider's key). */
  secretEnv: readonly string[];
  /** A user-visible notice (a skipped tool, junk on stdout). */
  notice: (message: string) => void;
  /** The command line of a `"sandbox": true` server in the OS sandbox; absent: none here. */
  launch?: SandboxLauncher | undefined;
}

/** A stdio server to start in the OS sandbox. */
export interface SandboxedServer {
  name: string;
  argv: string[];
  cwd: string;
  /** Its own network rule: none, the host's, or through scv's proxy to these hosts. */
  network: boolean | readonly string[];
}

/** Turns a server's command into the sandbox's command line, or rejects saying why it cannot. */
export type SandboxLauncher = (
  server: SandboxedServer,
) => Promise<{ command: string; args: string[] }>;

/** A tool call that could not be made or did not finish; the message is for the model. */
export class McpCallError extends Error {
  /** Builds the error; `message` already names the server. */
  constructor(message: string) {
    super(message);
    this.name = "McpCallError";
  }
}

/** The most tools taken from one server; the rest are left out with a notice. */
export const MAX_TOOLS_PER_SERVER = 256;
/** The largest input schema offered to a model (serialized). */
export const MAX_SCHEMA_BYTES = 64 * 1024;
/** The most bytes of schemas and descriptions one server's tools add to every model request. */
export const MAX_SERVER_TOOLS_BYTES = 1024 * 1024;
/** The longest description passed through. */
export const MAX_DESCRIPTION_CHARS = 8192;
/** `tools/list` pages followed before giving up (a server that pages forever). */
const MAX_LIST_PAGES = 32;
/** How long a `tools/list` refresh after `list_changed` may take. */
const REFRESH_TIMEOUT_MS = 10000;

const AnyResult = z.looseObject({});
const ListResult = z.looseObject({
  tools: z.array(z.unknown()),
  nextCursor: z.string().optional(),
});

const encoder = new TextEncoder();

/** An error's message with its causes (Deno's fetch says only "fetch failed" on top). */
function causeChain(e: unknown): string {
  const parts: string[] = [];
  let cur: unknown = e;
  for (let i = 0; i < 4 && cur !== undefined && cur !== null; i++) {
    const m = errorText(cur);
    if (!parts.includes(m)) parts.push(m);
    cur = cur instanceof Error ? cur.cause : undefined;
  }
  return parts.join(": ");
}

/** A `tools/list` entry checked, or the reason it is left out. */
function checkTool(raw: unknown): McpToolInfo | string {
  if (typeof raw !== "object" || raw === null) return "a tools/list entry is not an object";
  const t = raw as Record<string, unknown>;
  if (typeof t.name !== "string" || t.name === "") return "a tool has no name";
  const name = t.name.length > 200 ? t.name.slice(0, 200) + "…" : t.name;
  const schema = t.inputSchema;
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) {
    return `tool ${JSON.stringify(name)} skipped: its inputSchema is not a JSON Schema object`;
  }
  const s = schema as Record<string, unknown>;
  if (s.type !== undefined && s.type !== "object") {
    return `tool ${JSON.stringify(name)} skipped: its inputSchema has type ${
      clip(JSON.stringify(s.type) ?? "", 40)
    }; a tool's arguments are an object`;
  }
  const bytes = encoder.encode(JSON.stringify(s)).length;
  if (bytes > MAX_SCHEMA_BYTES) {
    return `tool ${
      JSON.stringify(name)
    } skipped: its inputSchema takes ${bytes} bytes, more than ${MAX_SCHEMA_BYTES}`;
  }
  const annotations = typeof t.annotations === "object" && t.annotations !== null
    ? t.annotations as Record<string, unknown>
    : {};
  return {
    name: t.name,
    description: typeof t.description === "string"
      ? clip(t.description, MAX_DESCRIPTION_CHARS)
      : "",
    inputSchema: { ...s, type: "object" },
    readOnly: annotations.readOnlyHint === true,
  };
}

/** One configured server and its connection. */
export class McpServer {
  /** The configured name. */
  readonly name: string;
  readonly config: McpServerConfig;
  /** Where it stands. */
  status: McpStatus = "starting";
  /** Why it failed, naming the server (set with `status: "failed"`). */
  error: string | undefined;
  /** Its tools while ready. */
  tools: McpToolInfo[] = [];
  /** Bumped each time `tools` changes, so the tool registry knows to update. */
  generation = 0;
  /** Called when its status or tools changed. */
  onChange: (() => void) | undefined;

  #client: Client | undefined;
  #transport: StdioTransport | StreamableHTTPClientTransport | undefined;
  #starting: Promise<void> | undefined;
  #ctx: StartContext | undefined;
  #restarted = false;
  #crashed = false;
  #stopping = false;
  /** Set by {@link stop}: nothing starts again (scv is exiting). */
  #stopped = false;
  #toolsChanged = false;
  #overflow: string | undefined;
  /** Values read for `${VAR}` references: often credentials, never in a message. */
  #secrets = new Set<string>();

  /** Prepares the server; nothing runs until {@link start}. */
  constructor(name: string, config: McpServerConfig) {
    this.name = name;
    this.config = config;
  }

  /** Starts (or restarts) the server; settles when it is ready or failed, never rejects. */
  start(ctx: StartContext): Promise<void> {
    this.#ctx = ctx;
    this.status = "starting";
    this.error = undefined;
    this.#starting = this.#start(ctx).finally(() => {
      this.#starting = undefined;
      this.onChange?.();
    });
    return this.#starting;
  }

  /** Settles once a start in progress has ended (at most its startup timeout). */
  async ready(signal: AbortSignal): Promise<void> {
    if (!this.#starting) return;
    await raceSignal(this.#starting, signal);
  }

  async #start(ctx: StartContext): Promise<void> {
    if (this.#stopped) {
      this.status = "failed";
      this.error = `MCP server "${this.name}" was not started: scv is stopping`;
      return;
    }
    const limit = this.config.startup_timeout_ms;
    const deadline = Date.now() + limit;
    let step = "start";
    try {
      const transport = await this.#makeTransport(ctx);
      this.#transport = transport;
      const client = new Client({ name: "scv", version: SCV_VERSION }, { capabilities: {} });
      this.#client = client;
      client.fallbackNotificationHandler = (n) => {
        if (n.method === "notifications/tools/list_changed") this.#toolsChanged = true;
        return Promise.resolve();
      };
      client.onclose = () => this.#closed(client);
      step = "answer initialize";
      await client.connect(transport, { timeout: Math.max(1, deadline - Date.now()) });
      if (transport instanceof StdioTransport && transport.junkLines > 0) {
        ctx.notice(
          `MCP server "${this.name}" wrote ${transport.junkLines} line(s) on stdout that are ` +
            `not JSON-RPC (skipped), the first: ${JSON.stringify(transport.firstJunk)}`,
        );
      }
      step = "answer tools/list";
      await this.#listTools(Math.max(1, deadline - Date.now()), ctx);
      // Stopped while starting: what started goes too.
      if (this.#stopped) throw new Error("scv is stopping");
      this.status = "ready";
    } catch (e) {
      const timedOut = Date.now() >= deadline || /timed out/i.test(errorText(e));
      const what = timedOut
        ? `did not ${step} within ${limit} ms`
        : `failed to start: ${clip(this.#overflow ?? causeChain(e), 500)}`;
      this.#stopping = true;
      await this.#closeTransport();
      this.#stopping = this.#stopped;
      this.status = "failed";
      this.error = this.#describe(what);
    }
  }

  async #makeTransport(ctx: StartContext): Promise<StdioTransport | StreamableHTTPClientTransport> {
    const c = this.config;
    this.#overflow = undefined;
    // What `${VAR}` expands to is kept out of every message (a token in a URL's query, say).
    const env = (name: string) => {
      const value = ctx.env(name);
      if (value !== undefined && value.length >= 4) this.#secrets.add(value);
      return value;
    };
    if (isStdio(c)) {
      const expanded = expandMap(c.env, env, "env");
      const childEnv = serverEnv(expanded, ctx.env, ctx.envNames, ctx.secretEnv);
      const cwd = c.cwd ?? ctx.cwd;
      let command = c.command;
      let args: readonly string[] = c.args;
      if (c.sandbox) {
        if (!ctx.launch) throw new Error('"sandbox": true, but this face has no OS sandbox');
        ({ command, args } = await ctx.launch({
          name: this.name,
          argv: [c.command, ...c.args],
          cwd,
          network: c.network ?? false,
        }));
      }
      return new StdioTransport({ command, args, env: childEnv, cwd });
    }
    const url = expandReferences(c.url, env, "url");
    if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) {
      throw new RangeError(`url is not an absolute http(s) URL once its variables are set`);
    }
    return new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: expandMap(c.headers, env, "headers") },
      fetch: boundedFetch({
        maxBytes: MAX_MESSAGE_BYTES,
        onOverflow: (message) => {
          this.#overflow = message;
          void this.#client?.close().catch(() => {});
        },
      }),
      // A broken event stream is not retried for long: the call's own timeout governs.
      reconnectionOptions: {
        maxReconnectionDelay: 2000,
        initialReconnectionDelay: 500,
        reconnectionDelayGrowFactor: 2,
        maxRetries: 2,
      },
    });
  }

  async #listTools(timeoutMs: number, ctx: StartContext): Promise<void> {
    const client = this.#client!;
    const found: McpToolInfo[] = [];
    let bytes = 0;
    let full = false;
    const signal = AbortSignal.timeout(timeoutMs);
    let cursor: string | undefined;
    let pages = 0;
    do {
      const result = await client.request(
        { method: "tools/list", params: cursor === undefined ? {} : { cursor } },
        ListResult,
        { timeout: timeoutMs, signal },
      );
      for (const raw of result.tools) {
        const checked = checkTool(raw);
        if (typeof checked === "string") {
          ctx.notice(`MCP server "${this.name}": ${checked}`);
          continue;
        }
        const size = encoder.encode(JSON.stringify(checked.inputSchema)).length +
          encoder.encode(checked.description).length;
        if (bytes + size > MAX_SERVER_TOOLS_BYTES) {
          if (!full) {
            ctx.notice(
              `MCP server "${this.name}": its tools' schemas and descriptions take more than ` +
                `${MAX_SERVER_TOOLS_BYTES} bytes; tool ${
                  JSON.stringify(checked.name)
                } and the ones after it that do not fit are left out`,
            );
          }
          full = true;
          continue;
        }
        if (found.length >= MAX_TOOLS_PER_SERVER) {
          ctx.notice(
            `MCP server "${this.name}" lists more than ${MAX_TOOLS_PER_SERVER} tools; ` +
              `only the first ${MAX_TOOLS_PER_SERVER} are offered`,
          );
          cursor = undefined;
          break;
        }
        bytes += size;
        found.push(checked);
      }
      cursor = found.length >= MAX_TOOLS_PER_SERVER ? undefined : result.nextCursor;
    } while (cursor !== undefined && ++pages < MAX_LIST_PAGES);
    this.tools = found;
    this.generation++;
  }

  /**
   * Lists the tools again when the server said they changed; a failed refresh keeps the old
   * list and tells why.
   */
  async refresh(signal: AbortSignal): Promise<void> {
    if (!this.#toolsChanged || this.status !== "ready" || !this.#ctx) return;
    this.#toolsChanged = false;
    try {
      await raceSignal(this.#listTools(REFRESH_TIMEOUT_MS, this.#ctx), signal);
      this.onChange?.();
    } catch (e) {
      if (signal.aborted) throw e;
      this.#ctx.notice(
        `MCP server "${this.name}": cannot refresh its tools: ${clip(errorText(e), 300)}`,
      );
    }
  }

  /**
   * Calls one tool; the raw result object. Throws {@link McpCallError} for a server that is
   * down (restarting a crashed one once first) or a call that failed, and the signal's reason
   * when it is aborted (the SDK then sends `notifications/cancelled`).
   */
  async call(
    tool: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
    timeoutMs: number,
  ): Promise<Record<string, unknown>> {
    await this.ready(signal);
    for (let attempt = 0;; attempt++) {
      // The process may be gone before the transport noticed: that is a crash too.
      if (this.status === "ready" && this.#exited()) this.#crash();
      if (this.#crashed && !this.#restarted && this.#ctx) {
        this.#restarted = true;
        this.#crashed = false;
        this.#ctx.notice(`MCP server "${this.name}" stopped; restarting it (once)`);
        await raceSignal(this.start(this.#ctx), signal);
      }
      const client = this.#client;
      const transport = this.#transport;
      if (this.status !== "ready" || !client) {
        throw this.#callError(this.error ?? `MCP server "${this.name}" is not running`);
      }
      try {
        return await client.request(
          { method: "tools/call", params: { name: tool, arguments: args } },
          AnyResult,
          { signal, timeout: timeoutMs, maxTotalTimeout: timeoutMs, resetTimeoutOnProgress: false },
        );
      } catch (e) {
        if (signal.aborted) throw signal.reason;
        await this.#exitedSoon();
        if (this.#exited() && !this.#crashed) this.#crash();
        // Died before the request could even be written (a kill just before the call): the
        // server never saw it, so after the one restart it is sent again.
        const unsent = transport instanceof StdioTransport && transport.writeFailed;
        if (this.#crashed && unsent && !this.#restarted && attempt === 0) continue;
        if (this.#crashed || (this.status as McpStatus) === "failed") {
          throw this.#callError(this.error ?? `MCP server "${this.name}" stopped during the call`);
        }
        if (/timed out/i.test(errorText(e))) {
          throw this.#callError(
            `MCP server "${this.name}" did not answer the ${
              JSON.stringify(tool)
            } call within ${timeoutMs} ms`,
          );
        }
        throw this.#callError(
          `MCP server "${this.name}" failed the ${JSON.stringify(tool)} call: ${
            clip(causeChain(e), 1000)
          }`,
        );
      }
    }
  }

  #callError(message: string): McpCallError {
    return new McpCallError(this.#redact(message));
  }

  /** The transport closed: expected while stopping, a crash otherwise. */
  #closed(client: Client): void {
    if (client !== this.#client || this.#stopping || this.status === "starting") return;
    if (this.#crashed) return;
    // The exit status arrives a moment after the pipes close; the message waits for it.
    void this.#exitedSoon().then(() => {
      if (!this.#crashed && client === this.#client && !this.#stopping) this.#crash();
    });
  }

  /** Whether a stdio server's process has exited. */
  #exited(): boolean {
    const t = this.#transport;
    return t instanceof StdioTransport && t.exitStatus !== undefined;
  }

  /** Marks the server crashed, with a message naming its exit and stderr tail. */
  #crash(): void {
    this.#crashed = true;
    this.status = "failed";
    const what = this.#overflow ? `was stopped: ${this.#overflow}` : "stopped";
    const restart = this.#restarted ? "; it was already restarted once" : "";
    this.error = this.#describe(what) + restart;
    void this.#client?.close().catch(() => {});
    this.onChange?.();
  }

  async #exitedSoon(): Promise<void> {
    const t = this.#transport;
    if (!(t instanceof StdioTransport) || !t.exited) return;
    await within(t.exited.catch(() => {}), 1000);
  }

  /** `text` with every value a `${VAR}` reference expanded to replaced by `[redacted]`. */
  #redact(text: string): string {
    for (const secret of this.#secrets) text = text.replaceAll(secret, "[redacted]");
    return text;
  }

  /** `MCP server "x" <what>`, with its exit, junk on stdout and stderr tail when known. */
  #describe(what: string): string {
    let text = `MCP server "${this.name}" ${what}`;
    const t = this.#transport;
    if (t instanceof StdioTransport) {
      const status = t.exitStatus;
      if (status) {
        text += status.signal
          ? `; it was killed by ${status.signal}`
          : `; it exited with status ${status.code}`;
      }
      if (t.closeReason) text += `; ${t.closeReason}`;
      if (t.junkLines > 0) {
        text += `; it wrote ${t.junkLines} line(s) on stdout that are not JSON-RPC, the first: ${
          JSON.stringify(t.firstJunk)
        }`;
      }
      const tail = t.stderr.text();
      if (tail) text += `; stderr: ${tail}`;
    }
    return this.#redact(text);
  }

  async #closeTransport(): Promise<void> {
    const client = this.#client;
    const transport = this.#transport;
    if (client) await client.close().catch(() => {});
    if (transport) await transport.close().catch(() => {});
  }

  /** Stops the server (its whole process group for stdio); idempotent. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#stopping = true;
    await this.#closeTransport();
    if (this.#transport instanceof StdioTransport) await this.#transport.exited?.catch(() => {});
  }

  /** The server's process id (stdio, once spawned), for tests and diagnostics. */
  get pid(): number | undefined {
    return this.#transport instanceof StdioTransport ? this.#transport.pid : undefined;
  }
}

/** `promise`, or the signal's reason as soon as it aborts. */
function raceSignal<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
