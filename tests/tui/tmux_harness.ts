/**
 * Runs the real TUI in a tmux pane for end-to-end tests: a private tmux server (its own socket),
 * a plain bash in the pane, the TUI started from that shell against a mock provider, keys sent
 * with `send-keys`, and the screen read with `capture-pane`.
 *
 * @module
 */
import { MockOpenAI, type MockScript } from "../support/mock_openai.ts";

const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));

const MAIN = new URL("../../main.ts", import.meta.url).pathname;

/** Whether tmux is installed; the E2E tests are skipped only when it is not. */
export const HAS_TMUX = (() => {
  try {
    return new Deno.Command("tmux", { args: ["-V"], stdout: "null", stderr: "null" })
      .outputSync().success;
  } catch {
    return false;
  }
})();

/** Options of {@link TuiSession.start}. */
export interface TuiSessionOptions {
  script: MockScript;
  width?: number;
  height?: number;
  /** Extra config keys written to the JSONC file passed with --config. */
  config?: Record<string, unknown>;
  /** Extra environment for the TUI. */
  env?: Record<string, string>;
  /** Extra TUI arguments. */
  args?: string[];
  /** Files to create in the workspace before starting. */
  files?: Record<string, string>;
  /** Run the server as a child: `--server-command "deno run … main.ts server --config …"`. */
  spawnServer?: boolean;
  /** Shell text put before that server command (e.g. `"sleep 99 & "`); implies spawnServer. */
  serverCommandPrefix?: string;
  /** Wait for the TUI's composer before returning (default true). */
  waitForPrompt?: boolean;
  /** How long to wait for the shell and the composer, in milliseconds (default 20000). */
  startTimeoutMs?: number;
  /** Model ids the mock lists at `GET /v1/models`; without, that path is not found. */
  models?: string[];
}

function tmux(socket: string, args: string[]): { ok: boolean; out: string; err: string } {
  const r = new Deno.Command("tmux", {
    args: ["-L", socket, ...args],
    stdout: "piped",
    stderr: "piped",
  })
    .outputSync();
  const dec = new TextDecoder();
  return { ok: r.success, out: dec.decode(r.stdout), err: dec.decode(r.stderr) };
}

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** A TUI running in a private tmux server. */
export class TuiSession {
  readonly socket: string;
  readonly mock: MockOpenAI;
  readonly dir: string;
  readonly workspace: string;
  readonly stateHome: string;

  private constructor(socket: string, mock: MockOpenAI, dir: string) {
    this.socket = socket;
    this.mock = mock;
    this.dir = dir;
    this.workspace = `${dir}/work`;
    this.stateHome = `${dir}/state`;
  }

  /**
   * Starts the mock, the tmux server with a shell, and the TUI in it; waits for its prompt.
   * When anything fails on the way, what was started is closed before the error is rethrown.
   */
  static async start(options: TuiSessionOptions): Promise<TuiSession> {
    const mock = await MockOpenAI.start(
      options.script,
      options.models ? { models: options.models } : {},
    );
    let dir: string;
    try {
      dir = await Deno.makeTempDir({ prefix: "scv-tui-e2e-" });
    } catch (e) {
      await mock.close();
      throw e;
    }
    const s = new TuiSession(`scvtest-${crypto.randomUUID().slice(0, 8)}`, mock, dir);
    try {
      await s.#launch(options);
    } catch (e) {
      await s.close();
      throw e;
    }
    return s;
  }

