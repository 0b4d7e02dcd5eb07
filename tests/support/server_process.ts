/**
 * Spawns the real `main.ts server` for integration tests and talks NDJSON to it. Every event
 * read is checked against the protocol schema; violations are collected in `schemaErrors`.
 *
 * @module
 */
import { ServerEvent } from "../../protocol/schema.ts";
import type { Config } from "../../server/config.ts";

/** The permission flags of `deno task server` (kept in sync with deno.json by a test). */
export const SERVER_FLAGS = [
  "--no-prompt",
  "--v8-flags=--max-semi-space-size=2,--optimize-for-size",
  "--allow-read",
  "--allow-write",
  "--allow-env",
  "--allow-net",
  "--allow-run=bash,bwrap,git",
];

const MAIN = new URL("../../main.ts", import.meta.url).pathname;
const encoder = new TextEncoder();

/** A server event as read (loosely typed for assertions). */
// deno-lint-ignore no-explicit-any
export type Ev = Record<string, any> & { type: string };

/** Options of {@link ServerProcess.start}. */
export interface StartOptions {
  /** Written to a temp JSONC file passed with --config. */
  config?: Partial<Config>;
  env?: Record<string, string>;
  /** Replaces {@link SERVER_FLAGS}. */
  denoFlags?: string[];
  /** Extra arguments after `server`. */
  args?: string[];
  /** Runs this script instead of `main.ts server`; the config file is passed in SCV_CONFIG. */
  script?: string;
}

/** A running `scv server` child process. */
export class ServerProcess {
  readonly child: Deno.ChildProcess;
  readonly events: Ev[] = [];
  readonly schemaErrors: string[] = [];
  readonly rawLines: string[] = [];
  #cursor = 0;
  #waiters: Array<() => void> = [];
  #stdin: WritableStreamDefaultWriter<Uint8Array>;
  #stderr = "";
  #reading: Promise<void>;
  #stderrReading: Promise<void>;
  #ended = false;
  readonly tempDir: string;

