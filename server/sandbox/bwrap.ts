/**
 * The Linux sandbox: bubblewrap (`bwrap`). The root file system is bound read-only, `/dev` and
 * `/proc` are fresh (the PID namespace's `/proc` shows no process of scv or of the user), `/tmp`
 * is a private tmpfs, the writable directories are bound read-write on top, `.git/hooks` and
 * `.git/config` read-only again on top of those, and hidden paths are covered last. The command
 * runs in its own PID namespace, so when its first process exits (or bwrap is killed, which
 * `--die-with-parent` passes on) the kernel kills every process it started; `--new-session`
 * keeps it from reaching scv's terminal.
 *
 * @module
 */
import type { ProbeResult, SandboxBackend, SandboxSpec } from "./types.ts";
import { scvPath } from "../core_env.ts";
import { helperSpec } from "./policy.ts";
import { prlimitArgv } from "./limits.ts";
import { forwarderArgv, PROXY_SOCKET_INSIDE } from "./net/forwarder.ts";

/** How long the probe may take before the sandbox counts as not working. */
const PROBE_TIMEOUT_MS = 10_000;

/** Longer paths first mount later, so that a deeper mount lands on top of a shallower one. */
function depth(p: string): number {
  return p.split("/").filter((s) => s !== "").length;
}

/**
 * The `bwrap` arguments that run `argv` under `spec`. `--tmpfs /tmp` comes before the binds,
 * so a workspace under `/tmp` is bound on top of the private `/tmp` rather than hidden by it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { bwrapArgs } from "./bwrap.ts";
 * const args = bwrapArgs({
 *   mode: "workspace-write", workspace: "/w", writable: ["/w"], readOnly: [], hidden: [],
 *   network: false,
 * }, ["true"]);
 * assert(args.join(" ").includes("--bind /w /w") && args.includes("--unshare-net"));
 * ```
 */
export function bwrapArgs(spec: SandboxSpec, argv: readonly string[]): string[] {
  const args = spec.readable ? [] : ["--ro-bind", "/", "/"];
  args.push("--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp");
  const mounts = [...spec.readable ?? []].map((p) => ({ p, rw: false }));
  if (spec.mode === "workspace-write") mounts.push(...spec.writable.map((p) => ({ p, rw: true })));
  for (const { p, rw } of mounts.sort((a, b) => depth(a.p) - depth(b.p))) {
    // A readable directory may be absent (`/lib32`, a toolchain not installed): -try skips it.
    args.push(rw ? "--bind" : "--ro-bind-try", p, p);
  }
  for (const p of spec.readOnly) args.push("--ro-bind", p, p);
  for (const h of [...spec.hidden].sort((a, b) => depth(a.path) - depth(b.path))) {
    if (h.directory) args.push("--tmpfs", h.path, "--remount-ro", h.path);
    else args.push("--ro-bind", "/dev/null", h.path);
  }
  // scv's proxy socket, under the private /tmp (a mount point there can be made).
  if (spec.proxy) args.push("--bind", spec.proxy.socket, PROXY_SOCKET_INSIDE);
  // Without the host's root, the new root is bwrap's own tmpfs: read-only like the host's.
  if (spec.readable) args.push("--remount-ro", "/");
  args.push("--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try");
  if (!spec.network) args.push("--unshare-net");
  args.push("--die-with-parent", "--new-session", "--chdir", spec.workspace, "--", ...argv);
  return args;
}

/** The first line of a process's stderr, for a reason. */
function firstLine(bytes: Uint8Array): string {
  const text = new TextDecoder().decode(bytes.subarray(0, 4096)).trim();
  return text.split("\n")[0] ?? "";
}

async function probeBwrap(): Promise<ProbeResult> {
  const install = "install bubblewrap (Debian/Ubuntu: apt install bubblewrap; Fedora: " +
    'dnf install bubblewrap) or set "sandbox": "off"';
  if (Deno.build.os !== "linux") {
    return {
      ok: false,
      reason: `no OS sandbox for ${Deno.build.os} yet (bubblewrap is Linux only)`,
      fix: 'set "sandbox": "off" (approval is then the only guard)',
    };
  }
  const spec = helperSpec();
  const timeout = AbortSignal.timeout(PROBE_TIMEOUT_MS);
  let out: Deno.CommandOutput;
  try {
    const child = new Deno.Command("bwrap", {
      args: bwrapArgs(spec, ["true"]),
      stdin: "null",
      stdout: "null",
      stderr: "piped",
      clearEnv: true,
      // The PATH bash calls will run bwrap with (Deno looks the command up in the child's).
      env: { PATH: scvPath() },
    }).spawn();
    const kill = () => {
      try {
        child.kill("SIGKILL");
      } catch {
        // Already gone.
      }
    };
    timeout.addEventListener("abort", kill, { once: true });
    try {
      out = await child.output();
    } finally {
      timeout.removeEventListener("abort", kill);
    }
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) {
      return {
        ok: false,
        reason: "bwrap (bubblewrap) is not installed or not on PATH",
        fix: install,
      };
    }
    if (err instanceof Deno.errors.NotCapable) {
      return {
        ok: false,
        reason: "scv was started without --allow-run for bwrap, so it cannot start the sandbox",
        fix: "add bwrap to --allow-run (--allow-run=bwrap)",
      };
    }
    return { ok: false, reason: `bwrap could not be started: ${String(err)}`, fix: install };
  }
  if (timeout.aborted) {
    return {
      ok: false,
      reason: `bwrap did not finish a trial run within ${PROBE_TIMEOUT_MS} ms`,
      fix: 'check the bubblewrap installation, or set "sandbox": "off"',
    };
  }
  if (!out.success) {
    const why = firstLine(out.stderr) || `exit code ${out.code}`;
    return {
      ok: false,
      reason: `bwrap cannot create its namespaces here (${why})`,
      fix: "allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1, or " +
        "on Ubuntu 24.04 an AppArmor profile for bwrap), run outside a container that forbids " +
        'them, or set "sandbox": "off"',
    };
  }
  return { ok: true, detail: "bubblewrap works (user, mount, PID and network namespaces)" };
}

/** The bubblewrap sandbox. */
export const bwrapBackend: SandboxBackend = {
  name: "bubblewrap",
  executable: "bwrap",
  probe: probeBwrap,
  command: (spec, argv) => {
    const inner = spec.proxy ? forwarderArgv(spec.proxy.socat, argv, spec.proxy.token) : argv;
    return {
      command: "bwrap",
      args: bwrapArgs(
        spec,
        spec.limits
          ? [spec.limits.prlimit, ...prlimitArgv(spec.limits.values, inner).slice(1)]
          : inner,
      ),
    };
  },
  // No PID namespace and the host's /proc (within the read-only root), so it sees and can
  // signal what a call left behind; nothing else is shared that the caller did not have.
  reaper: (argv) => ({
    command: "bwrap",
    args: [
      "--ro-bind",
      "/",
      "/",
      "--dev",
      "/dev",
      "--unshare-net",
      "--die-with-parent",
      "--",
      ...argv,
    ],
  }),
};
