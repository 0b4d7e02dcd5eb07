/**
 * What `bash` tells the model and the approval flow before any of its code runs: its description
 * under a sandbox, whether calls are sandboxed. bash.ts builds the tool from these, and a server
 * offers the tool from them before its module (and zod) loads (lazy_builtin.ts).
 *
 * @module
 */
import type { Sandbox } from "../sandbox/mod.ts";

const DESCRIPTION = "Run a shell command with `bash -c` in the workspace directory. stdout and " +
  "stderr are combined; a non-zero exit code fails the call. The command has no stdin and " +
  "is killed, with every process it started, when it times out or the turn is cancelled.";

/**
 * bash's description for the model: what the sandbox, when one is active, lets a command do.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { bashDescription } from "./bash_facts.ts";
 * assert(bashDescription(undefined).startsWith("Run a shell command"));
 * assert(!bashDescription(undefined).includes("sandbox"));
 * ```
 */
export function bashDescription(sandbox: Pick<Sandbox, "active" | "settings"> | undefined): string {
  if (sandbox?.active !== true) return DESCRIPTION;
  return DESCRIPTION + " It runs in a sandbox: only the workspace" +
    (sandbox.settings.mode === "read-only" ? " is visible (read-only)" : " and /tmp are writable") +
    (sandbox.settings.network
      ? ""
      : sandbox.settings.hosts
      ? ", the network reaches only the configured hosts through the proxy in HTTP_PROXY " +
        "(others are refused)"
      : ", there is no network") +
    ".";
}
