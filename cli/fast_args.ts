/**
 * A tiny parser for the common `scv server` and `scv exec` command lines, so those paths start
 * without loading commander (~25 ms with the Node module machinery it pulls in). Anything it does
 * not recognise returns `undefined`, and the full parser (with its help and error messages)
 * takes over; where both answer they agree (tests/cli/fast_args_test.ts).
 *
 * @module
 */
import type { ConfigFlags } from "../server/config.ts";
import type { ExecOptions } from "./command_line.ts";

const VALUE_FLAGS: Record<string, keyof ConfigFlags> = {
  "--config": "config",
  "--model": "model",
  "--approval-policy": "approvalPolicy",
};

/**
 * Parses `server [--config P] [--model M] [--approval-policy A]` (also `--flag=value`), or the
 * same after `acp` (editors start `scv acp` for every agent thread).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseServerArgs } from "./fast_args.ts";
 * assert(parseServerArgs(["server", "--model=m"])?.model === "m");
 * assert(parseServerArgs(["server", "--help"]) === undefined);
 * assert(parseServerArgs(["acp"], "acp") !== undefined);
 * ```
 */
export function parseServerArgs(
  args: readonly string[],
  command: "server" | "acp" = "server",
): ConfigFlags | undefined {
  if (args[0] !== command) return undefined;
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

/**
 * Parses `exec [--json] [--config P] [--model M] [--approval-policy A] [--cwd D] PROMPT` (flags
 * in any order, also `--flag=value`); a relative `--cwd` is made absolute as commander's does.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseExecArgs } from "./fast_args.ts";
 * assert(parseExecArgs(["exec", "--json", "hi"])?.json === true);
 * assert(parseExecArgs(["exec", "--frobnicate", "hi"]) === undefined);
 * ```
 */
export function parseExecArgs(args: readonly string[]): ExecOptions | undefined {
  if (args[0] !== "exec") return undefined;
  const flags: ConfigFlags = {};
  let json = false;
  let cwd: string | undefined;
  let prompt: string | undefined;
  for (let i = 1; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--json") {
      json = true;
      continue;
    }
    if (!arg.startsWith("-") || arg === "-") {
      if (prompt !== undefined) return undefined; // commander names the extra argument
      prompt = arg;
      continue;
    }
    const eq = arg.indexOf("=");
    const name = eq === -1 ? arg : arg.slice(0, eq);
    const value = eq === -1 ? args[++i] : arg.slice(eq + 1);
    if (value === undefined || value === "" || value.startsWith("-")) return undefined;
    if (name === "--cwd") {
      cwd = value.startsWith("/") ? value : `${Deno.cwd()}/${value}`;
      continue;
    }
    const key = VALUE_FLAGS[name];
    if (!key) return undefined;
    if (key === "approvalPolicy" && !["always", "on-risk", "never"].includes(value)) {
      return undefined;
    }
    flags[key] = value;
  }
  if (prompt === undefined) return undefined;
  return {
    flags: { config: flags.config, model: flags.model, approvalPolicy: flags.approvalPolicy },
    prompt,
    json,
    cwd,
  };
}
