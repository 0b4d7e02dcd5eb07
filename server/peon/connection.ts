/**
 * One Peon connection: the read loop and the shutdown paths (client EOF, broken output,
 * backpressure timeout, fatal version mismatch). Parsing is in `connection/parse.ts`, error
 * replies in `connection/replies.ts`, routing in `connection/routes.ts` and each request's
 * handling in `connection/handlers/`.
 *
 * @module
 */
import type { McpHost } from "../mcp/host.ts";
import type { ErrorCode } from "../../protocol/constants.ts";
import { type DecodedFrame, NdjsonDecoderStream } from "../../protocol/ndjson.ts";
import type { ServerEventType } from "../../protocol/schema.ts";
import type { EventOf } from "../../protocol/turn_events.ts";
import type { Config } from "../config.ts";
import type { SandboxReport } from "../sandbox/mod.ts";
import { type ConnectionContext, EXIT, FatalClose, type Unsequenced } from "./context.ts";
import { parseFrame } from "./parse.ts";
import { Replies } from "./replies.ts";
import { route } from "./routes.ts";
import { errorText, quoteInput } from "../error_text.ts";
import type { Session } from "../core/session.ts";
import type { TurnEndObserver } from "../core/turn.ts";
import type { Runtime } from "../core/runtime.ts";
import type { SessionStore } from "../sessions/store.ts";
import type { CheckpointsState } from "../checkpoints/open.ts";
import { BackpressureTimeoutError, FrameWriter, WriterClosedError } from "./writer.ts";
import { within } from "../timer.ts";

export { EXIT, MAX_SESSIONS } from "./context.ts";
export { SEND_TIMEOUT_MS } from "./replies.ts";
export { SERVER_INFO } from "./handlers/initialize.ts";

/** Active work and the writer get this long after cleanup starts before being aborted. */
export const GRACE_MS = 3000;

/** What a connection runs with. */
export interface ConnectionOptions {
  /** Client → server bytes (NDJSON). */
  readable: ReadableStream<Uint8Array>;
  /** Server → client bytes (NDJSON). */
  writable: WritableStream<Uint8Array>;
  /** The server's configuration. */
  config: Config;
  /** Loaded on first use, so the handshake does not wait for tools and providers. */
  deps: () => Promise<Runtime>;
  /** Diagnostics; never receives secrets. */
  log: (line: string) => void;
  /** Called at the end of every turn, before its terminal event is sent (see `Turn`). */
  onTurnEnd?: TurnEndObserver;
  /** The configured MCP servers, when some are enabled (see server/mcp/host.ts). */
  mcp?: McpHost;
  /** `session.started.sandbox` for a workspace; absent: not reported. */
  sandbox?: () => Promise<(workspace: string) => SandboxReport>;
  /** Where sessions are recorded and resumed from; omitted: not recorded. */
  sessions?: SessionStore | undefined;
  /** scv 0.3: whether sessions keep checkpoints, and where; omitted: they do not. */
  checkpoints?: () => Promise<CheckpointsState>;
  /**
   * The client is code in this process that builds its requests from the protocol's TypeScript
   * types (`scv exec`): its frames are taken as the types say, not checked against the zod
   * tables again (which would load zod for a turn that needs none). Omitted: every frame is
   * checked.
   */
  trustedClient?: boolean;
}

/** Errors that end the read loop: the output is gone or the connection closes on purpose. */
function endsConnection(e: unknown): boolean {
  return e instanceof FatalClose || e instanceof BackpressureTimeoutError ||
    e instanceof WriterClosedError;
}

/**
 * Serves one connection until it ends; resolves with the exit status.
 *
 * Input, turn completion and writer failure are handled concurrently: turns run as their own
 * tasks, the input loop never waits on them, and a writer failure cancels the input read.
 */
export class Connection {
  #o: ConnectionOptions;
  #writer: FrameWriter;
  #replies: Replies;
  #cx: ConnectionContext;
  #turns = new Set<Promise<void>>();
  #input: ReadableStreamDefaultReader<DecodedFrame>;
  #exit: number = EXIT.ok;
  #stopping = false;

