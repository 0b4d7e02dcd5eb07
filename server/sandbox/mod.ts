/**
 * The sandbox `bash` runs in, as one object per server: built from the configuration and the
 * cached probe, it says what `session.started` reports for a workspace and turns a command
 * into the command line that runs it (sandboxed, directly, or not at all, with why).
 *
 * @module
 */
import type { Config } from "../config.ts";
import { readEnv } from "../config.ts";
import { bwrapBackend } from "./bwrap.ts";
import {
  buildSpec,
  denoPermissions,
  effectiveSandbox,
  expandHome,
  helperSpec,
  type LookupUnreadable,
  type PermissionView,
  type SandboxSettings,
  scvBuildDir,
  scvDirectories,
} from "./policy.ts";
import { type ProbeMemory, probeOnce } from "./probe.ts";
import {
  forget,
  PROBE_MEMORY_FILE,
  probeKey,
  rememberedFacts,
  rememberFacts,
  type SandboxFacts,
} from "./probe_memory.ts";
import { stateDir } from "../state_dir.ts";
import { scvPath } from "../core_env.ts";
import type { HiddenPath, ProbeResult, SandboxBackend, SandboxSpec } from "./types.ts";
import { cgroupCleanup, pidsLauncher, standbyInput, standbyLauncher } from "./limits.ts";
import { type Refusal, SandboxProxy } from "./net/proxy.ts";
import { after, type Timer } from "../timer.ts";

export type { ProbeResult, SandboxBackend, SandboxSettings, SandboxSpec };

/** What `session.started` carries as `sandbox`. */
export type SandboxReport =
  | { mode: "workspace-write" | "read-only"; network: boolean; reason?: string }
  | { mode: "off"; reason: string };

/** How one bash call is to be run. */
export type PreparedCommand =
  | {
    kind: "sandboxed";
    command: string;
    args: string[];
    spec: SandboxSpec;
    /**
     * Called once the call ended: after a call that was `killed` (or whose launcher was), it
     * removes what the launcher then leaves behind (its pids cgroup), bounded in time, never
     * failing. Absent: nothing to remove.
     */
    cleanup?: (killed: boolean) => Promise<void>;
    /**
     * A launcher already running, in the call's pids cgroup (`warm` started it): `start` hands
     * it the call with the environment the command is to have, and resolves false, having
     * ended it, when it could not take it (then `command` and `args` are run as usual).
     */
    standby?: { child: Deno.ChildProcess; start(env: Record<string, string>): Promise<boolean> };
  }
  | { kind: "direct" }
  | { kind: "refused"; message: string };

/** The sandbox of one server. */
export interface Sandbox {
  readonly settings: SandboxSettings;
  /** The probe's answer; undefined when the mode is `off` (nothing was probed). */
  readonly probe: ProbeResult | undefined;
  /** Whether bash calls run inside the OS sandbox. */
  readonly active: boolean;
  /** The backend in use. */
  readonly backend: SandboxBackend;
  /** What `session.started` reports for `workspace` (physical). */
  report(workspace: string): SandboxReport;
  /** How to run `argv` in `workspace` (physical). */
  prepare(workspace: string, argv: readonly string[]): Promise<PreparedCommand>;
  /**
   * Starts, in the background, the one-time probes {@link prepare} needs (where prlimit is
   * inside, whether a pids cgroup can be made), so that they overlap the call's checkpoint
   * snapshot instead of following it. With the `workspace` of a call about to come, and calls
   * bounded by a pids cgroup that works here, it also starts that call's launcher, which joins
   * the cgroup meanwhile ({@link PreparedCommand}'s `standby`; unused, it ends after
   * {@link STANDBY_IDLE_MS}). Changes nothing in the workspace.
   */
  warm(workspace?: string): void;
  /** How the limits are applied here (for `scv sandbox check` and the README's claim). */
  limitsReport(): Promise<string>;
  /**
   * A sandboxed command failed with bwrap's own set-up error: a probe success remembered from an
   * earlier process no longer holds, so it is forgotten and the next start probes again.
   */
  setupFailed(): void;
  /**
   * Connections scv's proxy refused for the call with proxy token `caller` (its
   * `spec.proxy.token`), and those of no call's since `at` (a `performance.now()` value).
   */
  refusedSince(at: number, caller?: string): Refusal[];
  /** Why sandboxed commands get no proxy for `sandbox_network`'s hosts, once it was tried. */
  proxyProblem(): Promise<string | undefined>;
  /** Closes the proxy, if one was started, and removes the cgroups of killed calls. */
  close(): Promise<void>;
  /**
   * The command line of an MCP stdio server in a `workspace-write` sandbox of `cwd` with its own
   * network rule; rejects saying why where the sandbox cannot start.
   */
  launchServer(server: {
    name: string;
    argv: readonly string[];
    cwd: string;
    network: boolean | readonly string[];
  }): Promise<{ command: string; args: string[] }>;
}

