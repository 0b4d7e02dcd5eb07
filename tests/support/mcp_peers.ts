/**
 * The MCP servers integration tests run scv against: the pinned real ones from `.ci/npm`
 * (server-everything, server-filesystem) and the scripted misbehaving one in tests/fixtures.
 *
 * @module
 */
import { SERVER_FLAGS, type ServerProcess } from "./server_process.ts";
import { aliveNow } from "./probes.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const BIN = `${ROOT}.ci/npm/node_modules/.bin/`;
const SCRIPT = `${ROOT}tests/fixtures/mcp_script_server.ts`;

/** `scv server`'s flags with `--allow-run` for any command, so it may spawn MCP servers. */
export const MCP_SERVER_FLAGS = [
  ...SERVER_FLAGS.filter((f) => !f.startsWith("--allow-run")),
  "--allow-run",
];

/** The path of a pinned peer's binary; a clear failure when `.ci/npm` is not installed. */
export function peerBin(name: string): string {
  const path = BIN + name;
  try {
    Deno.statSync(path);
  } catch {
    throw new Error(
      `${path} is missing: install the pinned test peers with ` +
        "`npm install --prefix .ci/npm --no-audit --no-fund`",
    );
  }
  return path;
}

/** An `mcp_servers` entry for the scripted server in `mode`, logging what it receives. */
export function scriptServer(
  mode: string,
  extra: Record<string, unknown> = {},
  log?: string,
): Record<string, unknown> {
  return {
    command: Deno.execPath(),
    args: ["run", "--no-prompt", "--allow-env", "--allow-write", SCRIPT, mode],
    ...(log ? { env: { MCP_LOG: log } } : {}),
    ...extra,
  };
}

/** A TCP port nobody listens on right now (for a server told its port, and refused URLs). */
export function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

/** Whether a process of that pid exists (and is not a zombie): see {@link aliveNow}. */
export function alive(pid: number): boolean {
  return aliveNow(pid);
}

/**
 * Kills `pid` if it still runs: a stubborn server whose test failed before scv shut down (the
 * cleanup SIGKILLs scv, which cannot stop it then) must not linger and disturb later runs.
 */
export function reap(pid: number | undefined): void {
  if (pid === undefined || !aliveNow(pid)) return;
  try {
    Deno.kill(pid, "SIGKILL");
  } catch {
    // Gone meanwhile.
  }
}

/** Waits until `check` holds, polling, at most `timeoutMs`; false when it never did. */
export async function eventually(check: () => boolean, timeoutMs = 10000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
  return true;
}

/** server-everything in its Streamable HTTP mode on 127.0.0.1 (it reads its port from PORT). */
export async function startEverythingHttp(): Promise<{ url: string; stop(): Promise<void> }> {
  const port = freePort();
  const child = new Deno.Command(peerBin("mcp-server-everything"), {
    args: ["streamableHttp"],
    env: { PORT: String(port) },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
    detached: true,
  }).spawn();
  let seen = "";
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  const deadline = Date.now() + 30000;
  while (!seen.includes("listening on port")) {
    const { value, done } = await Promise.race([
      reader.read(),
      new Promise<{ value: undefined; done: true }>((r) =>
        setTimeout(() => r({ value: undefined, done: true }), Math.max(0, deadline - Date.now()))
      ),
    ]);
    if (done) {
      try {
        Deno.kill(-child.pid, "SIGKILL");
      } catch { /* gone */ }
      throw new Error(`server-everything streamableHttp did not start: ${seen}`);
    }
    seen += value;
  }
  // Keep draining stderr so the server never blocks on it.
  void (async () => {
    try {
      while (!(await reader.read()).done) { /* drain */ }
    } catch { /* closed */ }
  })();
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    async stop() {
      try {
        Deno.kill(-child.pid, "SIGKILL");
      } catch { /* gone */ }
      await child.status;
      await reader.cancel().catch(() => {});
    },
  };
}

/**
 * Ends a test's scv the way a user's does (EOF), so that it stops its MCP servers, and kills it
 * only if it has not exited within 10 s.
 */
export async function stopScv(server: ServerProcess): Promise<void> {
  await server.closeStdin();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const exited = await Promise.race([
    server.child.status.then(() => true),
    new Promise<boolean>((r) => timer = setTimeout(() => r(false), 10000)),
  ]);
  clearTimeout(timer);
  if (!exited) await server.kill();
  else await server.stop();
}