  /** Writes the workspace and config, starts tmux, runs the TUI from its shell. */
  async #launch(options: TuiSessionOptions): Promise<void> {
    const timeoutMs = options.startTimeoutMs ?? 20000;
    await Deno.mkdir(this.workspace, { recursive: true });
    await Deno.mkdir(`${this.dir}/config`, { recursive: true });
    for (const [name, content] of Object.entries(options.files ?? {})) {
      const path = `${this.workspace}/${name}`;
      await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
      await Deno.writeTextFile(path, content);
    }
    const configPath = `${this.dir}/config.jsonc`;
    await Deno.writeTextFile(
      configPath,
      JSON.stringify({ provider_timeout_ms: 10000, ...(options.config ?? {}) }),
    );
    const env: Record<string, string> = {
      OPENAI_BASE_URL: this.mock.baseUrl,
      OPENAI_API_KEY: "test-key",
      XDG_STATE_HOME: this.stateHome,
      XDG_CONFIG_HOME: `${this.dir}/config`,
      NO_COLOR: "", // colour on unless a test asks otherwise, whatever the outer environment says
      ...(options.env ?? {}),
    };
    const r = tmux(this.socket, [
      "-f",
      "/dev/null",
      "new-session",
      "-d",
      "-s",
      "scv",
      "-x",
      String(options.width ?? 100),
      "-y",
      String(options.height ?? 30),
      "-c",
      this.workspace,
      "env PS1='$ ' bash --norc --noprofile -i",
    ]);
    if (!r.ok) throw new Error(`tmux new-session failed: ${r.err}`);
    tmux(this.socket, ["set-option", "-g", "history-limit", "5000"]);
    const cmd = [
      "env",
      ...Object.entries(env).map(([k, v]) => `${k}=${v}`),
      "deno",
      "run",
      "--no-prompt",
      "--allow-read",
      "--allow-write",
      "--allow-env",
      "--allow-net",
      "--allow-run",
      "--allow-sys",
      MAIN,
      "--config",
      configPath,
      "--cwd",
      this.workspace,
      ...(options.spawnServer || options.serverCommandPrefix !== undefined
        ? [
          "--server-command",
          (options.serverCommandPrefix ?? "") +
          `deno run --no-prompt -A ${shellQuote(MAIN)} server --config ${shellQuote(configPath)}`,
        ]
        : []),
      ...(options.args ?? []),
    ].map(shellQuote).join(" ");
    this.#command = cmd;
    await this.waitFor(/^\$/m, timeoutMs);
    this.type(`${cmd}; echo "tui-exit-status=$?"`);
    this.keys("Enter");
    if (options.waitForPrompt ?? true) await this.waitFor("ask anything", timeoutMs);
  }

  #command = "";

  /**
   * Runs the TUI again from the pane's shell (after it exited) with the same config, state
   * and workspace, plus `args`, on a cleared screen; waits for its composer unless told not to.
   */
  async relaunch(args: string[], waitForPrompt = true, timeoutMs = 20000): Promise<void> {
    this.type(
      `clear; ${this.#command} ${args.map(shellQuote).join(" ")}; echo "tui-exit-status=$?"`,
    );
    this.keys("Enter");
    if (waitForPrompt) await this.waitFor("ask anything", timeoutMs);
  }

  /** Types literal text. */
  type(text: string): void {
    tmux(this.socket, ["send-keys", "-t", "scv", "-l", text]);
  }

  /** Sends tmux key names (`Enter`, `Escape`, `C-c`, `Up`). */
  keys(...names: string[]): void {
    tmux(this.socket, ["send-keys", "-t", "scv", ...names]);
  }

  /** Sends raw bytes, given as hex pairs. */
  bytes(hex: string[]): void {
    tmux(this.socket, ["send-keys", "-t", "scv", "-H", ...hex]);
  }

  /** Pastes text as the terminal would, inside bracketed-paste markers when enabled. */
  paste(text: string): void {
    tmux(this.socket, ["set-buffer", "-b", "scvpaste", text]);
    tmux(this.socket, ["paste-buffer", "-p", "-b", "scvpaste", "-t", "scv"]);
  }

  /** Resizes the window. */
  resize(width: number, height: number): void {
    tmux(this.socket, ["resize-window", "-t", "scv", "-x", String(width), "-y", String(height)]);
  }

  /** The visible pane as text (with `history`, the scrollback too; with `escapes`, styles). */
  capture(history = false, escapes = false): string {
    const args = ["capture-pane", "-p", "-t", "scv"];
    if (history) args.push("-S", "-");
    if (escapes) args.push("-e");
    return tmux(this.socket, args).out;
  }

  /**
   * Waits until the pane shows `what` (a string or a pattern), or fails with the pane. The pane
   * returned is settled: tmux 3.3 ignores synchronized output, so a capture can land while a
   * frame is half drawn (the approval card there, the status line not yet); a match is only
   * returned once two captures 25 ms apart agree, so a test's further asserts see whole frames.
   */
  async waitFor(what: string | RegExp, timeoutMs = 10000, history = false): Promise<string> {
    const shows = (pane: string) =>
      typeof what === "string" ? pane.includes(what) : what.test(pane);
    const deadline = Date.now() + timeoutMs;
    let pane = "";
    while (Date.now() < deadline) {
      pane = this.capture(history);
      if (shows(pane)) return await this.#settled(pane, shows, history);
      await delay(50);
    }
    throw new Error(`Timed out waiting for ${String(what)}; the pane shows:\n${pane}`);
  }

  /** Re-captures until two captures agree and still match (at most ~2 s, for busy spinners). */
  async #settled(
    pane: string,
    shows: (pane: string) => boolean,
    history: boolean,
  ): Promise<string> {
    for (let i = 0; i < 80; i++) {
      await delay(25);
      const again = this.capture(history);
      if (again === pane || !shows(again)) return pane;
      pane = again;
    }
    return pane;
  }

  /** Waits until `what` is no longer shown. */
  async waitForGone(what: string | RegExp, timeoutMs = 10000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    let pane = "";
    while (Date.now() < deadline) {
      pane = this.capture();
      if (!(typeof what === "string" ? pane.includes(what) : what.test(pane))) return pane;
      await delay(50);
    }
    throw new Error(`Timed out waiting for ${String(what)} to go; the pane shows:\n${pane}`);
  }

  /** Kills the tmux server, the mock and the temp dir. */
  async close(): Promise<void> {
    tmux(this.socket, ["kill-server"]);
    await this.mock.close();
    await Deno.remove(this.dir, { recursive: true }).catch(() => {});
  }
}
