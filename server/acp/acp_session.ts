/**
 * One ACP session on the agent core: a core {@link Session} (history, usage, seq, workspace),
 * its mode (the approval policy), its "always allow" memory, and at most one prompt turn at a
 * time. A turn's events become `session/update` notifications, its approvals become
 * `session/request_permission` requests, and its end the `session/prompt` answer.
 *
 * @module
 */
import {
  type AgentContext,
  type ClientCapabilities,
  type ContentBlock,
  type PromptResponse,
  RequestError,
  type RequestPermissionRequest,
  type SessionNotification,
  type SessionUpdate,
} from "@agentclientprotocol/sdk";
import type { ApprovalPolicy, Config } from "../config.ts";
import type { Runtime } from "../core/runtime.ts";
import type { Session } from "../core/session.ts";
import { Turn } from "../core/turn.ts";
import type { RecordedSessionView, Recorder } from "../sessions/recorder.ts";
import { liveSessionView } from "../core/recorded_session.ts";
import { turnEndOf } from "../sessions/records.ts";
import { runTurn } from "../core/run_turn.ts";
import { endSessionHooks } from "../core/hook_points.ts";
import type { ApprovalAnswer, ApprovalRequest } from "../core/approvals.ts";
import { ToolRegistry } from "../tools/registry.ts";
import type { AnyTool } from "../tools/tool.ts";
import type { McpHost } from "../mcp/host.ts";
import type { TurnEvent } from "../../protocol/turn_events.ts";
import { FrameTooLargeError } from "../../protocol/ndjson.ts";
import { errorText } from "../error_text.ts";
import { utf8Length } from "../utf8.ts";
import { PERMISSION_OPTIONS, permissionDecision, permissionTitle } from "./permissions.ts";
import { modeState, policyOfMode } from "./modes.ts";
import { promptText } from "./prompt_content.ts";
import type { ImagePart } from "../images/image_part.ts";
import { promptAnswer } from "./stop_reason.ts";
import { type FileChange, slimmed, UpdateMapper } from "./updates.ts";
import { toolKind, toolLocations } from "./tool_view.ts";
import { encodeMessage, fitsFrame } from "./transport.ts";
import { type ClientFiles, editorFiles, withClientFiles } from "./client_files.ts";
import { within } from "../timer.ts";

/** How long a read for a diff may take through the editor before the diff is left out. */
const DIFF_READ_TIMEOUT_MS = 10_000;

/** What a session is built from. */
export interface AcpSessionOptions {
  /** The core session: fresh for `session/new`, restored for `session/load`. */
  session: Session;
  /** The configuration turns run with (the session's mode replaces its approval policy). */
  config: Config;
  /** The provider, tools, context manager and system prompt of the connection. */
  deps: Runtime;
  /** Calls the client's side of the connection. */
  client: AgentContext;
  /** What the client said it can do in `initialize`. */
  capabilities: ClientCapabilities;
  /** Diagnostics; never receives secrets. */
  log: (line: string) => void;
  /** Records the session (`session/load` reopens it); omitted: nothing is recorded. */
  recorder?: (view: RecordedSessionView) => Recorder;
  /** The policy a loaded session was recorded with; omitted: the configuration's. */
  policy?: ApprovalPolicy;
  /** The MCP servers the client named for this session, started; stopped with the session. */
  mcp?: McpHost | undefined;
}

/** Resolves with `promise`, or rejects with the signal's reason once it aborts. */
function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/** The turn that runs, or is about to. */
interface Active {
  controller: AbortController;
  done: Promise<unknown>;
}

/** A fresh running-turn record. */
function newActive(): Active {
  return { controller: new AbortController(), done: Promise.resolve() };
}

/**
 * An ACP session. `prompt` runs one turn and answers `session/prompt`; `cancel` ends the
 * running turn as cancelled; `close` cancels and waits for it.
 */
