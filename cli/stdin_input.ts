/**
 * The input of `scv server` and `scv acp`: stdin as a pull-based stream that SIGTERM, SIGINT and
 * SIGHUP (the terminal closed) end the way EOF does, so the connection cancels its turns, kills
 * its tool processes and flushes its output before scv exits.
 *
 * @module
 */

/**
 * Stdin, read only as fast as the connection pulls (a client that floods stdin is held back by
 * the pipe, not buffered here); a failed read, a cancel or one of the signals reads as EOF.
 */
export function stdinUntilSignal(): ReadableStream<Uint8Array> {
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
  return input;
}
