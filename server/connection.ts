/**
 * One Peon connection: the handshake, request validation and routing, sessions, turns, and the
 * shutdown paths (client EOF, broken output, backpressure timeout, fatal version mismatch).
 *
 * @module
 */
import { clip, errorText, quoteInput } from "./error_text.ts";
import { encodeFrame, FrameTooLargeError, NdjsonDecoderStream } from "../protocol/ndjson.ts";
import type { ClientMessage, ClientMessageOf } from "../protocol/schema.ts";
import {
  type ErrorCode,
  isClientMessageType,
  MAX_REQUEST_ID_BYTES,
  PROTOCOL_VERSION,
  SCV_VERSION,
} from "../protocol/constants.ts";
import { checkInitialize } from "../protocol/initialize_check.ts";
import type { Config } from "./config.ts";
import type { TurnDeps } from "./agent.ts";
import { Session } from "./session.ts";
import { BackpressureTimeoutError, FrameWriter, WriterClosedError } from "./writer.ts";
import { utf8Length } from "./utf8.ts";
import type { McpHost } from "./mcp/host.ts";

/** The server's name and version, as sent in `initialized`. */
export const SERVER_INFO = { name: "scv-server", version: SCV_VERSION } as const;

/** Connection-level sends give up after this much backpressure. */
export const SEND_TIMEOUT_MS = 3000;
/** Active work and the writer get this long after cleanup starts before being aborted. */
export const GRACE_MS = 3000;
/** Sessions one connection may open; the protocol has no way to close one. */
export const MAX_SESSIONS = 64;

/** Room a turn's failure message must have in a frame for a turn to be started at all. */
const MIN_FAILURE_MESSAGE_CHARS = 64;
/** The failure sent when a turn cannot start and the full reason does not fit a frame. */
const SHORT_START_FAILURE = "cannot start the turn; see the server log";

/** The UTF-8 bytes a string takes inside a JSON frame, escapes included, quotes excluded. */
function encodedBytes(text: string): number {
  return utf8Length(JSON.stringify(text)) - 2;
}

/** Exit statuses of a connection. */
export const EXIT = { ok: 0, outputFailed: 1, versionMismatch: 2 } as const;

/** What a connection runs with. */
export interface ConnectionOptions {
  readable: ReadableStream<Uint8Array>;
  writable: WritableStream<Uint8Array>;
  config: Config;
  /** Loaded on first use, so the handshake does not wait for tools and providers. */
  deps: () => Promise<ConnectionDeps>;
  log: (line: string) => void;
  /** The configured MCP servers, when some are enabled. */
  mcp?: McpHost;
}

/** What turns run with; the system prompt is built per workspace. */
export type ConnectionDeps = Omit<TurnDeps, "systemPrompt"> & {
  systemPrompt: (cwd: string) => Promise<string>;
};

class FatalClose extends Error {}

// The zod schemas and the agent loop load after the handshake: zod alone costs ~35 ms to import.
let schemas: Promise<typeof import("../protocol/schema.ts")> | undefined;
const loadSchemas = () => schemas ??= import("../protocol/schema.ts");

/**
 * Serves one connection until it ends; resolves with the exit status.
 *
 * Input, turn completion and writer failure are handled concurrently: turns run as their own
 * tasks, the input loop never waits on them, and a writer failure cancels the input read.
 */
export class Connection {
  #o: ConnectionOptions;
  #writer: FrameWriter;
  #initialized = false;
  #sessions = new Map<string, Session>();
  #turns = new Set<Promise<void>>();
  #input: ReadableStreamDefaultReader<import("../protocol/ndjson.ts").DecodedFrame>;
  #exit: number = EXIT.ok;
  #stopping = false;