export class AcpSession {
  /** The core session: history, usage, seq and workspace. */
  readonly core: Session;
  #o: AcpSessionOptions;
  #policy: ApprovalPolicy;
  #mapper: UpdateMapper;
  #tools: ToolRegistry;
  #files: ClientFiles;
  /** The running turn, if any. */
  #active: Active | undefined;
  /**
   * Prompts queued in the core's inbox behind the running one (scv 0.3), by request id: each
   * is handed its turn when it is next, or undefined when it left the queue without running.
   */
  #waiters = new Map<string, (active: Active | undefined) => void>();
  /** Text of files before a write started, by call id (null: the file did not exist). */
  #before = new Map<string, string | null>();
  #recorder: Recorder | undefined;
  /** The session's tools that mirror the connection's, by name, with the tool mirrored. */
  #fromShared = new Map<string, AnyTool>();

  /** Builds the session; nothing is sent until a prompt. */
  constructor(options: AcpSessionOptions) {
    this.#o = options;
    this.core = options.session;
    this.#policy = options.policy ?? options.config.approval_policy;
    this.#recorder = options.recorder?.(this.#recordedView());
    this.core.inbox.observer = this.#recorder;
    this.#files = editorFiles(
      options.client,
      this.id,
      options.capabilities.fs,
      options.config.max_server_frame_bytes,
    );
    this.#tools = new ToolRegistry();
    this.#syncShared();
    this.#mapper = new UpdateMapper({
      cwd: this.core.cwd,
      title: (name, args) => {
        const tool = this.#tools.get(name);
        const parsed = tool?.schema.safeParse(args);
        return parsed?.success ? tool!.summary(parsed.data) : undefined;
      },
      // Old and new text together stay well inside a frame, escapes and envelope included.
      maxDiffBytes: Math.max(0, Math.floor((options.config.max_server_frame_bytes - 1024) / 7)),
    });
  }

  /** What the recorder reads of the session, live. */
  #recordedView(): RecordedSessionView {
    const model = this.#o.config.model;
    return liveSessionView(this.core, { model: () => model, approvalPolicy: () => this.#policy });
  }

  /**
   * Mirrors the connection's tools (the built-in ones and the configured MCP servers', which
   * change as servers start) into the session's registry, the file tools through the editor
   * where it offers files. The client's own MCP tools live beside them.
   */
  #syncShared(): void {
    const shared = new Map(this.#o.deps.tools.list().map((t) => [t.name, t]));
    for (const [name, mirrored] of this.#fromShared) {
      if (shared.get(name) === mirrored) continue;
      this.#tools.unregister(name);
      this.#fromShared.delete(name);
    }
    for (const [name, tool] of shared) {
      if (this.#fromShared.has(name) || this.#tools.get(name)) continue;
      this.#tools.register(withClientFiles([tool], this.#files)[0]!);
      this.#fromShared.set(name, tool);
    }
  }

  /** Before each provider call: the MCP servers waited for and their tools brought in. */
  async #prepareTools(signal: AbortSignal): Promise<void> {
    await this.#o.deps.prepareTools?.(signal);
    this.#syncShared();
    await this.#o.mcp?.prepare(this.#tools, signal);
  }

  /** The session id, shared by ACP and the core. */
  get id(): string {
    return this.core.id;
  }

  /** The session's modes, the current one being its approval policy. */
  get modes(): ReturnType<typeof modeState> {
    return modeState(this.#policy);
  }

  /** Whether a turn is running. */
  get busy(): boolean {
    return this.#active !== undefined;
  }

  /** The session's recorder, if it is recorded. */
  get recorder(): Recorder | undefined {
    return this.#recorder;
  }

  /**
   * Switches the approval policy; it applies to the next call, in a running turn too, and is
   * recorded so that a loaded session keeps it.
   */
  async setMode(modeId: string): Promise<void> {
    const policy = policyOfMode(modeId);
    if (policy === undefined) {
      const ids = this.modes.availableModes.map((m) => `"${m.id}"`).join(", ");
      throw RequestError.invalidParams(
        { modeId },
        `unknown mode ${JSON.stringify(modeId)}; the modes are ${ids}`,
      );
    }
    this.#policy = policy;
    await this.#recorder?.checkpoint([
      { t: "config", model: this.#o.config.model, approval_policy: policy },
    ]);
  }

  /** Ends the running turn as cancelled (a pending permission resolves as cancelled). */
  cancel(): void {
    this.#active?.controller.abort(new DOMException("The prompt was cancelled", "AbortError"));
  }

  /**
   * Cancels the running turn, waits for it to end (at most `graceMs`), closes the record and
   * stops the client's MCP servers.
   */
  async close(graceMs: number): Promise<void> {
    const active = this.#active;
    // No queued prompt starts any more; each is answered cancelled.
    this.core.inbox.halt();
    for (const [requestId, handOver] of this.#waiters) {
      this.core.inbox.dequeue(requestId);
      handOver(undefined);
    }
    this.#waiters.clear();
    this.cancel();
    // The client's MCP servers stop meanwhile: a call cut off in one ends cancelled anyway.
    await Promise.all([
      active && within(active.done.catch(() => {}), graceMs),
      this.#o.mcp?.close(),
    ]);
    // The session's SessionEnd hooks (bounded, hook_points.ts), before its file is released.
    await endSessionHooks(this.core, this.#o.config, "other").catch(() => {});
    // After the turn, so its end is flushed first.
    this.#recorder?.close();
  }

  /** Sends one update of this session, outside a turn too (the replay of `session/load`). */
  async notify(update: SessionUpdate, signal?: AbortSignal): Promise<void> {
    const params: SessionNotification = { sessionId: this.id, update };
    const max = this.#o.config.max_server_frame_bytes;
    const encoded = encodeMessage({ jsonrpc: "2.0", method: "session/update", params }, max);
    if (!encoded.ok) throw new FrameTooLargeError(update.sessionUpdate, encoded.size, max);
    await abortable(this.#o.client.notify("session/update", params), signal);
  }

  /**
   * Runs one prompt turn; while another runs, the prompt waits in the session's queue (scv 0.3)
   * and runs after it. Resolves with the stop reason (`cancelled` for a queued prompt whose
   * request was cancelled before it ran); rejects with a JSON-RPC error for a bad prompt, a full
   * queue, or a turn that failed without a stop reason for it.
   */
  async prompt(
    blocks: readonly ContentBlock[],
    requestId: string,
    signal: AbortSignal,
  ): Promise<PromptResponse> {
    const text = promptText(blocks, this.#o.config.max_prompt_bytes);
    if (!text.ok) throw RequestError.invalidParams({ sessionId: this.id }, text.message);
    let images: ImagePart[] = [];
    if (text.images.length > 0) {
      // Checked as turn.start's attachments are: count, size, magic bytes, header.
      const { loadAttachments } = await import("../core/attachments.ts");
      const loaded = await loadAttachments(text.images, {
        cwd: this.core.cwd,
        maxImageBytes: this.#o.config.max_image_bytes,
        maxHistoryBytes: this.#o.config.max_history_bytes,
      });
      if (!loaded.ok) throw RequestError.invalidParams({ sessionId: this.id }, loaded.message);
      images = loaded.images;
    }
    let active: Active | undefined;
    if (this.#active) {
      active = await this.#queue(text.text, images, requestId, signal);
      if (!active) return { stopReason: "cancelled" } satisfies PromptResponse;
    } else {
      active = newActive();
      this.#active = active;
    }
    const { controller } = active;
    // The request's own signal aborts on `$/cancel_request` and when the connection closes.
    const onAbort = () => controller.abort(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
    const done = this.#run(text.text, images, requestId, controller.signal);
    active.done = done;
    try {
      const answer = promptAnswer(await done);
      if ("error" in answer) {
        throw new RequestError(answer.error.code, answer.error.message, answer.error.data);
      }
      return { stopReason: answer.stopReason } satisfies PromptResponse;
    } finally {
      signal.removeEventListener("abort", onAbort);
      this.#before.clear();
      this.#handOver();
    }
  }

  /**
   * Waits in the core's inbox behind the running prompt; resolves with this prompt's turn when
   * it is next, or undefined when its request was cancelled first (it then leaves the queue).
   * A full queue is `-32600`, as a second prompt was before there was a queue.
   */
  async #queue(
    prompt: string,
    images: ImagePart[],
    requestId: string,
    signal: AbortSignal,
  ): Promise<Active | undefined> {
    const accepted = this.core.inbox.enqueue(requestId, prompt, images);
    if (!accepted.ok) {
      throw RequestError.invalidRequest(
        { sessionId: this.id },
        `a prompt is already running in this session and ${accepted.message}`,
      );
    }
    const turn = Promise.withResolvers<Active | undefined>();
    this.#waiters.set(requestId, turn.resolve);
    const onAbort = () => {
      if (this.core.inbox.dequeue(requestId) === undefined) return;
      this.#waiters.delete(requestId);
      turn.resolve(undefined);
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
    // On disk before it may run, as on the Peon face.
    accepted.entry.announced = accepted.recorded;
    try {
      return await turn.promise;
    } finally {
      signal.removeEventListener("abort", onAbort);
    }
  }

  /** The running prompt ended: the next queued one (if any) gets the turn at once. */
  #handOver(): void {
    this.#active = undefined;
    const next = this.core.inbox.nextQueued();
    if (!next) return;
    const handOver = this.#waiters.get(next.requestId);
    this.#waiters.delete(next.requestId);
    if (!handOver) return;
    const active = newActive();
    this.#active = active;
    handOver(active);
  }

  async #run(prompt: string, images: ImagePart[], requestId: string, signal: AbortSignal) {
    const { deps, config } = this.#o;
    const turn = new Turn({
      session: this.core,
      requestId,
      prompt,
      images,
      maxFrameBytes: config.max_server_frame_bytes,
      sink: (event, s) => this.#sink(event, s),
      // On disk (fdatasync) before the client hears the turn ended.
      onEnd: async (end) => {
        await this.#recorder?.endTurn(turnEndOf(end), this.core.seq.peek());
      },
    });
    // The policy is read per call, so a mode switched mid-turn applies to the next call.
    const turnConfig = Object.defineProperty({ ...config }, "approval_policy", {
      get: () => this.#policy,
      enumerable: true,
    });
    return await runTurn(turn, {
      config: turnConfig,
      provider: deps.provider,
      tools: this.#tools,
      context: deps.context,
      approvals: { request: (r, s) => this.#approve(r, s) },
      signal,
      systemPrompt: await deps.systemPrompt(this.core.cwd),
      secretEnv: deps.secretEnv,
      prepareTools: (s) => this.#prepareTools(s),
      // Thought chunks are plain ACP; notices only for a client that can show them.
      reasoning: true,
      notices: this.#o.capabilities.session?.notices != null,
    });
  }

  /** One turn event out as the ACP updates it maps to. */
  async #sink(event: TurnEvent, signal?: AbortSignal): Promise<void> {
    // Each completed step is recorded as the next event goes out.
    this.#recorder?.observe(event);
    // ACP v1 has no update for these without a client capability scv does not use: logged.
    if (event.type === "context.compacted") {
      this.#o.log(
        `scv-acp: session ${this.id}: context compacted, ${event.removed_messages} messages ` +
          `removed (${event.before_tokens} -> ${event.after_tokens} tokens)`,
      );
    } else if (event.type === "session.trimmed") {
      this.#o.log(
        `scv-acp: session ${this.id}: history trimmed to max_history_bytes, ` +
          `${event.removed_messages} messages removed (${event.history_bytes} bytes left)`,
      );
    }
    let change: FileChange | undefined;
    if (event.type === "tool.started") {
      const path = this.#mapper.changedFile(event.call_id);
      if (path !== undefined) {
        const before = await this.#readForDiff(path, signal);
        if (before !== undefined) this.#before.set(event.call_id, before);
      }
    } else if (event.type === "tool.completed") {
      const path = this.#mapper.changedFile(event.call_id);
      const before = this.#before.get(event.call_id);
      this.#before.delete(event.call_id);
      if (event.success && path !== undefined && before !== undefined) {
        const after = await this.#readForDiff(path, signal);
        if (typeof after === "string") change = { path, oldText: before, newText: after };
      }
    }
    for (const update of this.#mapper.map(event, change)) {
      try {
        await this.notify(update, signal);
      } catch (e) {
        // A diff or raw input that makes the update too large is left out; the rest goes.
        const lean = slimmed(update);
        if (!(e instanceof FrameTooLargeError) || lean === update) throw e;
        await this.notify(lean, signal);
      }
    }
  }

  /** A file's text for a diff: null when absent, undefined when it cannot be had. */
  async #readForDiff(path: string, signal?: AbortSignal): Promise<string | null | undefined> {
    const max = Math.floor((this.#o.config.max_server_frame_bytes - 1024) / 7);
    let onDisk: Deno.FileInfo | undefined;
    try {
      onDisk = await Deno.stat(path);
    } catch (e) {
      if (!(e instanceof Deno.errors.NotFound)) return undefined;
    }
    if (this.#files.read) {
      const timeout = AbortSignal.timeout(DIFF_READ_TIMEOUT_MS);
      try {
        const text = await this.#files.read(
          path,
          {},
          signal ? AbortSignal.any([signal, timeout]) : timeout,
        );
        return utf8Length(text) <= max ? text : undefined;
      } catch {
        if (signal?.aborted) throw signal.reason;
        return onDisk ? undefined : null;
      }
    }
    if (!onDisk) return null;
    if (!onDisk.isFile || onDisk.size > max) return undefined;
    try {
      return await Deno.readTextFile(path, signal ? { signal } : {});
    } catch {
      if (signal?.aborted) throw signal.reason;
      return undefined;
    }
  }

  /**
   * An approval as `session/request_permission`; `allow_always` answers `"session"`, which adds
   * the core's session rule (the same one a Peon client's `remember: "session"` adds).
   */
  async #approve(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer> {
    const toolCall: RequestPermissionRequest["toolCall"] = {
      toolCallId: request.call_id,
      title: permissionTitle(request.summary, request.rule),
      kind: toolKind(request.name),
      status: "pending",
      locations: toolLocations(request.name, request.arguments, request.cwd),
    };
    const max = this.#o.config.max_server_frame_bytes;
    const fits = (call: RequestPermissionRequest["toolCall"]) =>
      fitsFrame({
        jsonrpc: "2.0",
        id: 0,
        method: "x",
        params: { sessionId: this.id, toolCall: call, options: PERMISSION_OPTIONS },
      }, max);
    // What the call would change: the whole file as a diff where it fits, else the core's
    // bounded unified diff as text, else nothing; the raw arguments where they fit beside it.
    const change = request.change;
    const contents: NonNullable<RequestPermissionRequest["toolCall"]["content"]>[] = [];
    if (change && request.preview !== undefined) {
      contents.push(
        [{ type: "diff", path: change.absolute, oldText: change.before, newText: change.after }],
        [{ type: "content", content: { type: "text", text: request.preview } }],
      );
    }
    const candidates = [
      ...contents.flatMap((content) => [
        { ...toolCall, content, rawInput: request.arguments },
        { ...toolCall, content },
      ]),
      { ...toolCall, rawInput: request.arguments },
    ];
    const params: RequestPermissionRequest = {
      sessionId: this.id,
      toolCall: candidates.find(fits) ?? toolCall,
      options: [...PERMISSION_OPTIONS],
    };
    let outcome;
    try {
      outcome = (await this.#o.client.request("session/request_permission", params, {
        cancellationSignal: signal,
        stopWaitingOnCancel: true,
      })).outcome;
    } catch (e) {
      if (signal.aborted) throw signal.reason;
      this.#o.log(
        `scv-acp: session/request_permission failed, so the call is denied: ${errorText(e)}`,
      );
      return false;
    }
    switch (permissionDecision(outcome)) {
      case "allow_always":
        return "session";
      case "allow_once":
        return true;
      case "reject":
        return false;
      case "cancelled":
        // The client cancelled the prompt turn: it ends cancelled, not with a denial.
        this.cancel();
        throw signal.reason;
    }
  }
}
