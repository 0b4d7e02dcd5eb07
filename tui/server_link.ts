/**
 * Where the TUI's server runs: in this process over a pair of in-memory byte pipes (the
 * default), or as a child process spawned from `--server-command`, in a process group of its
 * own that is killed whole at shutdown. Either way the TUI only sees a {@link PeonClient} over
 * byte streams. Server diagnostics never reach the terminal: they go to `server.log` in scv's
 * state directory and to a small in-memory tail for error reports.
 *
 * @module
 */
import { SCV_VERSION } from "../protocol/mod.ts";
import { PeonClient, PeonRequestError } from "../protocol/mod.ts";
import type { ServerEventOf } from "../protocol/mod.ts";
import type { TuiConfig } from "./tui_config.ts";

/**
 * What the TUI needs from the server side, handed in by the command that starts it (cli/), so
 * that the TUI itself depends on no server module: it is a Peon client like any other.
 */
export interface ServerParts {
  /**
   * Loads the in-process server, bound to the configuration (only called when the server runs
   * in this process); the server it starts serves one connection and resolves with its status.
   */
  loadServe(): Promise<InProcessServer>;
  /** Signals every process of the group `pgid`; never throws. */
  signalGroup(pgid: number, signal: "SIGTERM" | "SIGKILL"): Promise<void>;
}

/** Starts a Peon server on a pair of byte streams, its diagnostics going to `log`. */
export type InProcessServer = (io: {
  readable: ReadableStream<Uint8Array>;
  writable: WritableStream<Uint8Array>;
  log: (line: string) => void;
}) => Promise<number>;

/** A connected server. */
export interface ServerLink {
  client: PeonClient;
  /** Resolves with the server's exit status once it has ended (undefined if unknown). */
  exitStatus(): Promise<number | undefined>;
  /** The last diagnostic lines the server wrote. */
  recentLog(): string[];
  /** Closes the connection (EOF for the server) and waits, then kills what is left. */
  shutdown(timeoutMs: number): Promise<void>;
}

/** Options of {@link openServer}. */
export interface OpenServerOptions {
  config: TuiConfig;
  cwd: string;
  serverCommand?: string;
  /** Where diagnostics go; see {@link LogSink}. */
  log: LogSink;
  server: ServerParts;
}

const MAX_LOG_FILE_BYTES = 1024 * 1024;
const TAIL_LINES = 50;

/**
 * A bounded diagnostic sink: `server.log` in a directory (truncated at start when over 1 MiB)
 * and an in-memory tail of the last lines for error reports.
 */
export class LogSink {
  #file: Deno.FsFile | undefined;
  #tail: string[] = [];
  #encoder = new TextEncoder();

  /** Opens `dir/server.log` for appending; without `dir`, lines are only kept in memory. */
  constructor(dir: string | undefined) {
    if (!dir) return;
    try {
      Deno.mkdirSync(dir, { recursive: true });
      const path = `${dir}/server.log`;
      let truncate = false;
      try {
        truncate = Deno.statSync(path).size > MAX_LOG_FILE_BYTES;
      } catch {
        // No log yet.
      }
      this.#file = Deno.openSync(path, {
        create: true,
        write: true,
        append: !truncate,
        truncate,
        mode: 0o600,
      });
    } catch {
      this.#file = undefined;
    }
  }

  /** Records one diagnostic (possibly several lines). */
  line = (text: string): void => {
    for (const l of text.split("\n")) {
      if (l === "") continue;
      this.#tail.push(l.length > 500 ? l.slice(0, 500) + "…" : l);
      if (this.#tail.length > TAIL_LINES) this.#tail.shift();
    }
    if (this.#file) {
      try {
        this.#file.writeSync(this.#encoder.encode(`${new Date().toISOString()} ${text}\n`));
      } catch {
        this.#file = undefined;
      }
    }
  };

  /** The last lines recorded, oldest first. */
  get tail(): string[] {
    return [...this.#tail];
  }

  /** Closes the file; later lines are kept in memory only. */
  close(): void {
    try {
      this.#file?.close();
    } catch {
      // Already closed.
    }
    this.#file = undefined;
  }
}

/** Resolves with `p`'s value, or `"timeout"` after `ms`; the timer never outlives `p`. */
export function withTimeout<T>(p: Promise<T>, ms: number): Promise<T | "timeout"> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<"timeout">((r) => {
      timer = setTimeout(() => r("timeout"), ms);
    }),
  ]);
}

/** How long a server has to answer each step of the handshake. */
export const HANDSHAKE_TIMEOUT_MS = 10_000;

/** Which session the handshake opens. */
export type SessionChoice =
  /** A new session. */
  | { kind: "new" }
  /** A recorded session, by id or `"last"` (the newest for this workspace). */
  | { kind: "resume"; resume: string }
  /** None yet: the caller opens the picker once the connection is initialized. */
  | { kind: "pick" };