  /** Prepares the connection; call {@link run} to serve it. */
  constructor(options: ConnectionOptions) {
    this.#o = options;
    this.#writer = new FrameWriter(options.writable, {
      maxFrameBytes: options.config.max_server_frame_bytes,
    });
    this.#input = options.readable
      .pipeThrough(new NdjsonDecoderStream(options.config.max_client_frame_bytes))
      .getReader();
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
        if (value.kind === "oversize") {
          await this.#error(
            undefined,
            "invalid_request",
            `frame of ${value.bytes} bytes exceeds max_client_frame_bytes (${value.limit})`,
          );
          continue;
        }
        if (value.kind === "invalid_utf8") {
          await this.#error(undefined, "invalid_json", "frame is not valid UTF-8");
          continue;
        }
        await this.#handleText(value.text);
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

  #stop(exit: number): void {
    if (this.#stopping) return;
    this.#stopping = true;
    this.#exit = exit;
    this.#input.cancel().catch(() => {});
  }

  // Cancels every turn, gives turns and the writer the grace period, then aborts and joins.
  async #cleanup(): Promise<void> {
    this.#stopping = true;
    for (const s of this.#sessions.values()) {
      s.turn?.controller.abort(new DOMException("connection closed", "AbortError"));
    }
    const graceful = (async () => {
      await Promise.allSettled([...this.#turns]);
      await this.#writer.close();
    })();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const expired = await Promise.race([
      graceful.then(() => false),
      new Promise<boolean>((r) => (timer = setTimeout(() => r(true), GRACE_MS))),
    ]);
    clearTimeout(timer);
    if (expired) {
      this.#o.log("scv-server: cleanup grace period over; aborting output");
      if (this.#exit === EXIT.ok) this.#exit = EXIT.outputFailed;
      await this.#writer.abort("cleanup grace period over");
      await graceful.catch(() => {});
    }
    await this.#input.cancel().catch(() => {});
  }

  /** Sends a connection-level frame; blocked output for 3 s stops the connection. */
  async #sendConnection(event: Record<string, unknown>, session?: Session): Promise<void> {
    try {
      await this.#writer.send(event, {
        timeoutMs: SEND_TIMEOUT_MS,
        ...(session ? { seq: session.seq } : {}),
      });
    } catch (e) {
      if (e instanceof BackpressureTimeoutError) {
        this.#o.log(`scv-server: ${e.message}; closing the connection`);
        this.#stop(EXIT.outputFailed);
      }
      throw e;
    }
  }

  /**
   * Sends an `error`. Messages quote client text only through {@link quoteInput}, so they stay
   * short; should one still not fit `max_server_frame_bytes` (a tiny configured limit), the code
   * goes out with a short message, then without the request_id, and failing even that the error
   * is logged: an error reply never ends the connection.
   */
  async #error(
    requestId: string | undefined,
    code: ErrorCode,
    message: string,
    fatal = false,
  ): Promise<void> {
    const id = requestId !== undefined ? { request_id: requestId } : {};
    // Shorter and shorter: the full error, its code with the request_id, the bare code.
    const attempts = [
      { type: "error", ...id, code, message, fatal },
      { type: "error", ...id, code, message: "see the server log", fatal },
      { type: "error", code, message: "see the server log", fatal },
    ];
    for (const [i, event] of attempts.entries()) {
      try {
        await this.#sendConnection(event);
        if (i > 0) {
          this.#o.log(
            `scv-server: a "${code}" error did not fit max_server_frame_bytes ` +
              `(${this.#o.config.max_server_frame_bytes}); it was sent short: ${
                clip(message, 500)
              }`,
          );
        }
        return;
      } catch (e) {
        if (!(e instanceof FrameTooLargeError)) throw e;
      }
    }
    this.#o.log(
      `scv-server: a "${code}" error cannot be sent within max_server_frame_bytes ` +
        `(${this.#o.config.max_server_frame_bytes}): ${clip(message, 500)}`,
    );
  }

  async #handleText(text: string): Promise<void> {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (e) {
      await this.#error(
        undefined,
        "invalid_json",
        `frame is not valid JSON: ${errorText(e)}`,
      );
      return;
    }
    if (typeof json !== "object" || json === null || Array.isArray(json)) {
      await this.#error(undefined, "invalid_request", "a message must be a JSON object");
      return;
    }
    const obj = json as Record<string, unknown>;
    if (typeof obj.request_id === "string" && encodedBytes(obj.request_id) > MAX_REQUEST_ID_BYTES) {
      // Echoing it would make replies and turn events as large as the id: refuse without it.
      await this.#error(
        undefined,
        "invalid_request",
        `request_id takes ${encodedBytes(obj.request_id)} bytes in a frame, more than the ` +
          `${MAX_REQUEST_ID_BYTES} bytes scv accepts (request_id ${quoteInput(obj.request_id)})`,
      );
      return;
    }
    const requestId = typeof obj.request_id === "string" && obj.request_id !== ""
      ? obj.request_id
      : undefined;
    const type = obj.type;
    if (!isClientMessageType(type)) {
      await this.#error(
        requestId,
        "invalid_request",
        typeof type === "string"
          ? `unknown message type ${quoteInput(type)}`
          : `"type" must be a string naming a message type`,
      );
      return;
    }
    if (!this.#initialized && type !== "initialize") {
      await this.#error(requestId, "not_initialized", `send "initialize" before "${type}"`);
      return;
    }
    let msg: ClientMessage;
    if (type === "initialize") {
      const checked = checkInitialize(obj);
      if (!checked.ok) {
        await this.#error(requestId, "invalid_request", `invalid "initialize": ${checked.error}`);
        return;
      }
      msg = checked.message;
    } else {
      const { CLIENT_MESSAGES, describeIssues } = await loadSchemas();
      const parsed = CLIENT_MESSAGES[type].safeParse(obj);
      if (!parsed.success) {
        await this.#error(
          requestId,
          "invalid_request",
          `invalid "${type}": ${describeIssues(parsed.error)}`,
        );
        return;
      }
      msg = parsed.data;
    }
    try {
      switch (msg.type) {
        case "initialize":
          return await this.#initialize(msg);
        case "session.start":
          return await this.#sessionStart(msg);
        case "turn.start":
          return await this.#turnStart(msg);
        case "turn.cancel":
          return await this.#turnCancel(msg);
        case "approval.resolve":
          return await this.#approvalResolve(msg);
        case "session.clear":
          return await this.#sessionClear(msg);
      }
    } catch (e) {
      if (
        e instanceof FatalClose || e instanceof BackpressureTimeoutError ||
        e instanceof WriterClosedError
      ) throw e;
      this.#o.log(
        `scv-server: internal error on "${msg.type}": ${e instanceof Error ? e.stack : e}`,
      );
      await this.#error(msg.request_id, "internal_error", `internal error handling "${msg.type}"`);
    }
  }

  async #initialize(msg: ClientMessageOf<"initialize">): Promise<void> {
    if (msg.protocol_version !== PROTOCOL_VERSION) {
      await this.#error(
        msg.request_id,
        "version_mismatch",
        `server speaks protocol version ${PROTOCOL_VERSION}, client asked for ${msg.protocol_version}`,
        true,
      );
      this.#stop(EXIT.versionMismatch);
      throw new FatalClose();
    }
    if (this.#initialized) {
      await this.#error(msg.request_id, "invalid_request", "the connection is already initialized");
      return;
    }
    this.#initialized = true;
    await this.#sendConnection({
      type: "initialized",
      request_id: msg.request_id,
      protocol_version: PROTOCOL_VERSION,
      server: SERVER_INFO,
    });
    setTimeout(() => void loadSchemas().catch(() => {}), 0);
  }

  async #sessionStart(msg: ClientMessageOf<"session.start">): Promise<void> {
    const { cwd } = msg;
    if (!cwd.startsWith("/")) {
      return await this.#error(
        msg.request_id,
        "invalid_request",
        `cwd must be an absolute path, got ${quoteInput(cwd)}`,
      );
    }
    if (this.#sessions.size >= MAX_SESSIONS) {
      return await this.#error(
        msg.request_id,
        "invalid_request",
        `this connection already has ${MAX_SESSIONS} sessions, the most it may open`,
      );
    }
    let canonical: string;
    try {
      canonical = await Deno.realPath(cwd);
      const info = await Deno.stat(canonical);
      if (!info.isDirectory) {
        return await this.#error(
          msg.request_id,
          "invalid_request",
          `cwd is not a directory: ${quoteInput(cwd)}`,
        );
      }
    } catch (e) {
      const why = e instanceof Deno.errors.NotFound
        ? `cwd does not exist: ${quoteInput(cwd)}`
        : e instanceof Deno.errors.NotCapable || e instanceof Deno.errors.PermissionDenied
        ? `cannot read cwd ${
          quoteInput(cwd)
        }: scv was started without read permission for it (--allow-read)`
        : `cannot open cwd ${quoteInput(cwd)}: ${clip(errorText(e), 200)}`;
      return await this.#error(msg.request_id, "invalid_request", why);
    }
    const session = new Session(canonical);
    const c = this.#o.config;
    const started = {
      type: "session.started",
      request_id: msg.request_id,
      session_id: session.id,
      cwd: canonical,
      model: c.model,
      context_max_tokens: c.context_max_tokens,
      max_server_frame_bytes: c.max_server_frame_bytes,
      max_transcript_bytes: c.max_transcript_bytes,
      max_transcript_items: c.max_transcript_items,
      max_prompt_history_bytes: c.max_prompt_history_bytes,
      max_prompt_history_items: c.max_prompt_history_items,
      ...(this.#o.mcp ? { mcp_servers: this.#o.mcp.statuses() } : {}),
    };
    try {
      await this.#sendConnection(started);
    } catch (e) {
      if (!(e instanceof FrameTooLargeError)) throw e;
      return await this.#error(
        msg.request_id,
        "invalid_request",
        `the session.started reply for this cwd takes ${e.bytes} bytes, more than ` +
          `max_server_frame_bytes (${e.limit})`,
      );
    }
    // Only a session the client was told about exists; the input loop waits for this handler.
    this.#sessions.set(session.id, session);
    // After the reply, so that loading the MCP client never delays it.
    this.#o.mcp?.start(canonical);
    // Warm up while the client composes its first prompt; a failure shows in the first turn.
    setTimeout(() => void this.#o.deps().catch(() => {}), 0);
  }

  /** The session a request names, or undefined after answering `session_not_found`. */
  async #sessionOf(
    msg: { request_id: string; session_id: string },
  ): Promise<Session | undefined> {
    const session = this.#sessions.get(msg.session_id);
    if (!session) {
      await this.#error(
        msg.request_id,
        "session_not_found",
        `no session ${quoteInput(msg.session_id)}`,
      );
    }
    return session;
  }

  async #turnStart(msg: ClientMessageOf<"turn.start">): Promise<void> {
    const session = await this.#sessionOf(msg);
    if (!session) return;
    if (msg.prompt.trim() === "") {
      return await this.#error(msg.request_id, "invalid_request", "prompt is empty");
    }
    const size = utf8Length(msg.prompt);
    if (size > this.#o.config.max_prompt_bytes) {
      return await this.#error(
        msg.request_id,
        "invalid_request",
        `prompt of ${size} bytes exceeds max_prompt_bytes (${this.#o.config.max_prompt_bytes})`,
      );
    }
    if (session.turn) {
      return await this.#error(
        msg.request_id,
        "turn_active",
        `session "${session.id}" is already running turn "${session.turn.id}"`,
      );
    }
    const turnId = crypto.randomUUID();
    const controller = new AbortController();
    const envelope = { request_id: msg.request_id, session_id: session.id, turn_id: turnId };
    if (!this.#fitsTurnEvents(envelope)) {
      return await this.#error(
        msg.request_id,
        "invalid_request",
        `this turn's events would not fit max_server_frame_bytes ` +
          `(${this.#o.config.max_server_frame_bytes}) with this request_id`,
      );
    }
    const writer = this.#writer;
    const emit = async (
      event: Record<string, unknown> & { type: string },
      signal?: AbortSignal,
    ) => {
      const { type, ...rest } = event;
      // session.trimmed belongs to the session, not the turn: no turn_id.
      const frame = type === "session.trimmed"
        ? { type, request_id: msg.request_id, session_id: session.id, seq: 0, ...rest }
        : { type, ...envelope, seq: 0, ...rest };
      await writer.send(frame, { seq: session.seq, ...(signal ? { signal } : {}) });
    };
    const turn = {
      id: turnId,
      requestId: msg.request_id,
      controller,
      done: Promise.resolve(),
    };
    session.turn = turn;
    const task = (async () => {
      try {
        let deps;
        let systemPrompt;
        try {
          deps = await this.#o.deps();
          systemPrompt = await deps.systemPrompt(session.cwd);
        } catch (e) {
          const message = `cannot start the turn: ${errorText(e)}`;
          this.#o.log(`scv-server: ${message}`);
          await emit({ type: "turn.started" });
          try {
            await emit({
              type: "turn.failed",
              code: "internal_error",
              message: clip(message, 500),
            });
          } catch (e2) {
            if (!(e2 instanceof FrameTooLargeError)) throw e2;
            // Short enough for any frame #fitsTurnEvents let this turn start with.
            await emit({
              type: "turn.failed",
              code: "internal_error",
              message: SHORT_START_FAILURE,
            });
          }
          return;
        }
        const { runTurn } = await import("./agent.ts");
        await runTurn(session, msg.prompt, controller.signal, emit, { ...deps, systemPrompt });
      } catch (e) {
        this.#o.log(
          `scv-server: turn ${turnId} ended abnormally: ${errorText(e)}`,
        );
      } finally {
        if (session.turn === turn) session.turn = undefined;
      }
    })();
    turn.done = task;
    this.#turns.add(task);
    void task.finally(() => this.#turns.delete(task));
  }

  /**
   * Whether a turn with this envelope can always end: its `turn.failed` with a short message
   * must fit the frame limit, or a client could wait forever for a terminal event.
   */
  #fitsTurnEvents(envelope: Record<string, string>): boolean {
    try {
      encodeFrame({
        type: "turn.failed",
        ...envelope,
        seq: Number.MAX_SAFE_INTEGER,
        code: "internal_error",
        message: "x".repeat(MIN_FAILURE_MESSAGE_CHARS),
      }, this.#o.config.max_server_frame_bytes);
      return true;
    } catch {
      return false;
    }
  }

  async #turnCancel(msg: ClientMessageOf<"turn.cancel">): Promise<void> {
    const session = await this.#sessionOf(msg);
    if (!session) return;
    if (!session.turn || session.turn.id !== msg.turn_id) {
      return await this.#error(
        msg.request_id,
        "turn_not_found",
        `no active turn ${quoteInput(msg.turn_id)} in this session`,
      );
    }
    session.turn.controller.abort(new DOMException("turn cancelled", "AbortError"));
  }

  async #approvalResolve(msg: ClientMessageOf<"approval.resolve">): Promise<void> {
    const session = await this.#sessionOf(msg);
    if (!session) return;
    if (!session.resolveApproval(msg.approval_id, msg.approved)) {
      return await this.#error(
        msg.request_id,
        "approval_not_found",
        `no pending approval ${quoteInput(msg.approval_id)} (unknown or already resolved)`,
      );
    }
  }

  async #sessionClear(msg: ClientMessageOf<"session.clear">): Promise<void> {
    const session = await this.#sessionOf(msg);
    if (!session) return;
    if (session.turn) {
      return await this.#error(
        msg.request_id,
        "turn_active",
        `cannot clear while turn "${session.turn.id}" is running`,
      );
    }
    session.clear();
    await this.#sendConnection(
      { type: "session.cleared", request_id: msg.request_id, session_id: session.id, seq: 0 },
      session,
    );
  }
}