/** How long a launcher started ahead of a call waits for it before it ends. */
export const STANDBY_IDLE_MS = 30_000;

/** The settings of `config`, with `~` and scv's own directories resolved from `env`. */
export function sandboxSettings(
  config: Config,
  env: (name: string) => string | undefined = readEnv,
): SandboxSettings {
  const home = env("HOME");
  return {
    mode: config.sandbox,
    network: config.sandbox_network === true,
    ...(Array.isArray(config.sandbox_network) && config.sandbox_network.length > 0
      ? { hosts: config.sandbox_network as readonly string[] }
      : {}),
    writableRoots: config.sandbox_writable_roots.flatMap((p) => expandHome(p, home) ?? []),
    denyRead: config.sandbox_deny_read.flatMap((p) => expandHome(p, home) ?? []),
    scvDirs: scvDirectories(env),
    scvBuild: scvBuildDir(),
    readableRoots: config.sandbox_readable_roots.flatMap((p) => expandHome(p, home) ?? []),
    home: home?.startsWith("/") ? home : undefined,
    limits: config.sandbox_limits,
  };
}

const lookups = new Map<string, Promise<HiddenPath[]>>();

/**
 * Asks a read-only sandbox what exists at `paths` (their physical path and kind), once per
 * process for each list: scv may not read them itself in a locked-down run.
 */
function sandboxLookup(backend: SandboxBackend): LookupUnreadable {
  return (paths) => {
    const key = paths.join("\0");
    let found = lookups.get(key);
    if (!found) {
      found = (async () => {
        const spec = helperSpec();
        const script = 'for p; do r=$(readlink -f -- "$p") || continue; ' +
          'if [ -d "$r" ]; then printf "d%s\\0" "$r"; elif [ -e "$r" ]; then printf "f%s\\0" "$r"; fi; done';
        const { command, args } = backend.command(spec, ["/bin/sh", "-c", script, "sh", ...paths]);
        try {
          const out = await new Deno.Command(command, {
            args,
            stdin: "null",
            stdout: "piped",
            stderr: "null",
            clearEnv: true,
            env: { PATH: scvPath() },
          }).output();
          return new TextDecoder().decode(out.stdout).split("\0").filter((s) => s.length > 1)
            .map((s) => ({ path: s.slice(1), directory: s[0] === "d" }));
        } catch {
          return [];
        }
      })();
      lookups.set(key, found);
    }
    return found;
  };
}

/** How long removing the cgroups of killed calls may take (it retries while they empty). */
const CLEANUP_MS = 3_000;

/** Options of {@link openSandbox}, injectable for tests. */
export interface OpenSandboxOptions {
  backend?: SandboxBackend;
  perms?: PermissionView;
  env?: (name: string) => string | undefined;
  /** Whether to bound processes with a pids cgroup where one can be made (default true). */
  cgroups?: boolean;
  /**
   * The file where the probe's success is remembered across processes (probe.ts): by default
   * the state directory's `sandbox-probe.json` for the bubblewrap backend, none for another
   * one; `false`: none.
   */
  probeMemory?: string | false;
  /** Run the probe whatever is remembered, and remember or forget what it finds. */
  freshProbe?: boolean;
}

/**
 * Opens the sandbox of `config`: probes the backend (once per process) unless the mode is
 * `off`.
 */
