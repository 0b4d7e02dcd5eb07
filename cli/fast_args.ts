/**
 * A tiny parser for the common `scv server` command line, so the server path starts without
 * loading commander. Anything it does not recognise returns `undefined`, and the full parser
 * (with its help and error messages) takes over.
 *
 * @module
 */
import type { ConfigFlags } from "../server/config.ts";

const VALUE_FLAGS: Record<string, keyof ConfigFlags> = {
  "--config": "config",
  "--model": "model",
  "--approval-policy": "approvalPolicy",
};

/**
 * Parses `server [--config P] [--model M] [--approval-policy A]` (also `--flag=value`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseServerArgs } from "./fast_args.ts";
 * assert(parseServerArgs(["server", "--model=m"])?.model === "m");
 * assert(parseServerArgs(["server", "--help"]) === undefined);
 * ```
 */
export function parseServerArgs(args: readonly string[]): ConfigFlags | undefined {
  if (args[0] !== "server") return undefined;
  const flags: ConfigFlags = {};
  for (let i = 1; i < args.length; i++) {
    const arg = args[i]!;
    const eq = arg.indexOf("=");
    const name = eq === -1 ? arg : arg.slice(0, eq);
    const key = VALUE_FLAGS[name];
    if (!key) return undefined;
    const value = eq === -1 ? args[++i] : arg.slice(eq + 1);
    if (value === undefined || value === "" || value.startsWith("--")) return undefined;
    if (key === "approvalPolicy" && !["always", "on-risk", "auto", "never"].includes(value)) {
      return undefined; // commander reports the allowed choices
    }
    flags[key] = value;
  }
  return flags;
}
