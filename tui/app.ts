/**
 * The TUI's I/O shell: raw mode, the stdin reader, SIGWINCH, the Peon client, and cleanup on
 * every exit path. Everything it shows comes from {@link renderLive} and {@link renderItem}
 * over the state that {@link applyEvent} and {@link applyKey} maintain; this file only moves
 * bytes and timers.
 *
 * @module
 */
import { errorText } from "../server/error_text.ts";
import type { PeonClient as _PeonClient } from "../protocol/client.ts";
import { type Config, readEnv } from "../server/config.ts";
import { KeyParser } from "./keys.ts";
import { loadHistoryFile, saveHistoryFile, stateDir } from "./history.ts";
import { composerWidth, createRenderCache, renderItem, renderLive, type View } from "./render.ts";
import {
  addNotice,
  applyEvent,
  applyKey,
  applyNoReply,
  applySendFailure,
  type AwaitedRequest,
  awaitingReply,
  type ClientState,
  createState,
  drainOutbox,
  type Effect,
  interruptTurn,
  markClosed,
} from "./state.ts";
import {
  AUTOWRAP_ON,
  CURSOR_HIDE,
  CURSOR_SHOW,
  LiveRegion,
  PASTE_OFF,
  PASTE_ON,
  SYNC_END,
} from "./terminal.ts";
import { colorEnabled, makeStyle, sanitize } from "./text.ts";
import { handshake, LogSink, openServer, type ServerLink, withTimeout } from "./server_link.ts";

/** Options of {@link runApp}. */
export interface AppOptions {
  config: Config;
  /** The workspace, absolute. */
  cwd: string;
  /** Spawn this command (with `bash -c`) as the server instead of running one in-process. */
  serverCommand?: string;
}

const encoder = new TextEncoder();
const ESC_TIMEOUT_MS = 40;
const FRAME_MS = 8;
const SHUTDOWN_MS = 5000;

function writeAll(s: string): void {
  if (s === "") return;
  let data = encoder.encode(s);
  while (data.length > 0) {
    const n = Deno.stdout.writeSync(data);
    data = data.subarray(n);
  }
}

/**
 * Runs the TUI on the process's terminal until the user quits, the server goes away or a
 * signal arrives; resolves with the exit status. The terminal is restored on every path.
 */
