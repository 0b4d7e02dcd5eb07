/**
 * `scv sandbox check`: whether the OS sandbox works here, in which mode, and what it would deny,
 * shown by running a command in it (a write outside the workspace, a hook in `.git/hooks`, a
 * look at `/proc`, a connection to a port scv opened outside, a read of each hidden path).
 * Exit 0 when bash calls would run sandboxed, 1 when they would run unsandboxed or fail.
 *
 * @module
 */
import type { SandboxCheckOptions } from "./command_line.ts";
import { loadConfigOrReport } from "../server/config.ts";
import { openSandbox, type Sandbox, type SandboxSpec } from "../server/sandbox/mod.ts";
import { scvPath } from "../server/core_env.ts";

const encoder = new TextEncoder();

/** What the live run inside the sandbox found. */
export interface LiveFindings {
  /** A file written outside the workspace did not appear on the host. */
  writeOutsideBlocked: boolean | undefined;
  /** Writing `.git/hooks` failed (undefined: no repository). */
  hooksBlocked: boolean | undefined;
  /** Processes visible in `/proc` inside. */
  processes: number | undefined;
  /** scv's own pid was not visible inside. */
  scvHidden: boolean | undefined;
  /** A loopback port opened outside could not be reached (undefined: not tried). */
  loopbackBlocked: boolean | undefined;
  /** Hidden paths that showed content inside (should be none). */
  leakedHidden: string[];
  /**
   * A file the check planted in the workspace and denied the command could not be read
   * (undefined: the workspace is not writable, so nothing was planted).
   */
  deniedUnreadable?: boolean | undefined;
  /** What `/` shows inside, when reads are scoped. */
  root?: string[] | undefined;
}

function mark(ok: boolean | undefined): string {
  return ok === undefined ? "-" : ok ? "ok" : "FAILED";
}

/**
 * The report's lines for a sandbox and, when it ran, what the live check found. Pure.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { reportLines } from "./sandbox_check.ts";
 * const lines = reportLines({
 *   configured: "off", workspace: "/w", report: { mode: "off", reason: "configured" },
 * });
 * assert(lines.some((l) => l.includes("approval is the only guard")));
 * ```
 */
export function reportLines(input: {
  configured: string;
  workspace: string;
  report: ReturnType<Sandbox["report"]>;
  backend?: string;
  spec?: SandboxSpec;
  live?: LiveFindings;
  /** How `sandbox_limits` are applied here. */
  limits?: string;
}): string[] {
  const { report, spec, live } = input;
  const lines = [`workspace:   ${input.workspace}`];
  if (report.mode === "off") {
    lines.push(
      `sandbox:     off ("sandbox": "${input.configured}"): ${report.reason}`,
      "warning:     bash commands run with the user's full rights; approval is the only guard.",
      "             A command can read scv's environment, the provider's API key included,",
      "             through /proc/$PPID/environ, and processes it leaves behind with setsid",
      "             and an empty environment can outlive the call.",
    );
    return lines;
  }
  lines.push(
    `sandbox:     ${input.backend ?? "os sandbox"} works`,
    `mode:        ${report.mode} ("sandbox": "${input.configured}")` +
      (report.reason ? `; ${report.reason}` : ""),
  );
  if (spec) {
    lines.push(
      `writable:    ${spec.mode === "workspace-write" ? spec.writable.join(", ") : "nothing"}` +
        " (and a private, empty /tmp)",
      spec.readable
        ? `readable:    ${spec.readable.join(", ")} (read-only; scv's --allow-read is scoped, ` +
          "so nothing else of the host is shown" +
          (spec.readOnly.length > 0 ? `; ${spec.readOnly.join(", ")} read-only` : "") + ")"
        : `read-only:   everything else${
          spec.readOnly.length > 0 ? `, and ${spec.readOnly.join(", ")}` : ""
        }`,
      `hidden:      ${
        spec.hidden.length > 0 ? spec.hidden.map((h) => h.path).join(", ") : "(none exist)"
      }`,
      `network:     ${
        spec.network
          ? "shared with the host"
          : spec.proxy
          ? `only scv's proxy (socket ${spec.proxy.socket}), to the "sandbox_network" hosts`
          : "none (a loopback of its own)"
      }`,
      "processes:   own PID namespace: /proc shows no process of scv or of the user; every " +
        "process of a call dies with it",
    );
    if (input.limits) lines.push(`limits:      ${input.limits}`);
  }
  if (live) {
    lines.push(
      "checked by running a command inside:",
      `  [${mark(live.writeOutsideBlocked)}] a write outside the workspace does not reach the host`,
      `  [${mark(live.hooksBlocked)}] .git/hooks cannot be written` +
        (live.hooksBlocked === undefined ? " (the workspace is not a git repository)" : ""),
      `  [${mark(live.scvHidden)}] scv's process is not visible (${
        live.processes ?? "?"
      } processes in /proc, all the command's own)`,
      `  [${mark(live.loopbackBlocked)}] a port scv opened on 127.0.0.1 outside is unreachable` +
        (live.loopbackBlocked === undefined ? " (not tried)" : ""),
      `  [${mark(live.leakedHidden.length === 0)}] hidden paths show nothing` +
        (live.leakedHidden.length > 0 ? `: ${live.leakedHidden.join(", ")} leaked` : ""),
      `  [${
        mark(live.deniedUnreadable)
      }] a file planted in the workspace and denied cannot be read` +
        (live.deniedUnreadable === undefined ? " (the workspace is not writable)" : ""),
    );
    if (live.root) lines.push(`  /  shows only: ${live.root.join(" ")}`);
  }
  return lines;
}

