/**
 * `scv acp`: an ACP v1 agent on stdin/stdout for editors, diagnostics on stderr only. The ACP
 * SDK is loaded here and nowhere else.
 *
 * @module
 */
import { type ConfigFlags, loadConfigOrReport } from "../server/config.ts";

/** Runs the ACP agent until stdin ends; resolves with the exit status. */
export async function runAcp(flags: ConfigFlags): Promise<number> {
  // stdout carries JSON-RPC only: anything that would print to it goes to stderr instead.
  for (const name of ["log", "info", "debug"] as const) console[name] = console.error;
  const config = loadConfigOrReport(flags, console.error);
  if (!config) return 2;
  const { serveAcp } = await import("../server/acp/agent.ts");
  // Pull-based, so a client that floods stdin is held back by the pipe, not buffered here.
  // SIGTERM, SIGINT and SIGHUP (the terminal closed) end the connection the way EOF does:
  // turns cancelled, tool processes killed, then exit.
  const reader = Deno.stdin.readable.getReader();
  const input = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { value, done } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
      } catch {
        controller.close(); // a failed or cancelled stdin reads as EOF
      }
    },
    cancel: () => reader.cancel().catch(() => {}),
  }, { highWaterMark: 0 });
  const onSignal = () => void reader.cancel().catch(() => {});
  for (const sig of ["SIGTERM", "SIGINT", "SIGHUP"] as const) {
    try {
      Deno.addSignalListener(sig, onSignal);
    } catch {
      // Signals unsupported here: EOF still works.
    }
  }
  return await serveAcp({ readable: input, writable: Deno.stdout.writable, config });
}
