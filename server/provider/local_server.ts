/**
 * Whether a provider runs on this machine or the local network, where scv may ask it more
 * than the chat endpoint (its context window). Kept apart, with no imports, so that asking costs
 * nothing on the start-up path.
 *
 * @module
 */

/**
 * Whether a base URL's host is on this machine or the local network: the only servers the
 * probe asks.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isLocalServer } from "./local_server.ts";
 * assert.equal(isLocalServer("http://127.0.0.1:8080/v1"), true);
 * assert.equal(isLocalServer("http://gpu-box.local:8000/v1"), true);
 * assert.equal(isLocalServer("http://192.168.1.20:11434/v1"), true);
 * assert.equal(isLocalServer("https://api.openai.com/v1"), false);
 * ```
 */
export function isLocalServer(baseUrl: string): boolean {
  let host: string;
  try {
    host = new URL(baseUrl).hostname.replace(/^\[|\]$/g, "").toLowerCase();
  } catch {
    return false;
  }
  if (host === "localhost" || host.endsWith(".localhost") || host.endsWith(".local")) return true;
  if (host === "::1" || host.startsWith("fe80:") || /^f[cd][0-9a-f]{2}:/.test(host)) return true;
  const v4 = /^(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(host);
  if (!v4) return false;
  const [a, b] = [Number(v4[1]), Number(v4[2])];
  return a === 127 || a === 10 || (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168) || (a === 169 && b === 254) || host === "0.0.0.0";
}
