/**
 * The shape of an OS sandbox for `bash`: what one sandboxed command may do (a {@link
 * SandboxSpec}), and the small interface a platform's implementation provides (a {@link
 * SandboxBackend}: bubblewrap on Linux today; a macOS `sandbox-exec` profile could be another).
 *
 * @module
 */

import type { SandboxLimits } from "./limits.ts";

/** A mode in which the sandbox is actually on. */
export type ActiveSandboxMode = "workspace-write" | "read-only";

/** A path hidden from sandboxed commands: a directory is covered by an empty one, a file by an empty file. */
export interface HiddenPath {
  path: string;
  directory: boolean;
}

/** What one sandboxed command may do. Every path is absolute and physical (symlinks resolved). */
export interface SandboxSpec {
  mode: ActiveSandboxMode;
  /** The workspace; the command's working directory. */
  workspace: string;
  /** Directories the command may write (the workspace and writable roots, for `workspace-write`). */
  writable: readonly string[];
  /** Existing paths inside writable directories that stay read-only (`.git/hooks`, `.git/config`). */
  readOnly: readonly string[];
  /** Existing paths the command cannot see. */
  hidden: readonly HiddenPath[];
  /** Whether the command may use the network. */
  network: boolean;
  /**
   * The only directories shown read-only (besides the writable ones), when scv's own reads are
   * scoped; absent: the whole root is shown read-only.
   */
  readable?: readonly string[];
  /**
   * scv's proxy, for `sandbox_network`'s hosts: its Unix socket on the host, bound into the
   * sandbox, and the forwarder (socat) inside that offers it on the sandbox's loopback.
   */
  proxy?: {
    socket: string;
    socat: string;
    /** The call's token in its proxy URL (hex), that its refusals are matched by. */
    token?: string;
  };
  /** Resource limits, set with `prlimit` at this path inside; absent: none. */
  limits?: { prlimit: string; values: SandboxLimits };
}

/** The answer of a probe: whether the sandbox can start here, and if not, why and what to do. */
export type ProbeResult =
  /** `remembered`: taken from an earlier process's success (probe_memory.ts), not run now. */
  | { ok: true; detail: string; remembered?: true }
  | { ok: false; reason: string; fix: string };

/** One platform's sandbox. */
export interface SandboxBackend {
  /** A short name for messages, e.g. "bubblewrap". */
  readonly name: string;
  /** The executable Deno must be allowed to run (`--allow-run=...`). */
  readonly executable: string;
  /** Finds out whether the sandbox can start here; called once per process (see probe.ts). */
  probe(): Promise<ProbeResult>;
  /** The command line that runs `argv` inside the sandbox described by `spec`. */
  command(spec: SandboxSpec, argv: readonly string[]): { command: string; args: string[] };
  /**
   * The command line that runs `argv` (scv's process reaper) with the host's view of processes,
   * for when only the sandbox's executable may be run; absent: the reaper needs `bash` itself.
   */
  reaper?(argv: readonly string[]): { command: string; args: string[] };
}
