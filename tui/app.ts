/**
 * The TUI's I/O shell, put together from its parts: the render loop
 * ({@link RenderLoop}), the input reader ({@link InputReader}), the effect runner
 * ({@link EffectRunner}) and the server link, with every change to the process and the terminal
 * undone on every exit path by one `AsyncDisposableStack`. Everything it shows comes from the
 * renderer over the state the reducers maintain; this file only wires bytes and timers.
 *
 * @module
 */
import type { TuiConfig } from "./tui_config.ts";
import { loadHistoryFile, stateDir } from "./history.ts";
import {
  addNotice,
  applyEvent,
  applyKey,
  type ClientState,
  createState,
  type CustomCommand,
  findCommand,
  interruptTurn,
  markClosed,
  MAX_MENTION_BYTES,
  type MentionedFile,
  type ModelList,
  notificationBytes,
  openPicker,
  welcome,
  type WorkspaceIndex,
} from "./state/mod.ts";
import type { PeonClient } from "../protocol/mod.ts";
import { LiveRegion } from "./terminal.ts";
import { colorEnabled, errorText, makeStyle, sanitize } from "./text.ts";
import {
  handshake,
  LogSink,
  openServer,
  type ServerLink,
  type ServerParts,
  type SessionChoice,
  withTimeout,
} from "./server_link.ts";
import { commandDirs, loadCustomCommands } from "./shell/custom_commands_loader.ts";
import { imageReader } from "./shell/image_reader.ts";
import { readClipboardImage } from "./shell/clipboard_image.ts";
import { EffectRunner } from "./shell/effect_runner.ts";
import { ExitLatch, type Outcome } from "./shell/exit.ts";
import { InputReader } from "./shell/input_reader.ts";
import {
  catchStrayErrors,
  divertConsole,
  listenSignals,
  rawTerminal,
  writeAll,
} from "./shell/process_hooks.ts";
import { RenderLoop } from "./shell/render_loop.ts";

export { restoreTerminal } from "./shell/process_hooks.ts";

/** Options of {@link runApp}. */
export interface AppOptions {
  config: TuiConfig;
  /** The workspace, absolute. */
  cwd: string;
  /** Spawn this command (with `bash -c`) as the server instead of running one in-process. */
  serverCommand?: string;
  /** Reads an environment variable; undefined when unset or not permitted. */
  env: (name: string) => string | undefined;
  /** The server side's parts the TUI uses. */
  server: ServerParts;
  /** Which session to open (default: a new one). */
  session?: SessionChoice;
}

/** Most paths indexed for `@path` completion. */
const MAX_INDEXED_PATHS = 20_000;

/** How long the server has to end after the TUI closes its input. */
const SHUTDOWN_MS = 5000;

/**
 * The state at startup: the config's limits, the saved prompt history, the custom commands
 * (a notice for each one left out) and the reader of pasted images.
 */
async function initialState(options: AppOptions, historyPath?: string): Promise<ClientState> {
  const { config } = options;
  const found = await loadCustomCommands(commandDirs(options.env, options.cwd));
  const notices = [...found.notices];
  const customCommands: CustomCommand[] = [];
  for (const c of found.commands) {
    if (findCommand(`/${c.name}`)) {
      notices.push(`Custom command ${c.source} is not used: /${c.name} is a built-in command`);
    } else customCommands.push(c);
  }
  const state = createState({
    model: config.model,
    cwd: options.cwd,
    historyLimits: {
      maxItems: config.max_prompt_history_items,
      maxBytes: config.max_prompt_history_bytes,
    },
    historyEntries: historyPath ? await loadHistoryFile(historyPath) : [],
    transcriptLimits: {
      maxItems: config.max_transcript_items,
      maxBytes: config.max_transcript_bytes,
    },
    serverLabel: options.serverCommand ? `command: ${options.serverCommand}` : "in-process",
    notify: config.notify,
    // The in-process server runs with this very config; a spawned one's limit is not reported,
    // so the protocol's default applies (see DEFAULT_MAX_PROMPT_BYTES).
    ...(options.serverCommand === undefined ? { maxPromptBytes: config.max_prompt_bytes } : {}),
    approvalPolicy: config.approval_policy,
    ...(config.steer_key ? { steerKey: config.steer_key } : {}),
    customCommands,
    readImage: imageReader(options.cwd),
    startupWarnings: notices,
    // The picker shows recorded (UTC) times in the user's zone.
    utcOffsetMinutes: -new Date().getTimezoneOffset(),
  });
  return state;
}

