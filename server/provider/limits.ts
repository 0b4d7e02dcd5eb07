/**
 * The provider reader's caps from the Peon protocol ("Ordering and backpressure").
 *
 * @module
 */

/** Caps applied while reading one provider response; all counts are UTF-8 bytes. */
export interface ResponseLimits {
  /** One SSE event's data. */
  maxEventBytes: number;
  /** The whole response body. */
  maxResponseBytes: number;
  /** The accumulated assistant text. */
  maxTextBytes: number;
  /** Each accumulated tool-argument string. */
  maxToolArgumentBytes: number;
  /** Tool calls in one response. */
  maxToolCalls: number;
}

/** The protocol's caps: 1 MiB event, 4 MiB response, 1 MiB text, 256 KiB arguments, 32 calls. */
export const DEFAULT_RESPONSE_LIMITS: Readonly<ResponseLimits> = Object.freeze({
  maxEventBytes: 1024 * 1024,
  maxResponseBytes: 4 * 1024 * 1024,
  maxTextBytes: 1024 * 1024,
  maxToolArgumentBytes: 256 * 1024,
  maxToolCalls: 32,
});
