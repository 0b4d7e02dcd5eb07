/**
 * A bare NDJSON connection to a spawned `scv server`: raw text in, raw lines out, no schema
 * checks and no buffering of events. For tests that control exactly when stdout is read (a
 * client that stops reading, a broken pipe) and for benchmarks.
 *
 * @module
 */
import { SERVER_FLAGS } from "./server_process.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;
const encoder = new TextEncoder();

/** A spawned server read as text. */
export class RawServer {
  readonly child: Deno.ChildProcess;
  readonly dir: string;
  #writer: WritableStreamDefaultWriter<Uint8Array>;
  #reader: ReadableStreamDefaultReader<string>;
  /** Text read and not yet consumed by {@link until}. */
  buf = "";
  /** Complete lines consumed so far. */
  lines = 0;

  private constructor(child: Deno.ChildProcess, dir: string) {
    this.child = child;
    this.dir = dir;
    this.#writer = child.stdin.getWriter();
    this.#reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  }

  /** Spawns `main.ts server` with `config` in a fresh temp dir (also the session's cwd). */
  static async start(config: Record<string, unknown>): Promise<RawServer> {
    const dir = await Deno.makeTempDir({ prefix: "scv-raw-" });
    await Deno.writeTextFile(`${dir}/config.json`, JSON.stringify(config));
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", ...SERVER_FLAGS, MAIN, "server", "--config", `${dir}/config.json`],
      // Sessions are recorded in the temp dir, never in the user's state directory.
      env: { XDG_STATE_HOME: `${dir}/.state` },
      stdin: "piped",
      stdout: "piped",
      stderr: "null",
    }).spawn();
    return new RawServer(child, dir);
  }

  /** Writes one line (a newline is added). */
  send(line: string): Promise<void> {
    return this.#writer.write(encoder.encode(line + "\n"));
  }

  /** Reads until a line containing `needle` is consumed; returns that line. */
  async until(needle: string | RegExp): Promise<string> {
    const match = (l: string) => typeof needle === "string" ? l.includes(needle) : needle.test(l);
    while (true) {
      let nl;
      while ((nl = this.buf.indexOf("\n")) !== -1) {
        const line = this.buf.slice(0, nl);
        this.buf = this.buf.slice(nl + 1);
        this.lines++;
        if (match(line)) return line;
      }
      const { value, done } = await this.#reader.read();
      if (done) throw new Error(`server output ended before ${needle}`);
      this.buf += value;
    }
  }

  /** Initializes, opens a session on the temp dir and returns its id. */
  async open(): Promise<string> {
    await this.send('{"type":"initialize","request_id":"i","protocol_version":1}');
    await this.until('"initialized"');
    await this.send(JSON.stringify({ type: "session.start", request_id: "s", cwd: this.dir }));
    return JSON.parse(await this.until('"session.started"')).session_id;
  }

  /** Sends `turn.start`. */
  startTurn(sessionId: string, prompt: string, requestId: string): Promise<void> {
    return this.send(
      JSON.stringify({ type: "turn.start", request_id: requestId, session_id: sessionId, prompt }),
    );
  }

  /** Stops reading stdout for good (the server's next writes hit a closed pipe). */
  async closeStdout(): Promise<void> {
    await this.#reader.cancel().catch(() => {});
  }

  /** Kills the process if still running and removes the temp dir. */
  async kill(): Promise<void> {
    try {
      this.child.kill("SIGKILL");
    } catch {
      // Already exited.
    }
    await this.child.status;
    await this.#reader.cancel().catch(() => {});
    await Deno.remove(this.dir, { recursive: true }).catch(() => {});
  }
}
