/**
 * `scv server`: the Peon protocol on stdin/stdout, diagnostics on stderr only.
 *
 * @module
 */
import { ConfigError, type ConfigFlags, loadConfig } from "../server/config.ts";
import { serve } from "../server/serve.ts";

/** Runs the headless server until stdin ends; resolves with the exit status. */
export async function runServer(flags: ConfigFlags): Promise<number> {
  let config;
  try {
    config = loadConfig(flags);
  } catch (e) {
    if (e instanceof ConfigError) {
      console.error(`scv: ${e.message}`);
      return 2;
    }
    throw e;
  }
  // SIGTERM and SIGINT end the connection the way EOF does: turns cancelled, output flushed.
  const stdin = Deno.stdin.readable;
  const stop = new AbortController();
  const input = new ReadableStream<Uint8Array>({
    async start(controller) {
      const reader = stdin.getReader();
      const onAbort = () => reader.cancel().catch(() => {});
      stop.signal.addEventListener("abort", onAbort, { once: true });
      try {
        while (true) {
          const { value, done } = await reader.read();
          if (done) break;
          controller.enqueue(value);
        }
      } catch {
        // Treated as EOF.
      }
      try {
        controller.close();
      } catch {
        // Already cancelled by the server.
      }
    },
  });
  const onSignal = () => stop.abort();
  for (const sig of ["SIGTERM", "SIGINT"] as const) {
    try {
      Deno.addSignalListener(sig, onSignal);
    } catch {
      // Signals unsupported here: EOF still works.
    }
  }
  return await serve({ readable: input, writable: Deno.stdout.writable, config });
}