/** What {@link attachServer} works with. */
interface Shell {
  state: ClientState;
  exit: ExitLatch;
  render: RenderLoop;
  effects: EffectRunner;
}

/**
 * Feeds the server's events to the state and starts the session; a server that goes away, or
 * dies during the handshake, ends the TUI with its exit status and last log lines.
 */
function attachServer(
  link: ServerLink,
  shell: Shell,
  cwd: string,
  choice: SessionChoice,
): void {
  const { state, exit, render, effects } = shell;
  const reportServerGone = async (error?: string) => {
    const code = await withTimeout(link.exitStatus(), 3000);
    const how = code === "timeout" || code === undefined ? "" : ` (exit status ${code})`;
    const tail = link.recentLog().slice(-5).join("\n");
    exit.finish(
      1,
      `scv: the server closed the connection${how}${error ? `: ${error}` : ""}` +
        (tail ? `\nLast server messages:\n${tail}` : ""),
    );
  };
  link.client.on((input) => {
    // Once exiting, the last frame is written or about to be: nothing later can be shown.
    if (exit.exiting) return;
    if (input.kind === "event") {
      effects.run(applyEvent(state, input.event));
    } else if (input.kind === "malformed") {
      addNotice(
        state,
        "warn",
        `The server sent a malformed frame (${input.reason}); it was ignored`,
      );
      render.schedule();
    } else {
      markClosed(state);
      render.schedule();
      void reportServerGone(input.error);
    }
  });
  const say = (text: string) => {
    addNotice(state, "info", text);
    render.schedule();
  };
  handshake(link.client, cwd, undefined, choice, say).then(() => {
    welcome(state);
    render.schedule();
    if (choice.kind === "pick") effects.run(openPicker(state, true));
  }, async (e) => {
    // A server that died during the handshake is reported as such, with its last words.
    const code = await withTimeout(link.exitStatus(), 1000);
    if (code !== "timeout") {
      await reportServerGone();
      return;
    }
    const tail = link.recentLog().slice(-5).join("\n");
    exit.finish(
      1,
      `scv: could not start a session: ${errorText(e)}` +
        (tail ? `\nLast server messages:\n${tail}` : ""),
    );
  });
}

/** The provider's models, as the server's `models.list` answers. */
async function askModels(client: PeonClient | undefined, state: ClientState): Promise<ModelList> {
  const session = state.session;
  if (!client || !session) return { error: "no session is open" };
  try {
    const r = await client.request({ type: "models.list", session_id: session.id }, [
      "models.list",
    ]);
    return r.error !== undefined ? { error: r.error } : { models: r.models };
  } catch (e) {
    return { error: errorText(e) };
  }
}

/** The workspace's paths for `@path` completion, as the server's `files.list` answers. */
async function askFiles(
  client: PeonClient | undefined,
  state: ClientState,
): Promise<WorkspaceIndex> {
  const session = state.session;
  if (!client || !session) throw new Error("no session is open");
  const r = await client.request({
    type: "files.list",
    session_id: session.id,
    limit: MAX_INDEXED_PATHS,
  }, ["files.list"]);
  return { paths: r.paths, truncated: r.truncated };
}

/** How long the server has to answer one `files.read` before the mention goes unattached. */
const FILE_READ_TIMEOUT_MS = 10_000;