/** Whether every live check that ran passed. */
export function livePassed(live: LiveFindings, network: boolean): boolean {
  return live.writeOutsideBlocked !== false && live.hooksBlocked !== false &&
    live.scvHidden !== false && (network || live.loopbackBlocked !== false) &&
    live.leakedHidden.length === 0 && live.deniedUnreadable !== false;
}

const LIVE_SCRIPT = String.raw`
outside=$1 pid=$2 port=$3 canary=$4; shift 4
touch "$outside" 2>/dev/null
if [ -n "$canary" ]; then
  if grep -q . "$canary" 2>/dev/null; then echo "canary=read"; else echo "canary=denied"; fi
fi
echo "root=$(ls -A / | tr '\n' ' ')"
if [ -d .git ]; then
  if touch .git/hooks/.scv-sandbox-check 2>/dev/null; then echo "hooks=open"; rm -f .git/hooks/.scv-sandbox-check; else echo "hooks=blocked"; fi
fi
n=0; for p in /proc/[0-9]*; do n=$((n+1)); done; echo "processes=$n"
if [ -e "/proc/$pid" ]; then echo "scv=visible"; else echo "scv=hidden"; fi
if [ -n "$port" ]; then
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then echo "loopback=open"; else echo "loopback=blocked"; fi
fi
for h; do
  if [ -d "$h" ]; then [ -n "$(ls -A "$h" 2>/dev/null)" ] && echo "leak=$h"
  elif [ -s "$h" ]; then echo "leak=$h"; fi
done
exit 0
`;

async function liveCheck(sandbox: Sandbox, workspace: string): Promise<
  {
    spec: SandboxSpec;
    live: LiveFindings;
  } | { error: string }