export async function runApp(options: AppOptions): Promise<number> {
  const { config } = options;
  const dir = stateDir(readEnv);
  const historyPath = dir ? `${dir}/history.jsonl` : undefined;
  const historyLimits = {
    maxItems: config.max_prompt_history_items,
    maxBytes: config.max_prompt_history_bytes,
  };
  const state: ClientState = createState({
    model: config.model,
    cwd: options.cwd,
    historyLimits,
    historyEntries: historyPath ? await loadHistoryFile(historyPath) : [],
    transcriptLimits: {
      maxItems: config.max_transcript_items,
      maxBytes: config.max_transcript_bytes,
    },
    serverLabel: options.serverCommand ? `command: ${options.serverCommand}` : "in-process",
    // The in-process server runs with this very config; a spawned one's limit is not reported,
    // so the protocol's default applies (see DEFAULT_MAX_PROMPT_BYTES).
    ...(options.serverCommand === undefined ? { maxPromptBytes: config.max_prompt_bytes } : {}),
  });
  const style = makeStyle(colorEnabled(readEnv));
  const home = readEnv("HOME");
  const region = new LiveRegion();
  const cache = createRenderCache();
  const parser = new KeyParser();

  let exiting = false;
  let resolveExit!: (r: { status: number; message?: string | undefined }) => void;
  const exited = new Promise<{ status: number; message?: string | undefined }>((r) => {
    resolveExit = r;
  });
  const finish = (status: number, message?: string) => {
    if (exiting) return;
    exiting = true;
    resolveExit({ status, message });
  };

  // --- rendering ---------------------------------------------------------------------------
  let renderTimer: ReturnType<typeof setTimeout> | undefined;
  let lastRender = 0;
  let renderedVersion = -1;
  let renderedSize = "";
  let pendingClear = false;
  let terminalReady = false;
  const size = () => {
    const { columns, rows } = Deno.consoleSize();
    return { cols: Math.max(11, columns), rows: Math.max(4, rows) };
  };
  const view = (sz: { cols: number; rows: number }): View => ({
    width: sz.cols - 1,
    height: sz.rows,
    style,
    home,
  });
  const renderNow = () => {
    renderTimer = undefined;
    if (!terminalReady) return;
    lastRender = performance.now();
    const sz = size();
    const clear = pendingClear;
    pendingClear = false;
    const sizeKey = `${sz.cols}x${sz.rows}`;
    if (state.version === renderedVersion && !clear && sizeKey === renderedSize) return;
    renderedVersion = state.version;
    renderedSize = sizeKey;
    const v = view(sz);
    const above = drainOutbox(state).flatMap((item) => renderItem(item, v));
    const live = renderLive(state, v, cache);
    writeAll(region.update(live, sz, { above, cleared: clear }));
  };
  const schedule = () => {
    if (renderTimer !== undefined || exiting) return;
    const delay = Math.max(0, lastRender + FRAME_MS - performance.now());
    renderTimer = setTimeout(renderNow, delay);
  };

  // --- effects -------------------------------------------------------------------------------
  let link: ServerLink | undefined;
  let saving = Promise.resolve();
  // One timer per request awaiting confirmation, dropped as soon as it is confirmed: no timer
  // runs while the TUI is idle.
  const replyTimers = new Map<AwaitedRequest, ReturnType<typeof setTimeout>>();
  const dropConfirmedTimers = () => {
    for (const [request, timer] of replyTimers) {
      if (awaitingReply(state, request)) continue;
      clearTimeout(timer);
      replyTimers.delete(request);
    }
  };
  const run = (effects: Effect[]) => {
    for (const fx of effects) {
      switch (fx.kind) {
        case "send":
          if (!link) break;
          link.client.send(fx.message).catch((e) => {
            applySendFailure(state, fx.message, errorText(e));
            run([]); // a cancel that could not be sent is no longer awaited: drop its timer
          });
          break;
        case "exit":
          finish(fx.status, fx.message);
          break;
        case "clear-screen":
          pendingClear = true;
          break;
        case "flush":
          // Many items finished since the last frame: write them now instead of holding them.
          if (exiting) break; // the last frame writes them
          if (renderTimer !== undefined) clearTimeout(renderTimer);
          renderNow();
          break;
        case "expect-reply": {
          const request = fx.request;
          clearTimeout(replyTimers.get(request));
          replyTimers.set(
            request,
            setTimeout(() => {
              replyTimers.delete(request);
              if (!exiting) run(applyNoReply(state, request));
            }, fx.ms),
          );
          break;
        }
        case "save-history":
          if (historyPath) {
            saving = saving.then(() => saveHistoryFile(historyPath, state.history)).catch(
              () => {},
            );
          }
          break;
      }
    }
    dropConfirmedTimers();
    schedule();
  };

  // --- signals and crashes -------------------------------------------------------------------
  const onResize = () => schedule(); // the next frame sees the new size and redraws
  const signalHandlers: Array<[Deno.Signal, () => void]> = [
    ["SIGWINCH", onResize],
    ["SIGINT", () => finish(130)],
    ["SIGTERM", () => finish(143)],
    ["SIGHUP", () => finish(129)],
  ];
  for (const [sig, fn] of signalHandlers) {
    try {
      Deno.addSignalListener(sig, fn);
    } catch {
      // A signal this platform does not have; nothing to listen to.
    }
  }
  const onRejection = (e: PromiseRejectionEvent) => {
    e.preventDefault();
    finish(1, `scv: internal error: ${errorText(e.reason)}`);
  };
  const onError = (e: ErrorEvent) => {
    e.preventDefault();
    finish(1, `scv: internal error: ${errorText(e.error ?? e.message)}`);
  };
  globalThis.addEventListener("unhandledrejection", onRejection);
  globalThis.addEventListener("error", onError);

  // --- terminal ------------------------------------------------------------------------------
  let escTimer: ReturnType<typeof setTimeout> | undefined;
  const handleKeys = (events: ReturnType<KeyParser["feed"]>) => {
    if (events.length === 0) return;
    state.composerWidth = composerWidth(view(size()).width);
    for (const ev of events) run(applyKey(state, ev));
  };
  const readInput = async () => {
    const buf = new Uint8Array(64 * 1024);
    while (!exiting) {
      let n: number | null;
      try {
        n = await Deno.stdin.read(buf);
      } catch (e) {
        if (!exiting) finish(1, `scv: cannot read the terminal: ${errorText(e)}`);
        return;
      }
      if (n === null) {
        finish(0);
        return;
      }
      if (escTimer !== undefined) clearTimeout(escTimer);
      escTimer = undefined;
      handleKeys(parser.feed(buf.subarray(0, n)));
      if (parser.pending) {
        escTimer = setTimeout(() => {
          escTimer = undefined;
          handleKeys(parser.flush());
        }, ESC_TIMEOUT_MS);
      }
    }
  };

  const reportServerGone = async (error?: string) => {
    const code = link ? await withTimeout(link.exitStatus(), 3000) : "timeout";
    const how = code === "timeout" || code === undefined ? "" : ` (exit status ${code})`;
    const tail = link ? link.recentLog().slice(-5).join("\n") : "";
    finish(
      1,
      `scv: the server closed the connection${how}${error ? `: ${error}` : ""}` +
        (tail ? `\nLast server messages:\n${tail}` : ""),
    );
  };

  // Nothing may print over the screen while the TUI owns it: stray console output (from any
  // module in this process) goes to the log instead.
  const sink = new LogSink(dir);
  const saved = {
    log: console.log,
    info: console.info,
    warn: console.warn,
    error: console.error,
    debug: console.debug,
  };
  const toLog = (...args: unknown[]) => sink.line(args.map((a) => String(a)).join(" "));
  console.log =
    console.info =
    console.warn =
    console.error =
    console.debug =
      toLog;

  let status = 1;
  let message: string | undefined;
  try {
    Deno.stdin.setRaw(true);
    writeAll(PASTE_ON + CURSOR_HIDE);
    terminalReady = true;
    renderNow();
    void readInput();

    link = await openServer({
      config,
      cwd: options.cwd,
      log: sink,
      ...(options.serverCommand !== undefined ? { serverCommand: options.serverCommand } : {}),
    });
    const client = link.client;
    client.on((input) => {
      // Once exiting, the last frame is written or about to be: nothing later can be shown.
      if (exiting) return;
      if (input.kind === "event") {
        run(applyEvent(state, input.event));
      } else if (input.kind === "malformed") {
        addNotice(
          state,
          "warn",
          `The server sent a malformed frame (${input.reason}); it was ignored`,
        );
        schedule();
      } else {
        markClosed(state);
        schedule();
        void reportServerGone(input.error);
      }
    });
    const started = (async () => {
      await handshake(client, options.cwd);
      addNotice(
        state,
        "info",
        `scv · ${state.model} · ${state.cwd}\nType a prompt and press Enter; /help lists commands.`,
      );
      schedule();
    })();
    started.catch(async (e) => {
      // A server that died during the handshake is reported as such, with its last words.
      const code = await withTimeout(link!.exitStatus(), 1000);
      if (code !== "timeout") {
        await reportServerGone();
        return;
      }
      const tail = link!.recentLog().slice(-5).join("\n");
      finish(
        1,
        `scv: could not start a session: ${errorText(e)}` +
          (tail ? `\nLast server messages:\n${tail}` : ""),
      );
    });
    const result = await exited;
    status = result.status;
    message = result.message;
  } catch (e) {
    status = 1;
    message = `scv: ${errorText(e)}`;
  } finally {
    exiting = true;
    if (renderTimer !== undefined) clearTimeout(renderTimer);
    if (escTimer !== undefined) clearTimeout(escTimer);
    for (const timer of replyTimers.values()) clearTimeout(timer);
    // An unfinished turn's text and calls go to scrollback, marked interrupted; then what
    // finished is flushed (so the last answer is in scrollback) and the live region removed.
    interruptTurn(state);
    try {
      if (terminalReady) {
        const sz = size();
        const above = drainOutbox(state).flatMap((item) => renderItem(item, view(sz)));
        writeAll(region.update([], sz, { above }) + region.erase());
      }
    } catch {
      // The terminal may be gone; restoring below is still attempted.
    }
    restoreTerminal();
    Object.assign(console, saved);
    for (const [sig, fn] of signalHandlers) {
      try {
        Deno.removeSignalListener(sig, fn);
      } catch {
        // Never added.
      }
    }
    globalThis.removeEventListener("unhandledrejection", onRejection);
    globalThis.removeEventListener("error", onError);
    // The message may quote the server (its error text, its last log lines): never raw.
    if (message) console.error(sanitize(message));
    await saving;
    if (link) await link.shutdown(SHUTDOWN_MS);
  }
  return status;
}

/** Leaves raw mode, shows the cursor, disables bracketed paste; safe to call twice. */
export function restoreTerminal(): void {
  try {
    writeAll(SYNC_END + AUTOWRAP_ON + PASTE_OFF + CURSOR_SHOW);
  } catch {
    // stdout is gone.
  }
  try {
    Deno.stdin.setRaw(false);
  } catch {
    // Not a terminal any more.
  }
}
