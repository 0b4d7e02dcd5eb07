/**
 * What the sandbox integration tests share: a real `main.ts server` (under `deno task
 * server`'s flags) whose scripted model makes one `bash` call, a fake provider key to hunt
 * for, and workspaces outside `/tmp` (inside the sandbox `/tmp` is private, so a write there
 * would prove nothing about the host).
 *
 * @module
 */
import { MockOpenAI, type MockReply, text, toolCalls } from "../../support/mock_openai.ts";
import { type Ev, ServerProcess } from "../../support/server_process.ts";
import type { Config } from "../../../server/config.ts";
import { bwrapBackend } from "../../../server/sandbox/bwrap.ts";

/** The fake provider key the tests look for in every output. */
export const FAKE_KEY = "sk-test-7a1e0c5b9d2f4e8a-DO-NOT-LEAK";

/** A fresh directory outside `/tmp` (on the root file system), removed by `cleanup`. */
export async function hostDir(prefix: string): Promise<string> {
  return await Deno.realPath(await Deno.makeTempDir({ dir: "/var/tmp", prefix }));
}

/** What one bash call through the real server produced. */
export interface BashRun {
  completed: Ev;
  approval: Ev | undefined;
  started: Ev;
  server: ServerProcess;
}

/** Options of {@link withBashServer}. */
export interface BashServerOptions {
  config?: Partial<Config>;
  env?: Record<string, string>;
  /** The workspace (default: a fresh one under /var/tmp). */
  workspace?: string;
  /** Replaces `deno task server`'s permission flags. */
  denoFlags?: string[];
}

/**
 * Starts a server whose model answers the first request with a `bash` call of `command` and
 * the next with text, opens a session on the workspace, runs one turn, and hands the call's
 * events to `fn`; everything is cleaned up afterwards. `approval_policy` is `auto` unless
 * given, so a sandboxed call runs without asking.
 */
export async function withBashServer(
  command: string | ((workspace: string) => string),
  options: BashServerOptions,
  fn: (run: BashRun & { workspace: string; sessionStarted: Ev }) => void | Promise<void>,
  during?: (server: ServerProcess, workspace: string) => Promise<void>,
): Promise<void> {
  const workspace = options.workspace ?? await hostDir("scv-sbx-ws-");
  const cmd = typeof command === "string" ? command : command(workspace);
  const mock = await MockOpenAI.start((_req, i): MockReply =>
    i === 0
      ? toolCalls([{ id: "call_1", name: "bash", arguments: { command: cmd } }])
      : text("done")
  );
  const server = await ServerProcess.start({
    config: { base_url: mock.baseUrl, approval_policy: "auto", ...options.config },
    env: { OPENAI_API_KEY: FAKE_KEY, ...options.env },
    ...(options.denoFlags ? { denoFlags: options.denoFlags } : {}),
  });
  try {
    await server.send({ type: "initialize", request_id: "init", protocol_version: 1 });
    await server.nextOf("initialized");
    await server.send({ type: "session.start", request_id: "start", cwd: workspace });
    const sessionStarted = await server.nextOf("session.started");
    const t = await server.startTurn(sessionStarted.session_id, "run it");
    const started = await server.next(
      (e) => e.type === "tool.started" || e.type === "approval.requested",
      60_000,
    );
    let approval: Ev | undefined;
    if (started.type === "approval.requested") {
      approval = started;
      await server.send({
        type: "approval.resolve",
        request_id: "approve",
        session_id: sessionStarted.session_id,
        approval_id: started.approval_id,
        approved: true,
      });
    }
    const toolStarted = started.type === "tool.started"
      ? started
      : await server.nextOf("tool.started");
    if (during) await during(server, workspace);
    const completed = await server.next((e) => e.type === "tool.completed", 60_000);
    await server.terminal(t.turn_id, 60_000);
    if (server.schemaErrors.length > 0) throw new Error(server.schemaErrors.join("\n"));
    await fn({ completed, approval, started: toolStarted, server, workspace, sessionStarted });
  } finally {
    await server.kill();
    await mock.close();
    if (!options.workspace) await Deno.remove(workspace, { recursive: true }).catch(() => {});
  }
}

/** Waits until `check` holds, polling; false when it did not within `ms`. */
export async function eventually(check: () => Promise<boolean>, ms = 20_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return false;
}

/** Whether bubblewrap works on this machine (probed once). */
export const SANDBOX_WORKS = (await bwrapBackend.probe()).ok;
if (!SANDBOX_WORKS) {
  console.error("sandbox tests: bubblewrap cannot start here; the tests that need it are ignored");
}

/** A test that needs the sandbox: ignored (and said so) where bubblewrap cannot start. */
export function sandboxTest(name: string, fn: () => Promise<void> | void): void {
  Deno.test({ name, ignore: !SANDBOX_WORKS, fn });
}