> {
  const parent = workspace === "/" ? "/" : workspace.slice(0, workspace.lastIndexOf("/")) || "/";
  const outside = `${parent}/.scv-sandbox-check-${crypto.randomUUID()}`;
  const canary = `${workspace === "/" ? "" : workspace}/.scv-sandbox-check-${crypto.randomUUID()}`;
  let planted = false;
  let listener: Deno.TcpListener | undefined;
  try {
    listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  } catch {
    // No --allow-net for it: the loopback check is skipped.
  }
  try {
    const port = listener ? String(listener.addr.port) : "";
    const prepared = await sandbox.prepare(workspace, ["true"]);
    if (prepared.kind !== "sandboxed") {
      return { error: prepared.kind === "refused" ? prepared.message : "not sandboxed" };
    }
    // A planted file, denied like a sandbox_deny_read path: the proof that denial holds here.
    if (prepared.spec.mode === "workspace-write") {
      try {
        await Deno.writeTextFile(canary, `canary ${crypto.randomUUID()}\n`, { mode: 0o600 });
        planted = true;
      } catch {
        // Not writable after all: the check is skipped.
      }
    }
    const spec: SandboxSpec = planted
      ? { ...prepared.spec, hidden: [...prepared.spec.hidden, { path: canary, directory: false }] }
      : prepared.spec;
    const argv = [
      "bash",
      "-c",
      LIVE_SCRIPT,
      "scv-check",
      outside,
      String(Deno.pid),
      port,
      planted ? canary : "",
    ];
    const { command, args } = sandbox.backend.command(spec, [
      ...argv,
      ...spec.hidden.map((h) => h.path),
    ]);
    const out = await new Deno.Command(command, {
      args,
      cwd: workspace,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      clearEnv: true,
      env: { PATH: scvPath() },
    }).output();
    const text = new TextDecoder().decode(out.stdout);
    if (!out.success) {
      return { error: new TextDecoder().decode(out.stderr).trim() || `exit code ${out.code}` };
    }
    const value = (key: string) => new RegExp(`^${key}=(.*)$`, "m").exec(text)?.[1];
    let landed = false;
    try {
      await Deno.lstat(outside);
      landed = true;
      await Deno.remove(outside).catch(() => {});
    } catch {
      // Not there: the write was contained.
    }
    const hooks = value("hooks");
    const loopback = value("loopback");
    const processes = value("processes");
    return {
      spec,
      live: {
        writeOutsideBlocked: !landed,
        hooksBlocked: hooks === undefined ? undefined : hooks === "blocked",
        processes: processes === undefined ? undefined : Number(processes),
        scvHidden: value("scv") === "hidden",
        loopbackBlocked: loopback === undefined ? undefined : loopback === "blocked",
        leakedHidden: [...text.matchAll(/^leak=(.*)$/gm)].map((m) => m[1]!)
          .filter((p) => p !== canary),
        deniedUnreadable: planted ? value("canary") === "denied" : undefined,
        root: spec.readable ? value("root")?.trim().split(" ").filter((x) => x) : undefined,
      },
    };
  } finally {
    listener?.close();
    if (planted) await Deno.remove(canary).catch(() => {});
  }
}

/** Runs `scv sandbox check`; resolves with the exit status. */
export async function runSandboxCheck(
  options: SandboxCheckOptions,
  write: (text: string) => void = (t) => void Deno.stdout.writeSync(encoder.encode(t)),
): Promise<number> {
  const config = loadConfigOrReport(options.flags, console.error);
  if (!config) return 2;
  let workspace: string;
  try {
    workspace = await Deno.realPath(options.cwd ?? Deno.cwd());
  } catch (e) {
    console.error(`scv sandbox check: cannot open the workspace: ${(e as Error).message}`);
    return 2;
  }
  // A diagnosis runs the trial itself: what a start remembered may be a day old.
  const sandbox = await openSandbox(config, { freshProbe: true });
  const report = sandbox.report(workspace);
  const base = { configured: config.sandbox, workspace, report, backend: sandbox.backend.name };
  if (!sandbox.active) {
    write(reportLines(base).join("\n") + "\n");
    if (sandbox.probe && !sandbox.probe.ok) write(`to fix:      ${sandbox.probe.fix}\n`);
    return 1;
  }
  const found = await liveCheck(sandbox, workspace);
  if ("error" in found) {
    write(reportLines(base).join("\n") + `\nthe trial command failed: ${found.error}\n`);
    return 1;
  }
  const limits = await sandbox.limitsReport();
  write(reportLines({ ...base, ...found, limits }).join("\n") + "\n");
  return livePassed(found.live, found.spec.network) ? 0 : 1;
}
