/**
 * The shape of a `sandbox_network` host pattern, checked where the config is read (the sandbox's
 * `net/hosts.ts` parses it in full): a host name, `*.domain`, an IPv4 address or `[IPv6]`, with
 * an optional `:PORT`.
 *
 * @module
 */

/**
 * A host pattern's shape.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { HOST_PATTERN } from "./host_pattern.ts";
 * assert(HOST_PATTERN.test("*.github.com:443") && !HOST_PATTERN.test("http://x"));
 * ```
 */
export const HOST_PATTERN =
  /^(?:(?:\*\.)?[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?|\[[0-9A-Fa-f:.]{2,45}\])(?::\d{1,5})?$/;
