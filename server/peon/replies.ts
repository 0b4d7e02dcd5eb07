/**
 * Connection-level replies: events sent with the backpressure timeout, and `error` events that
 * are shortened until they fit the frame limit, so an error reply never ends the connection.
 *
 * @module
 */
import type { ErrorCode } from "../../protocol/constants.ts";
import { FrameTooLargeError } from "../../protocol/ndjson.ts";
import { clip } from "../error_text.ts";
import type { SeqCounter } from "../core/seq.ts";
import { BackpressureTimeoutError, type FrameWriter } from "./writer.ts";

/** Connection-level sends give up after this much backpressure. */
export const SEND_TIMEOUT_MS = 3000;

/** How replies reach the client, and what to do when the output stays blocked. */
export interface ReplyOptions {
  writer: FrameWriter;
  log: (line: string) => void;
  /** Called once a send timed out on backpressure: the connection must close. */
  onBlocked: () => void;
}

/** Sends connection-level events and errors for one connection. */
export class Replies {
  #o: ReplyOptions;

  /** Binds the replies to a writer. */
  constructor(options: ReplyOptions) {
    this.#o = options;
  }

  /** Sends one event; blocked output for {@link SEND_TIMEOUT_MS} stops the connection. */
  async send(event: Record<string, unknown>, seq?: SeqCounter): Promise<void> {
    try {
      await this.#o.writer.send(event, { timeoutMs: SEND_TIMEOUT_MS, ...(seq ? { seq } : {}) });
    } catch (e) {
      if (e instanceof BackpressureTimeoutError) {
        this.#o.log(`scv-server: ${e.message}; closing the connection`);
        this.#o.onBlocked();
      }
      throw e;
    }
  }

  /**
   * Sends an `error`. Messages quote client text only through `quoteInput`, so they stay
   * short; should one still not fit `max_server_frame_bytes` (a tiny configured limit), the code
   * goes out with a short message, then without the request_id, and failing even that the error
   * is logged: an error reply never ends the connection.
   */
  async error(
    requestId: string | undefined,
    code: ErrorCode,
    message: string,
    fatal = false,
  ): Promise<void> {
    const id = requestId !== undefined ? { request_id: requestId } : {};
    // Shorter and shorter: the full error, its code with the request_id, the bare code.
    const attempts = [
      { type: "error", ...id, code, message, fatal },
      { type: "error", ...id, code, message: "see the server log", fatal },
      { type: "error", code, message: "see the server log", fatal },
    ];
    const limit = this.#o.writer.maxFrameBytes;
    for (const [i, event] of attempts.entries()) {
      try {
        await this.send(event);
        if (i > 0) {
          this.#o.log(
            `scv-server: a "${code}" error did not fit max_server_frame_bytes (${limit}); ` +
              `it was sent short: ${clip(message, 500)}`,
          );
        }
        return;
      } catch (e) {
        if (!(e instanceof FrameTooLargeError)) throw e;
      }
    }
    this.#o.log(
      `scv-server: a "${code}" error cannot be sent within max_server_frame_bytes ` +
        `(${limit}): ${clip(message, 500)}`,
    );
  }
}
