/**
 * Helpers for the session-recording integration tests: real servers sharing one temporary state
 * directory (XDG_STATE_HOME), so a later server resumes what an earlier one recorded.
 *
 * @module
 */
import { MockOpenAI, type MockScript } from "../../support/mock_openai.ts";
import { type Ev, ServerProcess, type StartOptions } from "../../support/server_process.ts";

/** A temporary XDG_STATE_HOME and the sessions directory inside it. */
export interface StateDir {
  home: string;
  sessions: string;
}

/** Runs `fn` with a fresh state directory, removed afterwards. */
export async function withStateDir(fn: (state: StateDir) => Promise<void>): Promise<void> {
  const home = await Deno.makeTempDir({ prefix: "scv-state-" });
  try {
    await fn({ home, sessions: `${home}/scv/sessions` });
  } finally {
    await Deno.remove(home, { recursive: true }).catch(() => {});
  }
}

/** What a recording test runs with: the mock provider, a state directory, a workspace in it. */
export interface RecordingEnv {
  mock: MockOpenAI;
  state: StateDir;
  cwd: string;
}

/**
 * Runs `fn` with a mock provider answering `script`, a fresh state directory and a workspace
 * inside it; the mock is closed and the directory removed afterwards, whatever happened.
 */
export async function withRecording(
  script: MockScript,
  fn: (env: RecordingEnv) => Promise<void>,
): Promise<void> {
  const mock = await MockOpenAI.start(script);
  try {
    await withStateDir(async (state) => {
      await fn({ mock, state, cwd: await workspace(state) });
    });
  } finally {
    await mock.close();
  }
}

/** A workspace directory (canonical path) removed with the state directory's parent test. */
export async function workspace(state: StateDir): Promise<string> {
  const dir = `${state.home}/ws-${crypto.randomUUID().slice(0, 8)}`;
  await Deno.mkdir(dir);
  return await Deno.realPath(dir);
}

/** Starts a server recording into `state`, pointed at the mock provider. */
export async function startServer(
  state: StateDir,
  baseUrl: string,
  options: StartOptions = {},
): Promise<ServerProcess> {
  const server = await ServerProcess.start({
    ...options,
    config: { base_url: baseUrl, ...options.config },
    env: { XDG_STATE_HOME: state.home, ...options.env },
  });
  await server.send({ type: "initialize", request_id: "init", protocol_version: 1 });
  await server.nextOf("initialized");
  return server;
}

/**
 * Runs `fn` against a server recording into `state` (see {@link startServer}); the server is
 * killed afterwards, whatever happened.
 */
export async function withServer(
  state: StateDir,
  baseUrl: string,
  fn: (server: ServerProcess) => Promise<void>,
  options: StartOptions = {},
): Promise<void> {
  const server = await startServer(state, baseUrl, options);
  try {
    await fn(server);
  } finally {
    await server.kill();
  }
}

/**
 * Runs `fn` against a server recording into `state` and gives back what it returns; `fn` stops
 * the server itself (a test may check its exit status), and a failure kills it instead.
 */
export async function withStoppedServer<T>(
  state: StateDir,
  baseUrl: string,
  fn: (server: ServerProcess) => Promise<T>,
  options: StartOptions = {},
): Promise<T> {
  const server = await startServer(state, baseUrl, options);
  try {
    return await fn(server);
  } catch (e) {
    await server.kill();
    throw e;
  }
}

/** Sends `session.start` (optionally resuming) and returns the reply: session.started or error. */
export async function startSession(
  server: ServerProcess,
  cwd: string,
  resume?: string,
): Promise<Ev> {
  const requestId = `start-${crypto.randomUUID().slice(0, 8)}`;
  await server.send({
    type: "session.start",
    request_id: requestId,
    cwd,
    ...(resume !== undefined ? { resume } : {}),
  });
  return await server.next((e) => e.request_id === requestId);
}

/** Every file under `dir`, recursively. */
export async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) out.push(...await filesUnder(path));
    else out.push(path);
  }
  return out;
}

/** The session file of `id`. */
export function sessionFile(state: StateDir, id: string): string {
  return `${state.sessions}/${id}.jsonl`;
}

/** Waits until `check` holds, polling; fails after `timeoutMs` with `what`. */
export async function waitFor(
  check: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 20000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!await check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
