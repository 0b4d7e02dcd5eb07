/**
 * The MCP stdio transport on `Deno.Command`: the server runs in its own process group with the
 * environment it is given and nothing else, its stdout is read as newline-delimited JSON-RPC
 * with a bound on one message, lines that are not JSON-RPC are skipped and counted, its stderr
 * keeps only the last 4 KiB, and closing kills the whole group. (The SDK's own stdio transport
 * uses node's child_process, which inherits scv's environment and has no bound on a line.)
 *
 * @module
 */
// @ts-types="@modelcontextprotocol/sdk/shared/transport"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { signalGroup } from "../process_group.ts";
import { TailBuffer } from "./tail_buffer.ts";
import { within } from "../timer.ts";

/** The largest JSON-RPC message a stdio server may send (a bigger one stops the server). */
export const MAX_MESSAGE_BYTES = 8 * 1024 * 1024;
/** How much of a server's stderr is kept, for messages. */
export const STDERR_TAIL_BYTES = 4096;
/** How long a server has to exit after SIGTERM before SIGKILL. */
export const KILL_GRACE_MS = 1000;

/** What the stdio transport starts. */
export interface StdioOptions {
  command: string;
  args: readonly string[];
  env: Record<string, string>;
  cwd: string;
  /** Defaults to {@link MAX_MESSAGE_BYTES}. */
  maxMessageBytes?: number;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Every pid of a live stdio server, so an abrupt exit (`Deno.exit`) can still kill them. */
const live = new Map<number, Deno.ChildProcess>();
let unloadHooked = false;
function hookUnload(): void {
  if (unloadHooked) return;
  unloadHooked = true;
  // Sync on purpose: unload runs on Deno.exit, where nothing async completes.
  globalThis.addEventListener("unload", () => {
    for (const [pid, child] of live) {
      try {
        Deno.kill(-pid, "SIGKILL");
      } catch {
        try {
          child.kill("SIGKILL");
        } catch {
          // Already gone.
        }
      }
    }
  });
}

/** An MCP transport over a child process's stdin and stdout. */
export class StdioTransport implements Transport {
  /** Set by the SDK client. */
  onclose?: (() => void) | undefined;
  /** Set by the SDK client. */
  onerror?: ((error: Error) => void) | undefined;
  /** Set by the SDK client. */
  onmessage?: (<T extends JSONRPCMessage>(message: T) => void) | undefined;
  /** Why the transport closed when the server did not simply exit, for messages. */
  closeReason: string | undefined;
  /** Lines on stdout that were not JSON-RPC messages. */
  junkLines = 0;
  /** The first such line, cut short, for messages. */
  firstJunk: string | undefined;
  /** The last {@link STDERR_TAIL_BYTES} of the server's stderr. */
  readonly stderr: TailBuffer = new TailBuffer(STDERR_TAIL_BYTES);
  /** Resolves with the exit status once the process is gone. */
  exited: Promise<Deno.CommandStatus> | undefined;
  /** Set when a message could not be written (the process was gone): it never got it. */
  writeFailed = false;
  /** The exit status once the process is gone. */
  exitStatus: Deno.CommandStatus | undefined;
  /** The process's pid once started. */
  pid: number | undefined;

  #o: StdioOptions;
  #child: Deno.ChildProcess | undefined;
  #stdin: WritableStreamDefaultWriter<Uint8Array> | undefined;
  #closed = false;
  #reading: Promise<void> | undefined;

  /** Prepares the transport; `start` spawns the server. */
  constructor(options: StdioOptions) {
    this.#o = options;
  }

