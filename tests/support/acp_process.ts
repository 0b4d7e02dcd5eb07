/**
 * Spawns the real `main.ts acp` for integration tests and drives it with the ACP SDK's own
 * client side over its stdio. Every line the agent writes is also kept raw (`lines`), and raw
 * bytes can be written beside the SDK's messages, for the malformed-input tests.
 *
 * @module
 */
import * as acp from "@agentclientprotocol/sdk";
import type { Config } from "../../server/config.ts";
import { SERVER_FLAGS } from "./server_process.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;
const encoder = new TextEncoder();

/** How the scripted client answers a permission request. */
export type PermissionAnswer = (
  request: acp.RequestPermissionRequest,
  signal: AbortSignal,
) => Promise<acp.RequestPermissionResponse> | acp.RequestPermissionResponse;

/** Options of {@link AcpProcess.start}. */
export interface AcpStartOptions {
  /** Written to a temp JSONC file passed with --config. */
  config?: Partial<Config>;
  env?: Record<string, string>;
  /** Replaces the server's permission flags. */
  denoFlags?: string[];
  /** The client's answer to each permission request; default: allow once. */
  permission?: PermissionAnswer;
  /** Files the client's editor holds, by absolute path, for fs/read_text_file. */
  buffers?: Map<string, string>;
  /** Reuse this temp dir (its state directory survives a restart). */
  tempDir?: string;
}

/** A running `scv acp` child process with an SDK client connected to it. */
export class AcpProcess {
  readonly child: Deno.ChildProcess;
  readonly tempDir: string;
  /** Every update the agent sent, in order. */
  readonly updates: acp.SessionNotification[] = [];
  /** Every permission request the agent made, in order. */
  readonly permissionRequests: acp.RequestPermissionRequest[] = [];
  /** Every fs/write_text_file the agent made. */
  readonly writes: acp.WriteTextFileRequest[] = [];
  /** Every fs/read_text_file the agent made. */
  readonly reads: acp.ReadTextFileRequest[] = [];
  /** Every line the agent wrote on stdout. */
  readonly lines: string[] = [];
  readonly buffers: Map<string, string>;
  /** Calls the agent's methods. */
  readonly agent: acp.ClientContext;
  readonly connection: acp.ClientConnection;
  #stdin: WritableStreamDefaultWriter<Uint8Array>;
  #stderr = "";
  #waiters = new Set<() => void>();
  #done: Promise<void>;
  #status: Promise<Deno.CommandStatus>;

  private constructor(child: Deno.ChildProcess, tempDir: string, options: AcpStartOptions) {
    this.child = child;
    this.tempDir = tempDir;
    this.buffers = options.buffers ?? new Map();
    this.#stdin = child.stdin.getWriter();
    this.#status = child.status;
    const [forSdk, forLines] = child.stdout.tee();
    const stderr = (async () => {
      for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) {
        if (this.#stderr.length < 1_000_000) this.#stderr += chunk;
        this.#wake();
      }
    })();
    const lines = (async () => {
      let buf = "";
      for await (const chunk of forLines.pipeThrough(new TextDecoderStream())) {
        buf += chunk;
        let nl;
        while ((nl = buf.indexOf("\n")) !== -1) {
          this.lines.push(buf.slice(0, nl));
          buf = buf.slice(nl + 1);
        }
        this.#wake();
      }
      if (buf !== "") this.lines.push(buf);
    })();
    this.#done = Promise.all([stderr, lines]).then(() => this.#wake());
    const permission = options.permission ??
      (() => ({ outcome: { outcome: "selected", optionId: "allow_once" } }));
    const stdin = this.#stdin;
    const app = acp.client({ name: "scv-test-client" })
      .onNotification("session/update", ({ params }) => {
        this.updates.push(params);
        this.#wake();
      })
      .onRequest("session/request_permission", async ({ params, signal }) => {
        this.permissionRequests.push(params);
        this.#wake();
        return await permission(params, signal);
      })
      .onRequest("fs/write_text_file", ({ params }) => {
        this.writes.push(params);
        this.buffers.set(params.path, params.content);
        this.#wake();
        return {};
      })
      .onRequest("fs/read_text_file", ({ params }) => {
        this.reads.push(params);
        const text = this.buffers.get(params.path);
        if (text === undefined) throw acp.RequestError.resourceNotFound(params.path);
        const all = text.split("\n");
        const from = (params.line ?? 1) - 1;
        const slice = params.limit == null ? all.slice(from) : all.slice(from, from + params.limit);
        return { content: slice.join("\n") };
      });
    this.connection = app.connect(acp.ndJsonStream(
      new WritableStream({ write: (chunk) => stdin.write(chunk) }),
      forSdk,
    ));
    this.agent = this.connection.agent;
  }

