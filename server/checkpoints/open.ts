/**
 * Whether checkpoints are on for a process, and each session's checkpoints: off by
 * configuration, off without a state directory, off when git cannot be run (not on `PATH`, or
 * not in scv's `--allow-run`), said once per session in `session.started`. The shadow repository
 * of a workspace lives in `$XDG_STATE_HOME/scv/checkpoints/<hash of the workspace path>/`.
 *
 * @module
 */
import type { Config } from "../config.ts";
import { stateDir } from "../sessions/paths.ts";
import { configSecrets, Redactor } from "../sessions/redact.ts";
import { runnableOnPath, scvPath } from "../core_env.ts";
import { ShadowRepo } from "./repo.ts";
import { type CheckpointSettings, SessionCheckpoints } from "./session_checkpoints.ts";

/** Checkpoints for a process: where they live, or why there are none. */
export type CheckpointsState =
  /** `redact` takes the provider's secrets out of a line before it is written. */
  | { enabled: true; dir: string; redact: (line: string) => string }
  | { enabled: false; reason: string };

/** The checkpoints directory for an environment (under scv's state directory). */
export function checkpointsDir(env: (name: string) => string | undefined): string | undefined {
  const state = stateDir(env);
  return state === undefined ? undefined : `${state}/checkpoints`;
}

let gitProbe: Promise<string | undefined> | undefined;

/**
 * Why git cannot be run, or undefined when it can (asked once per process). An executable git
 * on PATH that scv may run is taken as it is; anything else is asked of `git --version`, whose
 * failure says why.
 */
export function gitUnavailable(): Promise<string | undefined> {
  return gitProbe ??= (async () => {
    if (runnableOnPath("git", scvPath())) return undefined;
    try {
      const out = await new Deno.Command("git", {
        args: ["--version"],
        clearEnv: true,
        env: { PATH: scvPath() },
        cwd: "/",
        stdin: "null",
        stdout: "piped",
        stderr: "null",
      }).output();
      return out.success ? undefined : `"git --version" failed (exit ${out.code})`;
    } catch (e) {
      if (e instanceof Deno.errors.NotFound) return "git is not on PATH";
      if (e instanceof Deno.errors.NotCapable || e instanceof Deno.errors.PermissionDenied) {
        return "scv may not run git (add git to --allow-run)";
      }
      return `git cannot be run: ${e instanceof Error ? e.message : String(e)}`;
    }
  })();
}

/** Whether checkpoints are on under `config` in this environment. */
export async function checkpointsState(
  config: Config,
  env: (name: string) => string | undefined,
): Promise<CheckpointsState> {
  if (!config.checkpoints) return { enabled: false, reason: "checkpoints is false in the config" };
  const dir = checkpointsDir(env);
  if (dir === undefined) {
    return { enabled: false, reason: "neither XDG_STATE_HOME nor HOME names a state directory" };
  }
  const noGit = await gitUnavailable();
  if (noGit !== undefined) return { enabled: false, reason: noGit };
  const headers = (config as { provider_headers?: Record<string, string> }).provider_headers;
  const redactor = new Redactor(
    configSecrets({ api_key_env: config.api_key_env, provider_headers: headers }, env),
  );
  return { enabled: true, dir, redact: (line) => redactor.line(line) };
}

/** The directory of a canonical workspace's shadow repository. */
export async function repoRoot(dir: string, workspace: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(workspace));
  const hex = Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
  return `${dir}/${hex.slice(0, 32)}`;
}

/** The settings a config gives. */
export function checkpointSettings(config: Config): CheckpointSettings {
  return {
    maxFileBytes: config.checkpoint_max_file_bytes,
    maxBytes: config.checkpoint_max_bytes,
  };
}

/** Session `sessionId`'s checkpoints in `workspace`. */
export async function openSessionCheckpoints(
  state: Extract<CheckpointsState, { enabled: true }>,
  workspace: string,
  sessionId: string,
  settings: CheckpointSettings,
): Promise<SessionCheckpoints> {
  const repo = new ShadowRepo(await repoRoot(state.dir, workspace), workspace);
  return new SessionCheckpoints(repo, sessionId, { ...settings, redact: state.redact });
}