/** A mentioned file, as the server's `files.read` reads it under the workspace's rules. */
async function askFile(
  client: PeonClient | undefined,
  state: ClientState,
  path: string,
  maxBytes: number = MAX_MENTION_BYTES,
): Promise<MentionedFile> {
  const session = state.session;
  const unread = (message: string) => ({ refused: { reason: "unreadable", message } });
  if (!client || !session) return unread("no session is open");
  const reply = client.request({
    type: "files.read",
    session_id: session.id,
    path,
    max_bytes: maxBytes,
  }, ["files.read"]);
  try {
    const r = await withTimeout(reply, FILE_READ_TIMEOUT_MS);
    if (r === "timeout") {
      reply.catch(() => {});
      return unread(`the server did not answer within ${FILE_READ_TIMEOUT_MS / 1000} s`);
    }
    if (r.refused) return { refused: r.refused };
    return { text: r.text ?? "", size: r.size ?? 0, truncated: r.truncated ?? false };
  } catch (e) {
    return unread(errorText(e));
  }
}

/**
 * Runs the TUI on the process's terminal until the user quits, the server goes away or a
 * signal arrives; resolves with the exit status. The terminal is restored on every path.
 */
export async function runApp(options: AppOptions): Promise<number> {
  const { env } = options;
  const dir = stateDir(env);
  const historyPath = dir ? `${dir}/history.jsonl` : undefined;
  const state = await initialState(options, historyPath);
  const exit = new ExitLatch();
  const render = new RenderLoop({
    state,
    region: new LiveRegion(),
    style: makeStyle(colorEnabled(env)),
    home: env("HOME"),
    exit,
    write: writeAll,
    size: () => {
      const { columns, rows } = Deno.consoleSize();
      return { cols: columns, rows };
    },
  });
  let link: ServerLink | undefined;
  const effects = new EffectRunner({
    state,
    render,
    exit,
    historyPath,
    send: () => link && ((message) => link!.client.send(message)),
    // All three are the server's answers (its provider, its disk), so they hold under
    // --server-command too.
    listModels: () => askModels(link?.client, state),
    indexFiles: () => askFiles(link?.client, state),
    readFile: (path, maxBytes) => askFile(link?.client, state, path, maxBytes),
    notify: (message) => writeAll(notificationBytes(message, env)),
    clipboardImage: () => readClipboardImage(env),
  });
  const input = new InputReader({
    input: Deno.stdin,
    exit,
    onKeys: (events) => {
      state.composerWidth = render.composerWidth();
      for (const ev of events) effects.run(applyKey(state, ev));
    },
  });
  const sink = new LogSink(dir);

  let outcome: Outcome = { status: 1 };
  {
    // Undone last to first: the timers go, the unfinished turn and the last frame are written,
    // the terminal and the console are restored, the listeners removed, the message printed,
    // the history saved, and the server shut down.
    await using stack = new AsyncDisposableStack();
    stack.defer(async () => {
      if (link) await link.shutdown(SHUTDOWN_MS);
    });
    stack.use(effects);
    // The message may quote the server (its error text, its last log lines): never raw.
    stack.defer(() => {
      if (outcome.message) console.error(sanitize(outcome.message));
    });
    stack.use(catchStrayErrors(exit));
    stack.use(listenSignals(exit, () => render.schedule())); // a resize: the next frame redraws
    stack.use(divertConsole(sink.line));
    const terminal = stack.use(rawTerminal());
    // An unfinished turn's text and calls go to scrollback, marked interrupted, before the
    // live region is removed.
    stack.defer(() => {
      interruptTurn(state);
      render.finalFrame();
    });
    stack.use(input);
    stack.use(render);
    stack.defer(() => {
      exit.stop();
      effects.dropTimers();
    });
    try {
      terminal.enter();
      render.ready = true;
      render.renderNow();
      input.start();
      link = await openServer({
        config: options.config,
        cwd: options.cwd,
        log: sink,
        server: options.server,
        ...(options.serverCommand !== undefined ? { serverCommand: options.serverCommand } : {}),
      });
      attachServer(
        link,
        { state, exit, render, effects },
        options.cwd,
        options.session ?? { kind: "new" },
      );
      outcome = await exit.done;
    } catch (e) {
      outcome = { status: 1, message: `scv: ${errorText(e)}` };
    }
  }
  return outcome.status;
}