export async function openSandbox(
  config: Config,
  options: OpenSandboxOptions = {},
): Promise<Sandbox> {
  const backend = options.backend ?? bwrapBackend;
  const perms = options.perms ?? denoPermissions;
  const settings = sandboxSettings(config, options.env);
  const state = stateDir(options.env ?? readEnv);
  const file = options.probeMemory ??
    (backend === bwrapBackend && state ? `${state}/${PROBE_MEMORY_FILE}` : false);
  const memory: ProbeMemory | undefined = file === false
    ? undefined
    : { file, fresh: options.freshProbe === true };
  const probe = settings.mode === "off" ? undefined : await probeOnce(backend, memory);
  const active = probe?.ok === true;
  // What the limits' own processes found out, kept beside a remembered success
  // (probe_memory.ts): read unless this is a fresh probe (`scv sandbox check`), added when new.
  const factsKey = active && memory ? probeKey(backend.executable, scvPath()) : undefined;
  const facts: SandboxFacts = factsKey && !memory!.fresh
    ? rememberedFacts(memory!.file, factsKey)
    : {};
  const learned = (found: SandboxFacts) => {
    if (factsKey) rememberFacts(memory!.file, factsKey, found);
  };
  const lookup = sandboxLookup(backend);
  const canRunDirect = () =>
    Deno.permissions.querySync({ name: "run", command: "bash" }).state === "granted";
  // One proxy for bash's hosts ("bash") and one per sandboxed MCP server with a host list.
  const proxies = new Map<string, Promise<{ proxy: SandboxProxy; socat: string } | string>>();
  const started: SandboxProxy[] = [];
  let bashProxy: SandboxProxy | undefined;
  const startProxy = (label: string, hosts: readonly string[]) => {
    let found = proxies.get(label);
    if (found) return found;
    found = (async () => {
      const found = await lookup(["/usr/bin/socat", "/bin/socat"]);
      const socat = found.find((f) => !f.directory)?.path;
      if (!socat) return "socat is not installed (Debian/Ubuntu: apt install socat)";
      const state = settings.scvDirs[1];
      if (!state) return "scv has no state directory for its proxy socket";
      const unscoped = Deno.permissions.querySync({ name: "net" }).state === "granted";
      const suffix = label === "bash" ? "" : `-${label}`;
      const path = unscoped
        ? `${state}/sandbox-proxy-${Deno.pid}${suffix}.sock`
        : `${state}/sandbox-proxy${suffix}.sock`;
      if (
        !unscoped &&
        Deno.permissions.querySync({ name: "net", host: `unix:${path}` }).state !== "granted"
      ) {
        return `scv may not listen on its proxy socket: add unix:${path} to --allow-net`;
      }
      try {
        await Deno.mkdir(state, { recursive: true, mode: 0o700 });
        const p = await SandboxProxy.start({ path, hosts });
        started.push(p);
        if (label === "bash") bashProxy = p;
        return { proxy: p, socat };
      } catch (e) {
        return `scv cannot start its proxy: ${e instanceof Error ? e.message : String(e)}`;
      }
    })();
    proxies.set(label, found);
    return found;
  };
  const useCgroups = options.cgroups ?? true;
  let calls = 0;
  let cgroupWorks: Promise<boolean> | undefined;
  const probeCgroup = () =>
    cgroupWorks ??= facts.pidsCgroup ? Promise.resolve(true) : (async () => {
      const { command, args } = pidsLauncher(1, "probe", ["true"], canRunDirect());
      try {
        const out = await new Deno.Command(command, {
          args,
          stdin: "null",
          stdout: "piped",
          stderr: "null",
          clearEnv: true,
          env: { PATH: scvPath() },
        }).output();
        const works = new TextDecoder().decode(out.stdout).includes("pids-cgroup");
        if (works) learned({ pidsCgroup: true });
        cgroupOk = works;
        return works;
      } catch {
        return false;
      }
    })();
  // The pids cgroups made, by call id, until removed (by a cleanup or a later launcher).
  const cgroups = new Set<string>();
  // Known to be made and joined here (remembered, or probed in this process).
  let cgroupOk = facts.pidsCgroup === true;
  // Calls whose launcher exited in its cgroup unused: the next standby launcher removes them.
  const ended = new Set<string>();
  // Removals of the cgroups of calls that ended, going on beside the turn (close waits).
  const removing = new Set<Promise<void>>();
  let standby:
    | {
      workspace: string;
      id: string;
      child: Deno.ChildProcess;
      timer: Timer;
    }
    | undefined;
  let closing = false;
  /** Ends a launcher that will take no call (stdin closed: it runs nothing), bounded. */
  const endLauncher = async (child: Deno.ChildProcess, id: string) => {
    await child.stdin.close().catch(() => {});
    const timer = after(CLEANUP_MS, () => {
      try {
        child.kill("SIGKILL");
      } catch {
        // Gone.
      }
    });
    await child.status.catch(() => {});
    timer.cancel();
    await child.stdout.cancel().catch(() => {});
    await child.stderr.cancel().catch(() => {});
    ended.add(id);
  };
  const dropStandby = async () => {
    const s = standby;
    if (!s) return;
    standby = undefined;
    s.timer.cancel();
    await endLauncher(s.child, s.id);
  };
  const startStandby = (workspace: string) => {
    const limits = settings.limits;
    if (!limits || !useCgroups || !cgroupOk || !canRunDirect() || closing) return;
    if (standby?.workspace === workspace) return;
    if (standby) dropStandby().catch(() => {});
    const id = String(++calls);
    const done = [...ended];
    const l = standbyLauncher(limits.processes, id, Deno.pid, done);
    let child: Deno.ChildProcess;
    try {
      child = new Deno.Command(l.command, {
        args: l.args,
        cwd: workspace,
        stdin: "piped",
        stdout: "piped",
        stderr: "piped",
        detached: true,
        clearEnv: true,
        env: { PATH: scvPath() },
      }).spawn();
    } catch {
      return; // the call's own launch says what is wrong
    }
    for (const e of done) {
      ended.delete(e);
      cgroups.delete(e);
    }
    cgroups.add(id);
    // Pending, it keeps the process alive; so does the standby child itself until it is ended.
    const timer = after(STANDBY_IDLE_MS, () => {
      if (standby?.id === id) dropStandby().catch(() => {});
    });
    standby = { workspace, id, child, timer };
  };
  /** Runs the cgroup cleanup for `ids` (all of this scv's when empty), at most 3 s. */
  const removeCgroups = async (ids: readonly string[]) => {
    const { command, args } = cgroupCleanup(ids, canRunDirect());
    try {
      await new Deno.Command(command, {
        args,
        stdin: "null",
        stdout: "null",
        stderr: "null",
        clearEnv: true,
        env: { PATH: scvPath() },
        signal: AbortSignal.timeout(CLEANUP_MS),
      }).output();
    } catch {
      // Bounded and best effort: what is left is removed by a later launch once scv ended.
    }
    for (const id of ids) cgroups.delete(id);
  };
  let prlimit: Promise<string | undefined> | undefined;
  // Looked up once, inside: under a scoped --allow-read scv cannot look at /usr/bin itself.
  const findPrlimit = () =>
    prlimit ??= facts.prlimit !== undefined
      ? Promise.resolve(facts.prlimit)
      : lookup(["/usr/bin/prlimit", "/bin/prlimit"]).then((found) => {
        const path = found.find((f) => !f.directory)?.path;
        if (path) learned({ prlimit: path });
        return path;
      });
  return {
    settings,
    probe,
    active,
    backend,
    report(workspace) {
      if (settings.mode === "off") {
        return { mode: "off", reason: '"sandbox" is "off" in the configuration' };
      }
      if (!probe?.ok) {
        const reason = probe?.reason ?? "not probed";
        return settings.mode === "auto"
          ? { mode: "off", reason: `${reason}; commands run unsandboxed` }
          : {
            mode: "off",
            reason: `"sandbox" is "${settings.mode}" but ${reason}; bash calls fail until ` +
              `this is fixed (${probe?.fix ?? ""})`,
          };
      }
      const asked = settings.mode === "read-only" ? "read-only" : "workspace-write";
      const eff = effectiveSandbox(asked, settings.network, workspace, perms);
      const report: SandboxReport = { mode: eff.mode, network: eff.network };
      if (settings.hosts && !eff.network) {
        eff.notes.push(
          `commands reach only the ${settings.hosts.length} hosts of "sandbox_network", through ` +
            "scv's proxy",
        );
      }
      if (eff.notes.length > 0) report.reason = eff.notes.join("; ");
      return report;
    },
    refusedSince: (at, caller) => bashProxy?.refusedSince(at, caller) ?? [],
    async proxyProblem() {
      const proxy = proxies.get("bash");
      if (!settings.hosts || !proxy) return undefined;
      const p = await proxy;
      return typeof p === "string" ? p : undefined;
    },
    async close() {
      closing = true;
      await dropStandby();
      await Promise.all(removing);
      await Promise.all(started.map((p) => p.close()));
      if (cgroups.size > 0) await removeCgroups([]);
    },
    async launchServer(server) {
      if (!active) {
        throw new Error(
          `"sandbox": true, but the OS sandbox cannot start here: ${probe?.reason ?? "off"}`,
        );
      }
      const hosts = Array.isArray(server.network) ? server.network : undefined;
      const own: SandboxSettings = {
        ...settings,
        mode: "workspace-write",
        network: server.network === true,
      };
      delete own.hosts;
      if (hosts && hosts.length > 0) own.hosts = hosts;
      const cwd = await Deno.realPath(server.cwd);
      const spec = await buildSpec(own, cwd, perms, lookup);
      if (own.hosts && !spec.network) {
        const p = await startProxy(`mcp-${server.name}`, own.hosts);
        if (typeof p === "string") throw new Error(p);
        spec.proxy = { socket: p.proxy.path, socat: p.socat };
      }
      const path = settings.limits ? await findPrlimit() : undefined;
      if (settings.limits && path) spec.limits = { prlimit: path, values: settings.limits };
      return backend.command(spec, server.argv);
    },
    async limitsReport() {
      const l = settings.limits;
      if (!l) return "none configured";
      const values = `memory ${l.memory_mb} MiB per process, ${l.processes} processes, files up ` +
        `to ${l.file_size_mb} MiB` + (l.cpu_seconds === null ? "" : `, ${l.cpu_seconds} CPU s`);
      const via = await findPrlimit() ? "prlimit" : undefined;
      const group = useCgroups && await probeCgroup();
      if (!via && !group) {
        return `${values}: NOT applied (no prlimit inside, no pids cgroup scv may make); the ` +
          "PID namespace and tool_timeout_ms still end every process of a call";
      }
      return `${values}, through ${[via, group && "a pids cgroup"].filter(Boolean).join(" and ")}`;
    },
    setupFailed() {
      if (probe?.ok && probe.remembered && memory) forget(memory.file);
    },
    warm(workspace) {
      if (!active || !settings.limits) return;
      findPrlimit().catch(() => {});
      if (useCgroups) probeCgroup().catch(() => {});
      if (workspace !== undefined) startStandby(workspace);
    },
    async prepare(workspace, argv) {
      if (active) {
        const spec = await buildSpec(settings, workspace, perms, lookup);
        const limits = settings.limits;
        const path = limits ? await findPrlimit() : undefined;
        if (limits && path) spec.limits = { prlimit: path, values: limits };
        if (settings.hosts && !spec.network) {
          const p = await startProxy("bash", settings.hosts);
          if (typeof p !== "string") {
            // A token per call: the proxy's refusals are told to the call they came from.
            const token = crypto.randomUUID().replaceAll("-", "");
            spec.proxy = { socket: p.proxy.path, socat: p.socat, token };
          }
        }
        const inner = backend.command(spec, argv);
        if (!limits || !useCgroups || !(await probeCgroup())) {
          return { kind: "sandboxed", ...inner, spec };
        }
        // The launcher joins the cgroup before it starts the sandbox, so every process the
        // command starts is counted.
        const id = String(++calls);
        const launch = pidsLauncher(limits.processes, id, [
          inner.command,
          ...inner.args,
        ], canRunDirect());
        cgroups.add(id);
        const ahead = standby?.workspace === workspace ? standby : undefined;
        if (ahead) {
          standby = undefined;
          ahead.timer.cancel();
        }
        let used = false;
        return {
          kind: "sandboxed",
          ...launch,
          spec,
          ...(ahead
            ? {
              standby: {
                child: ahead.child,
                start: async (env: Record<string, string>) => {
                  try {
                    const w = ahead.child.stdin.getWriter();
                    await w.write(standbyInput(env, [inner.command, ...inner.args]));
                    await w.close();
                    used = true;
                    return true;
                  } catch {
                    try {
                      ahead.child.kill("SIGKILL");
                    } catch {
                      // Gone.
                    }
                    await endLauncher(ahead.child, ahead.id);
                    return false;
                  }
                },
              },
            }
            : {}),
          cleanup: async (killed) => {
            if (used) {
              // The standby launcher exits in its cgroup; the usual one (never run) made none.
              cgroups.delete(id);
              if (killed) return await removeCgroups([ahead!.id]);
              // Not on the call's path: the turn goes on while its empty cgroup is removed.
              const removal = removeCgroups([ahead!.id]);
              removing.add(removal);
              removal.finally(() => removing.delete(removal));
              return;
            }
            if (killed) await removeCgroups([id]);
            else cgroups.delete(id); // the launcher removed it itself
          },
        };
      }
      if (settings.mode === "workspace-write" || settings.mode === "read-only") {
        return {
          kind: "refused",
          message: `Cannot run the command: "sandbox" is "${settings.mode}" but the sandbox ` +
            `cannot start here: ${probe?.reason ?? "not probed"}. To fix: ${probe?.fix ?? ""}`,
        };
      }
      if (!canRunDirect()) {
        const why = settings.mode === "off"
          ? '"sandbox" is "off"'
          : `the sandbox is off (${probe?.reason})`;
        return {
          kind: "refused",
          message: `Permission denied: scv may run only sandboxed commands (--allow-run without ` +
            `bash), and ${why}; start scv with --allow-run=bash or make the sandbox work`,
        };
      }
      return { kind: "direct" };
    },
  };
}