  private constructor(child: Deno.ChildProcess, tempDir: string) {
    this.child = child;
    this.tempDir = tempDir;
    this.#stdin = child.stdin.getWriter();
    this.#reading = this.#read();
    this.#stderrReading = (async () => {
      for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) {
        if (this.#stderr.length < 1_000_000) this.#stderr += chunk;
      }
    })();
  }

  /** Starts a server with a config file and environment. */
  static async start(options: StartOptions = {}): Promise<ServerProcess> {
    const tempDir = await Deno.makeTempDir({ prefix: "scv-test-" });
    const configPath = `${tempDir}/config.jsonc`;
    await Deno.writeTextFile(configPath, JSON.stringify(options.config ?? {}));
    const env: Record<string, string> = {
      XDG_CONFIG_HOME: `${tempDir}/xdg-config`,
      XDG_STATE_HOME: `${tempDir}/xdg-state`,
      NO_COLOR: "1",
      ...(options.script ? { SCV_CONFIG: configPath } : {}),
      ...options.env,
    };
    const entry = options.script
      ? [options.script, ...(options.args ?? [])]
      : [MAIN, "server", "--config", configPath, ...(options.args ?? [])];
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", ...(options.denoFlags ?? SERVER_FLAGS), ...entry],
      env,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    return new ServerProcess(child, tempDir);
  }

  async #read(): Promise<void> {
    let buf = "";
    try {
      for await (const chunk of this.child.stdout.pipeThrough(new TextDecoderStream())) {
        buf += chunk;
        let nl;
        while ((nl = buf.indexOf("\n")) !== -1) {
          const line = buf.slice(0, nl);
          buf = buf.slice(nl + 1);
          this.rawLines.push(line);
          let ev: Ev;
          try {
            ev = JSON.parse(line);
          } catch {
            this.schemaErrors.push(`not JSON: ${line.slice(0, 200)}`);
            continue;
          }
          const r = ServerEvent.safeParse(ev);
          if (!r.success) {
            this.schemaErrors.push(`${ev.type}: ${r.error.message.slice(0, 300)}`);
          }
          this.events.push(ev);
          for (const w of this.#waiters.splice(0)) w();
        }
      }
    } finally {
      this.#ended = true;
      for (const w of this.#waiters.splice(0)) w();
    }
  }

  /** Forgets the events read so far (long benchmarks keep memory flat). */
  reset(): void {
    this.events.length = 0;
    this.rawLines.length = 0;
    this.#cursor = 0;
  }

  /** What the server wrote on stderr so far. */
  get stderr(): string {
    return this.#stderr;
  }

  /** Sends a message object, or a raw string (a newline is appended). */
  async send(message: Record<string, unknown> | string): Promise<void> {
    const line = typeof message === "string" ? message : JSON.stringify(message);
    await this.#stdin.write(encoder.encode(line + "\n"));
  }

  /** Sends raw bytes, with no newline added. */
  async sendBytes(bytes: Uint8Array): Promise<void> {
    await this.#stdin.write(bytes);
  }

  /**
   * The next unread event matching `predicate` (events before it are skipped but kept in
   * `events`); rejects after `timeoutMs` with what was seen.
   */
  async next(predicate: (e: Ev) => boolean = () => true, timeoutMs = 15000): Promise<Ev> {
    const deadline = Date.now() + timeoutMs;
    while (true) {
      while (this.#cursor < this.events.length) {
        const ev = this.events[this.#cursor++]!;
        if (predicate(ev)) return ev;
      }
      if (this.#ended) {
        throw new Error(`server output ended; events: ${this.#summary()}\nstderr: ${this.#stderr}`);
      }
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new Error(`timed out; events: ${this.#summary()}\nstderr: ${this.#stderr}`);
      }
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.#waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  /** The next unread event of a type. */
  nextOf(type: string, timeoutMs?: number): Promise<Ev> {
    return this.next((e) => e.type === type, timeoutMs);
  }

  #summary(): string {
    return this.events.map((e) => e.type + (e.code ? `(${e.code})` : "")).join(", ");
  }

  /** Events of one turn, in order. */
  turnEvents(turnId: string): Ev[] {
    return this.events.filter((e) => e.turn_id === turnId);
  }

  /** The first event of a type in a turn; throws when there is none. */
  eventOf(turnId: string, type: string): Ev {
    const ev = this.turnEvents(turnId).find((e) => e.type === type);
    if (!ev) throw new Error(`no ${type} in turn ${turnId}: ${this.#summary()}`);
    return ev;
  }

  /**
   * Initializes (with `capabilities`, when given) and opens a session on `cwd` (a temp dir by
   * default); returns its id.
   */
  async open(
    cwd?: string,
    capabilities?: { reasoning?: boolean; notices?: boolean },
  ): Promise<{ sessionId: string; cwd: string }> {
    await this.send({
      type: "initialize",
      request_id: "init",
      protocol_version: 1,
      ...(capabilities ? { capabilities } : {}),
    });
    await this.nextOf("initialized");
    const dir = cwd ?? await Deno.makeTempDir({ dir: this.tempDir, prefix: "ws-" });
    await this.send({ type: "session.start", request_id: "start", cwd: dir });
    const ev = await this.nextOf("session.started");
    return { sessionId: ev.session_id, cwd: ev.cwd };
  }

  /** Starts a turn and returns its `turn.started` event. */
  async startTurn(sessionId: string, prompt: string, requestId = "t" + this.events.length) {
    await this.send({ type: "turn.start", request_id: requestId, session_id: sessionId, prompt });
    return await this.next((e) => e.type === "turn.started" && e.request_id === requestId);
  }

  /** Starts a turn and waits for its end: `t` is its `turn.started`, `done` its terminal event. */
  async runTurn(
    sessionId: string,
    prompt: string,
    requestId?: string,
  ): Promise<{ t: Ev; done: Ev }> {
    const t = await this.startTurn(sessionId, prompt, requestId);
    return { t, done: await this.terminal(t.turn_id) };
  }

  /** Waits for the terminal event of a turn. */
  terminal(turnId: string, timeoutMs?: number): Promise<Ev> {
    return this.next(
      (e) =>
        e.turn_id === turnId &&
        (e.type === "turn.completed" || e.type === "turn.cancelled" || e.type === "turn.failed"),
      timeoutMs,
    );
  }

  /**
   * Sends `turn.cancel` and waits for the turn's terminal event; `ms` is how long that took,
   * for the protocol's "cancellation takes effect within 3 seconds".
   */
  async cancelTurn(
    sessionId: string,
    turnId: string,
    requestId = "cancel",
  ): Promise<{ done: Ev; ms: number }> {
    const t0 = Date.now();
    await this.send({
      type: "turn.cancel",
      request_id: requestId,
      session_id: sessionId,
      turn_id: turnId,
    });
    const done = await this.terminal(turnId);
    return { done, ms: Date.now() - t0 };
  }

  /** Closes stdin (EOF). */
  async closeStdin(): Promise<void> {
    await this.#stdin.close().catch(() => {});
  }

  /** Closes stdin and waits for the exit status. */
  async stop(): Promise<number> {
    await this.closeStdin();
    const status = await this.child.status;
    await this.#reading.catch(() => {});
    await this.#stderrReading.catch(() => {});
    await Deno.remove(this.tempDir, { recursive: true }).catch(() => {});
    return status.code;
  }

  /** Waits for the exit status without closing stdin. */
  async exited(): Promise<number> {
    const status = await this.child.status;
    await this.#reading.catch(() => {});
    await this.#stderrReading.catch(() => {});
    return status.code;
  }

  /** Kills the process (cleanup after a failed test). */
  async kill(): Promise<void> {
    try {
      this.child.kill("SIGKILL");
    } catch {
      // Already gone.
    }
    await this.#stdin.close().catch(() => {});
    await this.child.status;
    await this.#reading.catch(() => {});
    await this.#stderrReading.catch(() => {});
    await Deno.remove(this.tempDir, { recursive: true }).catch(() => {});
  }
}

/** Runs `fn` with a mock provider and a server pointed at it, always cleaning both up. */
export async function withServer(
  mock: { baseUrl: string; close(): Promise<void> },
  options: StartOptions,
  fn: (server: ServerProcess) => Promise<void>,
): Promise<void> {
  const server = await ServerProcess.start({
    ...options,
    config: { base_url: mock.baseUrl, ...options.config },
  });
  try {
    await fn(server);
  } finally {
    await server.kill();
    await mock.close();
  }
}