  /** Spawns the server; rejects with a clear message when it cannot be started. */
  start(): Promise<void> {
    if (this.#child) throw new TypeError("StdioTransport already started");
    let child: Deno.ChildProcess;
    try {
      child = new Deno.Command(this.#o.command, {
        args: [...this.#o.args],
        env: this.#o.env,
        clearEnv: true,
        cwd: this.#o.cwd,
        stdin: "piped",
        stdout: "piped",
        stderr: "piped",
        // Its own process group: closing kills everything the server started.
        detached: true,
      }).spawn();
    } catch (e) {
      const cmd = JSON.stringify(this.#o.command);
      if (e instanceof Deno.errors.NotFound) {
        // Deno says NotFound for a missing working directory too.
        let cwdMissing = false;
        try {
          cwdMissing = !Deno.statSync(this.#o.cwd).isDirectory;
        } catch (s) {
          cwdMissing = s instanceof Deno.errors.NotFound;
        }
        return Promise.reject(
          new Error(
            cwdMissing
              ? `cannot start ${cmd}: its working directory ${
                JSON.stringify(this.#o.cwd)
              } is not a directory`
              : `cannot start ${cmd}: command not found`,
          ),
        );
      }
      if (e instanceof Deno.errors.NotCapable || e instanceof Deno.errors.PermissionDenied) {
        return Promise.reject(
          new Error(`cannot start ${cmd}: scv may not run it (grant it with --allow-run)`),
        );
      }
      return Promise.reject(
        new Error(`cannot start ${cmd}: ${e instanceof Error ? e.message : String(e)}`),
      );
    }
    this.#child = child;
    this.pid = child.pid;
    hookUnload();
    live.set(child.pid, child);
    this.#stdin = child.stdin.getWriter();
    this.exited = child.status.then((status) => {
      this.exitStatus = status;
      return status;
    }).finally(() => live.delete(child.pid));
    void (async () => {
      try {
        for await (const chunk of child.stderr) this.stderr.push(chunk);
      } catch {
        // The pipe broke with the process.
      }
    })();
    this.#reading = this.#read(child.stdout);
    // A grandchild may hold stdout open after the server exited: its exit is what counts, once
    // what it wrote before exiting had a moment to be read.
    void this.exited.then(async () => {
      if (this.#reading) await within(this.#reading, 500);
      this.#finish();
    }, () => this.#finish());
    return Promise.resolve();
  }

  /** Reads stdout line by line, each line bounded by `maxMessageBytes`. */
  async #read(stdout: ReadableStream<Uint8Array>): Promise<void> {
    const max = this.#o.maxMessageBytes ?? MAX_MESSAGE_BYTES;
    let parts: Uint8Array[] = [];
    let size = 0;
    try {
      for await (const chunk of stdout) {
        let start = 0;
        while (start < chunk.length) {
          const nl = chunk.indexOf(10, start);
          const end = nl === -1 ? chunk.length : nl;
          size += end - start;
          if (size > max) {
            this.closeReason = `it sent a message of more than ${max} bytes`;
            this.onerror?.(new RangeError(`MCP message over ${max} bytes`));
            await this.close();
            return;
          }
          parts.push(chunk.subarray(start, end));
          if (nl === -1) break;
          this.#line(concat(parts, size));
          parts = [];
          size = 0;
          start = nl + 1;
        }
      }
    } catch {
      // The pipe broke with the process.
    }
  }

  #line(bytes: Uint8Array): void {
    const text = decoder.decode(bytes).trim();
    if (text === "") return;
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      message = undefined;
    }
    if (
      typeof message !== "object" || message === null || Array.isArray(message) ||
      (message as Record<string, unknown>).jsonrpc !== "2.0"
    ) {
      this.junkLines++;
      this.firstJunk ??= text.length > 120 ? text.slice(0, 120) + "…" : text;
      return;
    }
    try {
      this.onmessage?.(message as JSONRPCMessage);
    } catch (e) {
      this.onerror?.(e instanceof Error ? e : new Error(String(e)));
    }
  }

  /** Writes one message as a line on the server's stdin. */
  async send(message: JSONRPCMessage): Promise<void> {
    if (!this.#stdin || this.#closed) {
      this.writeFailed = true;
      throw new Error("the MCP server is not running");
    }
    try {
      await this.#stdin.write(encoder.encode(JSON.stringify(message) + "\n"));
    } catch (e) {
      this.writeFailed = true;
      throw e;
    }
  }

  /** Kills the server's process group (SIGTERM, then SIGKILL) and waits for it to exit. */
  async close(): Promise<void> {
    if (!this.#child || this.#closed) {
      this.#finish();
      return;
    }
    this.#closed = true;
    const child = this.#child;
    await this.#stdin?.close().catch(() => {});
    await signalGroup(child.pid, "SIGTERM");
    const gone = await within(this.exited!.catch(() => {}), KILL_GRACE_MS);
    // Whatever the leader did, the rest of the group goes too.
    await signalGroup(child.pid, "SIGKILL");
    if (!gone) await this.exited!.catch(() => {});
    this.#finish();
  }

  #finished = false;
  #finish(): void {
    if (this.#finished) return;
    this.#finished = true;
    this.#closed = true;
    if (this.#child) {
      // The group may hold children after the leader exited on its own.
      void signalGroup(this.#child.pid, "SIGKILL");
    }
    this.onclose?.();
  }
}

function concat(parts: Uint8Array[], size: number): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
