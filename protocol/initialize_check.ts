/**
 * A zod-free check of the `initialize` message, so the server can answer the handshake before
 * the zod schemas have loaded (importing zod costs about 35 ms). It must accept exactly what
 * `InitializeMessage` in `schema.ts` accepts; a property test holds the two together.
 *
 * @module
 */

/** The fields of a valid `initialize` message. */
export interface InitializeFields {
  type: "initialize";
  request_id: string;
  protocol_version: number;
  client?: { name: string; version: string };
  capabilities?: { reasoning?: boolean; notices?: boolean };
}

/**
 * Checks an `initialize` message: the fields on success, else a description of the first bad
 * field in the style of `describeIssues`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { checkInitialize } from "./initialize_check.ts";
 * const r = checkInitialize({ type: "initialize", request_id: "1", protocol_version: 1 });
 * assert(r.ok && r.message.protocol_version === 1);
 * assert(!checkInitialize({ type: "initialize", request_id: "1" }).ok);
 * ```
 */
export function checkInitialize(
  value: Record<string, unknown>,
): { ok: true; message: InitializeFields } | { ok: false; error: string } {
  if (value.type !== "initialize") return { ok: false, error: `"type": must be "initialize"` };
  const { request_id, protocol_version, client, capabilities } = value;
  if (typeof request_id !== "string" || request_id === "") {
    return { ok: false, error: `"request_id": must be a non-empty string` };
  }
  if (typeof protocol_version !== "number" || !Number.isSafeInteger(protocol_version)) {
    return { ok: false, error: `"protocol_version": must be an integer` };
  }
  const message: InitializeFields = { type: "initialize", request_id, protocol_version };
  if (client !== undefined) {
    if (typeof client !== "object" || client === null || Array.isArray(client)) {
      return { ok: false, error: `"client": must be an object with "name" and "version"` };
    }
    const { name, version } = client as Record<string, unknown>;
    if (typeof name !== "string") return { ok: false, error: `"client.name": must be a string` };
    if (typeof version !== "string") {
      return { ok: false, error: `"client.version": must be a string` };
    }
    message.client = { name, version };
  }
  if (capabilities !== undefined) {
    if (typeof capabilities !== "object" || capabilities === null || Array.isArray(capabilities)) {
      return { ok: false, error: `"capabilities": must be an object` };
    }
    const { reasoning, notices } = capabilities as Record<string, unknown>;
    const caps: { reasoning?: boolean; notices?: boolean } = {};
    for (const [name, v] of [["reasoning", reasoning], ["notices", notices]] as const) {
      if (v === undefined) continue;
      if (typeof v !== "boolean") {
        return { ok: false, error: `"capabilities.${name}": must be a boolean` };
      }
      caps[name] = v;
    }
    message.capabilities = caps;
  }
  return { ok: true, message };
}
