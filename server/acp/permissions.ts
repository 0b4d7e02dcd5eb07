/**
 * Approvals over ACP: the options a `session/request_permission` offers, what the client's
 * answer means, and the per-session memory of "allow always" (for that exact tool and those
 * exact arguments, never a whole tool).
 *
 * @module
 */
import type { PermissionOption, RequestPermissionOutcome } from "@agentclientprotocol/sdk";

/** The options scv offers for every approval, in the order an editor shows them. */
export const PERMISSION_OPTIONS: readonly PermissionOption[] = Object.freeze([
  { optionId: "allow_once", name: "Allow", kind: "allow_once" },
  { optionId: "allow_always", name: "Always allow this exact call", kind: "allow_always" },
  { optionId: "reject_once", name: "Reject", kind: "reject_once" },
]);

/** What the user decided. */
export type PermissionDecision = "allow_once" | "allow_always" | "reject" | "cancelled";

/**
 * The decision a permission outcome stands for. An option id scv did not offer is a rejection:
 * only an explicit allow runs a call.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { permissionDecision } from "./permissions.ts";
 * assert.equal(permissionDecision({ outcome: "selected", optionId: "allow_once" }), "allow_once");
 * assert.equal(permissionDecision({ outcome: "selected", optionId: "yes!" }), "reject");
 * assert.equal(permissionDecision({ outcome: "cancelled" }), "cancelled");
 * ```
 */
export function permissionDecision(outcome: RequestPermissionOutcome): PermissionDecision {
  if (outcome.outcome === "cancelled") return "cancelled";
  if (outcome.optionId === "allow_once") return "allow_once";
  if (outcome.optionId === "allow_always") return "allow_always";
  return "reject";
}

/** JSON with object keys sorted at every depth, so equal arguments give equal text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const entries = Object.keys(value).sort().map((k) =>
      `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`
    );
    return `{${entries.join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** Calls one session remembers as always allowed, by default; the oldest is forgotten first. */
export const MAX_ALWAYS_ALLOWED = 256;
/** Longest canonical argument text remembered; a longer call is asked about every time. */
export const MAX_REMEMBERED_ARGUMENT_BYTES = 16 * 1024;

/**
 * The calls a session's user chose "always allow" for: keyed by tool name and canonical
 * arguments, bounded in count and in the size of what it keeps.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { AlwaysAllowed } from "./permissions.ts";
 * const allowed = new AlwaysAllowed();
 * allowed.remember("bash", { command: "ls" });
 * assert(allowed.has("bash", { command: "ls" }));
 * assert(!allowed.has("bash", { command: "ls -la" }));
 * ```
 */
export class AlwaysAllowed {
  #keys = new Set<string>();
  #max: number;

  /** An empty memory holding at most `max` calls. */
  constructor(max = MAX_ALWAYS_ALLOWED) {
    if (!Number.isSafeInteger(max) || max <= 0) {
      throw new RangeError(
        `Cannot create AlwaysAllowed: max must be a positive integer, got ${max}`,
      );
    }
    this.#max = max;
  }

  static #key(name: string, args: unknown): string | undefined {
    const text = canonicalJson(args);
    // Counted in UTF-16 units: a bound on memory, not a wire limit.
    if (text.length > MAX_REMEMBERED_ARGUMENT_BYTES) return undefined;
    return `${name}\u0000${text}`;
  }

  /** How many calls are remembered. */
  get size(): number {
    return this.#keys.size;
  }

  /** Whether this exact call was always allowed. */
  has(name: string, args: unknown): boolean {
    const key = AlwaysAllowed.#key(name, args);
    return key !== undefined && this.#keys.has(key);
  }

  /** Remembers this exact call; false when its arguments are too large to keep. */
  remember(name: string, args: unknown): boolean {
    const key = AlwaysAllowed.#key(name, args);
    if (key === undefined) return false;
    this.#keys.delete(key);
    this.#keys.add(key);
    while (this.#keys.size > this.#max) {
      this.#keys.delete(this.#keys.values().next().value!);
    }
    return true;
  }
}