  /** Starts `scv acp` with a config file; `options.tempDir` keeps state across restarts. */
  static async start(options: AcpStartOptions = {}): Promise<AcpProcess> {
    const tempDir = options.tempDir ?? await Deno.makeTempDir({ prefix: "scv-acp-test-" });
    const configPath = `${tempDir}/config.jsonc`;
    await Deno.writeTextFile(configPath, JSON.stringify(options.config ?? {}));
    const child = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        ...(options.denoFlags ?? SERVER_FLAGS),
        MAIN,
        "acp",
        "--config",
        configPath,
      ],
      env: {
        XDG_CONFIG_HOME: `${tempDir}/xdg-config`,
        XDG_STATE_HOME: `${tempDir}/xdg-state`,
        NO_COLOR: "1",
        ...options.env,
      },
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    return new AcpProcess(child, tempDir, options);
  }

  #wake(): void {
    for (const w of [...this.#waiters]) w();
  }

  /** What the agent wrote on stderr so far. */
  get stderr(): string {
    return this.#stderr;
  }

  /**
   * Waits until `condition` holds, re-checking whenever the agent writes anything; rejects after
   * `timeoutMs` (generous: the machine may be loaded) with what was seen.
   */
  async until<T>(condition: () => T | undefined | false, timeoutMs = 30_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    while (true) {
      const value = condition();
      if (value !== undefined && value !== false) return value;
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new Error(
          `timed out waiting; lines:\n${this.lines.slice(-20).join("\n")}\nstderr: ${this.#stderr}`,
        );
      }
      await new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(t);
          this.#waiters.delete(wake);
          resolve();
        };
        const t = setTimeout(wake, Math.min(left, 1000));
        this.#waiters.add(wake);
      });
    }
  }

  /** Initializes with these client capabilities. */
  initialize(clientCapabilities: acp.ClientCapabilities = {}): Promise<acp.InitializeResponse> {
    return this.agent.request("initialize", {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities,
      clientInfo: { name: "scv-test-client", version: "0" },
    });
  }

  /** A fresh physical workspace directory inside the temp dir. */
  async workspace(): Promise<string> {
    return await Deno.realPath(await Deno.makeTempDir({ dir: this.tempDir, prefix: "ws-" }));
  }

  /** Initializes (unless done) and opens a session on `cwd`; returns its id. */
  async newSession(
    cwd: string,
    mcpServers: acp.McpServer[] = [],
  ): Promise<acp.NewSessionResponse> {
    return await this.agent.request("session/new", { cwd, mcpServers });
  }

  /** Sends a text prompt and waits for its answer. */
  prompt(sessionId: string, text: string | acp.ContentBlock[]): Promise<acp.PromptResponse> {
    const prompt = typeof text === "string" ? [{ type: "text" as const, text }] : text;
    return this.agent.request("session/prompt", { sessionId, prompt });
  }

  /** The updates of one session, by kind. */
  updatesOf(sessionId: string, kind?: acp.SessionUpdate["sessionUpdate"]): acp.SessionUpdate[] {
    return this.updates.filter((n) => n.sessionId === sessionId).map((n) => n.update)
      .filter((u) => kind === undefined || u.sessionUpdate === kind);
  }

  /** The text of a session's agent_message_chunk updates, joined. */
  messageText(sessionId: string): string {
    return this.updatesOf(sessionId, "agent_message_chunk")
      .map((u) => (u as { content: { text?: string } }).content.text ?? "").join("");
  }

  /** Writes a raw line (a newline is appended) beside the SDK's messages. */
  async sendRaw(line: string | Uint8Array): Promise<void> {
    await this.#stdin.write(typeof line === "string" ? encoder.encode(`${line}\n`) : line);
  }

  /** The parsed lines the agent wrote that answer `id` (null: the transport's own replies). */
  responsesTo(id: string | number | null): Array<Record<string, unknown>> {
    return this.lines.flatMap((l) => {
      try {
        const m = JSON.parse(l);
        return m.id === id && !("method" in m) ? [m] : [];
      } catch {
        return [];
      }
    });
  }

  /** Closes stdin (EOF) and waits for the exit status. */
  async close(): Promise<Deno.CommandStatus> {
    await this.#stdin.close().catch(() => {});
    const status = await this.#status;
    await this.#done;
    this.connection.close();
    return status;
  }

  /** Kills the process if it still runs and removes the temp dir unless `keep`. */
  async dispose(keep = false): Promise<void> {
    try {
      this.child.kill("SIGKILL");
    } catch {
      // already gone
    }
    await this.#status.catch(() => {});
    await this.#done.catch(() => {});
    this.connection.close();
    if (!keep) await Deno.remove(this.tempDir, { recursive: true }).catch(() => {});
  }
}
