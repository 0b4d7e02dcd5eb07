/**
 * The shell's effect runner: carries out what the reducers ask (send a message, exit, clear the
 * screen, flush, wait for a reply, save the history) and asks for a frame after each batch. A
 * prompt whose mentioned files the server must read first is sent once it has answered, and
 * every message after it waits for it, so the server sees them in the order they were asked.
 *
 * @module
 */
import type { OutgoingMessage } from "../../protocol/mod.ts";
import { saveHistoryFile } from "../history.ts";
import { applyClipboardImage, type ComposerImage } from "../state/images.ts";
import {
  applyModelList,
  applyNoReply,
  applySendFailure,
  applyWorkspaceIndex,
  attachMentions,
  type AwaitedRequest,
  awaitingReply,
  type ClientState,
  type Effect,
  MAX_MENTION_BYTES,
  type MentionedFile,
  type ModelList,
  type WorkspaceIndex,
} from "../state/mod.ts";
import { errorText } from "../text.ts";
import type { ExitLatch } from "./exit.ts";
import type { RenderLoop } from "./render_loop.ts";

/** Options of {@link EffectRunner}. */
export interface EffectRunnerOptions {
  state: ClientState;
  render: RenderLoop;
  exit: ExitLatch;
  /** Where the prompt history is saved; undefined: it is not. */
  historyPath: string | undefined;
  /** Sends a message to the server; undefined while no server is connected. */
  send: () => ((message: OutgoingMessage) => Promise<unknown>) | undefined;
  /** Lists the provider's models (never throws). */
  listModels: () => Promise<ModelList>;
  /** Indexes the workspace's files for `@path` completion. */
  indexFiles: () => Promise<WorkspaceIndex>;
  /** Reads a mentioned file through the server (`files.read`); never throws. */
  readFile: (path: string, maxBytes: number) => Promise<MentionedFile>;
  /** Writes a notification to the terminal (OSC 9 or BEL); omitted: none is written. */
  notify?: (message: string) => void;
  /** Reads the clipboard's image for Ctrl+V; omitted: Ctrl+V says it cannot. */
  clipboardImage?: () => Promise<ComposerImage | { error: string }>;
}

/** Runs effects; its async disposal drops the reply timers and waits for the history save. */
export class EffectRunner implements AsyncDisposable {
  #o: EffectRunnerOptions;
  // One timer per request awaiting confirmation, dropped as soon as it is confirmed: no timer
  // runs while the TUI is idle.
  #replyTimers = new Map<AwaitedRequest, ReturnType<typeof setTimeout>>();
  #saving = Promise.resolve();
  #indexing = false;
  // The sends still waiting for a prompt's mentioned files, last first; undefined: none.
  #sending: Promise<void> | undefined;

  /** A runner over `options`. */
  constructor(options: EffectRunnerOptions) {
    this.#o = options;
  }

  /** Carries out `effects` in order, then asks for a frame. */
  run = (effects: readonly Effect[]): void => {
    for (const fx of effects) this.#one(fx);
    this.#dropConfirmedTimers();
    this.#o.render.schedule();
  };

  #one(fx: Effect): void {
    const { state, exit, render } = this.#o;
    switch (fx.kind) {
      case "send":
        if (this.#sending) this.#after(() => this.#send(fx.message));
        else this.#send(fx.message);
        break;
      case "send-attached":
        this.#after(async () => {
          const files = new Map<string, MentionedFile>();
          await Promise.all(fx.paths.map(async (path) => {
            files.set(path, await this.#o.readFile(path, MAX_MENTION_BYTES));
          }));
          if (exit.exiting) return;
          const prompt = attachMentions(state, fx.typed, fx.maxBytes, fx.images, files);
          this.#send({ ...fx.message, prompt });
          this.run([]);
        });
        break;
      case "exit":
        exit.finish(fx.status, fx.message);
        break;
      case "clear-screen":
        render.requestClear();
        break;
      case "notify":
        this.#o.notify?.(fx.message);
        break;
      case "flush":
        // Many items finished since the last frame: write them now instead of holding them.
        render.flush();
        break;
      case "expect-reply": {
        const request = fx.request;
        clearTimeout(this.#replyTimers.get(request));
        this.#replyTimers.set(
          request,
          setTimeout(() => {
            this.#replyTimers.delete(request);
            if (!exit.exiting) this.run(applyNoReply(state, request));
          }, fx.ms),
        );
        break;
      }
      case "list-models":
        void this.#o.listModels().then((list) => {
          if (exit.exiting) return;
          applyModelList(state, list);
          this.run([]);
        });
        break;
      case "index-files":
        if (this.#indexing) break;
        this.#indexing = true;
        void this.#o.indexFiles().then(
          (index) => {
            if (exit.exiting) return;
            applyWorkspaceIndex(state, index);
            this.run([]);
          },
          (e) => {
            this.#indexing = false;
            if (exit.exiting) return;
            // The next Tab tries again.
            state.version++;
            state.completionPending = false;
            state.hint = `Cannot index the workspace's files: ${errorText(e)}`;
            this.run([]);
          },
        );
        break;
      case "paste-image": {
        const read = this.#o.clipboardImage;
        const got = read
          ? read().catch((e) => ({ error: `Cannot read the clipboard: ${errorText(e)}` }))
          : Promise.resolve({ error: "Ctrl+V cannot read the clipboard here" });
        void got.then((image) => {
          if (exit.exiting) return;
          applyClipboardImage(state, image);
          this.run([]);
        });
        break;
      }
      case "save-history": {
        const path = this.#o.historyPath;
        if (path) {
          this.#saving = this.#saving.then(() => saveHistoryFile(path, state.history)).catch(
            () => {},
          );
        }
        break;
      }
    }
  }

  #send(message: OutgoingMessage): void {
    const send = this.#o.send();
    if (!send) return;
    send(message).catch((e) => {
      applySendFailure(this.#o.state, message, errorText(e));
      this.run([]); // a cancel that could not be sent is no longer awaited: drop its timer
    });
  }

  /** Runs `step` after the sends already waiting. */
  #after(step: () => void | Promise<void>): void {
    const next = (this.#sending ?? Promise.resolve()).then(step).catch(() => {});
    this.#sending = next;
    void next.then(() => {
      if (this.#sending === next) this.#sending = undefined;
    });
  }

  #dropConfirmedTimers(): void {
    for (const [request, timer] of this.#replyTimers) {
      if (awaitingReply(this.#o.state, request)) continue;
      clearTimeout(timer);
      this.#replyTimers.delete(request);
    }
  }

  /** Drops every reply timer (at the start of cleanup). */
  dropTimers(): void {
    for (const timer of this.#replyTimers.values()) clearTimeout(timer);
    this.#replyTimers.clear();
  }

  /** Waits for the history saves queued so far. */
  async [Symbol.asyncDispose](): Promise<void> {
    this.dropTimers();
    await this.#saving;
  }
}