  /** Prepares the connection; call {@link Connection.run} to serve it. */
  constructor(options: ConnectionOptions) {
    this.#o = options;
    this.#writer = new FrameWriter(options.writable, {
      maxFrameBytes: options.config.max_server_frame_bytes,
    });
    this.#replies = new Replies({
      writer: this.#writer,
      log: options.log,
      onBlocked: () => this.#stop(EXIT.outputFailed),
    });
    this.#input = options.readable
      .pipeThrough(new NdjsonDecoderStream(options.config.max_client_frame_bytes))
      .getReader();
    this.#cx = this.#context();
  }

  /** Reads and serves requests until EOF or a connection failure, then cleans up. */
  async run(): Promise<number> {
    void this.#writer.failed.then((reason) => {
      this.#o.log(`scv-server: output failed: ${reason}`);
      this.#stop(EXIT.outputFailed);
    });
    try {
      while (!this.#stopping) {
        const { value, done } = await this.#input.read();
        if (done) break;
        await this.#handle(value);
      }
    } catch (e) {
      if (e instanceof FatalClose) {
        // Exit status already set.
      } else if (e instanceof BackpressureTimeoutError || e instanceof WriterClosedError) {
        this.#o.log(`scv-server: ${e.message}`);
        this.#exit = EXIT.outputFailed;
      } else if (!this.#stopping) {
        this.#o.log(`scv-server: input failed: ${errorText(e)}`);
      }
    }
    await this.#cleanup();
    return this.#exit;
  }

  /** One frame: parsed, routed, and any unexpected failure answered with `internal_error`. */
  async #handle(frame: DecodedFrame): Promise<void> {
    const parsed = await parseFrame(frame, this.#cx.initialized, this.#cx.trustedClient);
    if (parsed.kind === "rejected") {
      return await this.#replies.error(parsed.requestId, parsed.code, parsed.message);
    }
    const msg = parsed.message;
    try {
      await route(msg, this.#cx);
    } catch (e) {
      if (endsConnection(e)) throw e;
      this.#o.log(
        `scv-server: internal error on "${msg.type}": ${e instanceof Error ? e.stack : e}`,
      );
      await this.#replies.error(
        msg.request_id,
        "internal_error",
        `internal error handling "${msg.type}"`,
      );
    }
  }

  #stop(exit: number): void {
    if (this.#stopping) return;
    this.#stopping = true;
    this.#exit = exit;
    this.#input.cancel().catch(() => {});
  }

  // Cancels every turn, gives turns and the writer the grace period, then aborts and joins.
  async #cleanup(): Promise<void> {
    this.#stopping = true;
    for (const s of this.#cx.sessions.values()) {
      // Queued prompts stay recorded, for a resumed session to list, and none starts now.
      s.inbox.halt();
      s.turn?.controller.abort(new DOMException("connection closed", "AbortError"));
    }
    const graceful = (async () => {
      await Promise.allSettled([...this.#turns]);
      await this.#writer.close();
    })();
    const expired = !await within(graceful, GRACE_MS);
    if (expired) {
      this.#o.log("scv-server: cleanup grace period over; aborting output");
      if (this.#exit === EXIT.ok) this.#exit = EXIT.outputFailed;
      await this.#writer.abort("cleanup grace period over");
      await graceful.catch(() => {});
    }
    // Each session's SessionEnd hooks, bounded (hook_points.ts), before its file is released.
    // Loaded here: a connection that never opened a session needs none of the hook code.
    if (this.#cx.sessions.size > 0) {
      const { endSessionHooks } = await import("../core/hook_points.ts");
      await Promise.allSettled(
        [...this.#cx.sessions.values()].map((s) => endSessionHooks(s, this.#cx.config, "other")),
      );
    }
    // Every turn has ended (or was abandoned): release the session files' locks.
    for (const s of this.#cx.sessions.values()) {
      s.recorder?.close();
      s.checkpoints?.close();
    }
    await this.#input.cancel().catch(() => {});
  }

  /** The connection as its handlers see it. */
  #context(): ConnectionContext {
    const o = this.#o;
    const replies = this.#replies;
    const sessions = new Map<string, Session>();
    return {
      config: o.config,
      log: o.log,
      deps: o.deps,
      writer: this.#writer,
      sessions,
      onTurnEnd: o.onTurnEnd,
      mcp: o.mcp,
      sandbox: o.sandbox,
      initialized: false,
      trustedClient: o.trustedClient === true,
      capabilities: {},
      store: o.sessions,
      checkpoints: o.checkpoints ??
        (() => Promise.resolve({ enabled: false, reason: "this server keeps no checkpoints" })),
      tools: undefined,
      send: <T extends ServerEventType>(event: EventOf<T>) => replies.send({ ...event }),
      sendSession: <T extends ServerEventType>(event: Unsequenced<T>, session: Session) =>
        replies.send({ ...event }, session.seq),
      error: (requestId: string | undefined, code: ErrorCode, message: string, fatal?: boolean) =>
        replies.error(requestId, code, message, fatal),
      sessionOf: async (msg) => {
        const session = sessions.get(msg.session_id);
        if (!session) {
          await replies.error(
            msg.request_id,
            "session_not_found",
            `no session ${quoteInput(msg.session_id)}`,
          );
        }
        return session;
      },
      stop: (exit) => this.#stop(exit),
      track: (task) => {
        this.#turns.add(task);
        void task.finally(() => this.#turns.delete(task));
      },
    };
  }
}
