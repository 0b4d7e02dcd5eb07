/**
 * `scv server`: the Peon protocol on stdin/stdout, diagnostics on stderr only.
 *
 * @module
 */
import { type ConfigFlags, loadConfigOrReport } from "../server/config.ts";
import { serve } from "../server/serve.ts";

/** Runs the headless server until stdin ends; resolves with the exit status. */
export async function runServer(flags: ConfigFlags): Promise<number> {
  const config = loadConfigOrReport(flags, console.error);
  if (!config) return 2;
  // Pull-based, so a client that floods stdin is held back by the pipe, not buffered here.
  // SIGTERM, SIGINT and SIGHUP (the terminal closed) end the connection the way EOF does:
  // turns cancelled, every tool process killed, output flushed.
  const reader = Deno.stdin.readable.getReader();
  const stop = new AbortController();
  stop.signal.addEventListener("abort", () => void reader.cancel().catch(() => {}), { once: true });
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
  const onSignal = () => stop.abort();
  for (const sig of ["SIGTERM", "SIGINT", "SIGHUP"] as const) {
    try {
      Deno.addSignalListener(sig, onSignal);
    } catch {
      // Signals unsupported here: EOF still works.
    }
  }
  return await serve({ readable: input, writable: Deno.stdout.writable, config });
}