/**
 * Initializes the connection and starts a session in `cwd` (new, or resumed as `choice`
 * says), each step bounded by `timeoutMs`, so that a command that is not a Peon server, or a
 * server that hangs, is reported in plain words instead of leaving the TUI connecting forever.
 * `scv -c` with nothing recorded for this workspace starts a new session, and `onNotice` says
 * so. With `pick`, only the connection is initialized (undefined is returned).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { PeonClient, PeonRequestError } from "../protocol/mod.ts";
 * import { handshake } from "./server_link.ts";
 * // A "server" that never answers.
 * const silent = new TransformStream<Uint8Array, Uint8Array>();
 * const sink = new WritableStream<Uint8Array>();
 * const client = new PeonClient(silent.readable, sink);
 * await assert.rejects(handshake(client, "/w", 50), /did not answer "initialize" within 0.05 s/);
 * await client.abort();
 * ```
 */
export async function handshake(
  client: PeonClient,
  cwd: string,
  timeoutMs = HANDSHAKE_TIMEOUT_MS,
  choice: SessionChoice = { kind: "new" },
  onNotice: (text: string) => void = () => {},
): Promise<ServerEventOf<"session.started"> | undefined> {
  const step = async <T>(what: string, reply: Promise<T>): Promise<T> => {
    const r = await withTimeout(reply, timeoutMs);
    if (r === "timeout") {
      throw new Error(
        `The server did not answer "${what}" within ${timeoutMs / 1000} s: ` +
          `is the server command a Peon server, such as "scv server"?`,
      );
    }
    return r;
  };
  // The TUI shows reasoning (dimmed, collapsed) and the turn's notices.
  await step("initialize", client.initialize({ reasoning: true, notices: true }));
  if (choice.kind === "pick") return undefined;
  if (choice.kind === "new") return await step("session.start", client.startSession(cwd));
  try {
    return await step(
      "session.start",
      client.request({ type: "session.start", cwd, resume: choice.resume }, ["session.started"]),
    );
  } catch (e) {
    if (
      choice.resume !== "last" || !(e instanceof PeonRequestError) ||
      e.event.code !== "session_not_found"
    ) throw e;
    onNotice("No session is recorded for this workspace yet; a new one starts");
    return await step("session.start", client.startSession(cwd));
  }
}

/**
 * Starts or spawns the server and returns a client connected to it. The handshake is left to
 * the caller (see {@link handshake}).
 */
export async function openServer(options: OpenServerOptions): Promise<ServerLink> {
  const log = options.log;
  const maxFrameBytes = Math.max(options.config.max_server_frame_bytes, 8 * 1024 * 1024);
  const clientOptions = { maxFrameBytes, name: "scv-tui", version: SCV_VERSION };

  if (options.serverCommand === undefined) {
    const serve = await options.server.loadServe();
    const toServer = new TransformStream<Uint8Array, Uint8Array>();
    const toClient = new TransformStream<Uint8Array, Uint8Array>();
    const served = serve({
      readable: toServer.readable,
      writable: toClient.writable,
      log: log.line,
    }).catch((e) => {
      log.line(`scv-server: crashed: ${e instanceof Error ? e.stack ?? e.message : String(e)}`);
      return 1;
    });
    // When the server ends, the client must see EOF even if the server left its output open.
    void served.then(() => toClient.writable.close().catch(() => {}));
    const client = new PeonClient(toClient.readable, toServer.writable, clientOptions);
    return {
      client,
      exitStatus: () => served,
      recentLog: () => log.tail,
      async shutdown(timeoutMs) {
        await withTimeout(client.close(), timeoutMs);
        await withTimeout(served, timeoutMs);
        log.close();
      },
    };
  }

  const child = new Deno.Command("bash", {
    args: ["-c", options.serverCommand],
    cwd: options.cwd,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
    // Its own process group, so that shutdown reaches everything the command started.
    detached: true,
  }).spawn();
  const status = child.status.then((s) => s.code);
  // Server stderr goes to the log, never to the terminal.
  void (async () => {
    const decoder = new TextDecoder();
    let rest = "";
    try {
      for await (const chunk of child.stderr) {
        rest += decoder.decode(chunk, { stream: true });
        const lines = rest.split("\n");
        rest = lines.pop() ?? "";
        for (const l of lines) log.line(l);
        if (rest.length > 4096) {
          log.line(rest);
          rest = "";
        }
      }
    } catch {
      // The pipe broke with the process.
    }
    if (rest) log.line(rest);
  })();
  const client = new PeonClient(child.stdout, child.stdin, clientOptions);
  return {
    client,
    exitStatus: () => status,
    recentLog: () => log.tail,
    async shutdown(timeoutMs) {
      // EOF tells the server to finish; its output is read to the end meanwhile.
      const closed = client.close();
      const ended = await withTimeout(status, timeoutMs) !== "timeout";
      // Even a server that ended on EOF may leave processes behind (a background job of the
      // command, a wrapper shell's children), and they may hold its output open: the whole
      // group goes.
      await options.server.signalGroup(child.pid, "SIGTERM");
      if (!ended && await withTimeout(status, 1000) === "timeout") {
        await options.server.signalGroup(child.pid, "SIGKILL");
      }
      await withTimeout(closed, 1000);
      await client.abort().catch(() => {});
      log.close();
    },
  };
}
