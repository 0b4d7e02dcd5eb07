/**
 * Running git for checkpoints: as scv itself (outside the sandbox), in a clean environment with
 * the user's and the system's git configuration, hooks and credential helpers out of play,
 * against the shadow repository (`GIT_DIR`) and a private index (`GIT_INDEX_FILE`), never the
 * workspace's own `.git`. Output is bounded and every call honours an `AbortSignal`.
 *
 * @module
 */
import { scvPath } from "../core_env.ts";

/** The most stdout one git call may give before it is refused (path lists of big trees). */
export const MAX_GIT_OUTPUT_BYTES = 64 * 1024 * 1024;

/** The most stderr kept for an error message. */
const MAX_STDERR_BYTES = 4096;

/** Where one git call works. */
export interface GitPlace {
  /** The shadow repository (`GIT_DIR`). */
  gitDir: string;
  /** The workspace (`GIT_WORK_TREE`); omitted: none (repository-only commands). */
  workTree?: string;
  /** The private index (`GIT_INDEX_FILE`); omitted: git's default inside `gitDir`. */
  indexFile?: string;
}

/** A git call that failed: the command and git's own message. */
export class GitError extends Error {
  /** Builds the error from the subcommand and what git said. */
  constructor(readonly command: string, readonly exitCode: number, stderr: string) {
    super(`git ${command} failed (exit ${exitCode}): ${stderr.trim() || "no message"}`);
    this.name = "GitError";
  }
}

/**
 * The environment every checkpoint git call gets: nothing of scv's but `PATH`, no user or system
 * configuration, no prompts, literal pathspecs, C locale. `HOME` and `XDG_CONFIG_HOME` point into
 * the shadow repository, so no `~/.gitconfig` or `~/.config/git/*` (ignore, attributes) applies.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { gitEnv } from "./git.ts";
 * const env = gitEnv({ gitDir: "/s/repo", workTree: "/w" });
 * assert.equal(env.GIT_CONFIG_GLOBAL, "/dev/null");
 * assert.equal(env.GIT_WORK_TREE, "/w");
 * assert.equal(env.OPENAI_API_KEY, undefined);
 * ```
 */
export function gitEnv(place: GitPlace): Record<string, string> {
  return {
    PATH: scvPath(),
    HOME: place.gitDir,
    XDG_CONFIG_HOME: `${place.gitDir}/xdg`,
    LC_ALL: "C",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_TERMINAL_PROMPT: "0",
    GIT_LITERAL_PATHSPECS: "1",
    GIT_OPTIONAL_LOCKS: "0",
    GIT_DIR: place.gitDir,
    ...(place.workTree !== undefined ? { GIT_WORK_TREE: place.workTree } : {}),
    ...(place.indexFile !== undefined ? { GIT_INDEX_FILE: place.indexFile } : {}),
  };
}

/** Settings given on every command line, over anything a repository's config could say. */
const FORCED = [
  "-c",
  "core.hooksPath=/dev/null",
  "-c",
  "core.fsmonitor=false",
  "-c",
  "core.autocrlf=false",
  "-c",
  "core.symlinks=true",
  "-c",
  "core.fileMode=true",
  "-c",
  "core.quotePath=false",
  "-c",
  "credential.helper=",
  "-c",
  "maintenance.auto=false",
];

/** Reads a stream to its end, refusing more than `limit` bytes. */
async function readBounded(
  stream: ReadableStream<Uint8Array>,
  limit: number,
  keepHead: boolean,
): Promise<{ bytes: Uint8Array; over: boolean }> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  let over = false;
  for await (const chunk of stream) {
    if (size + chunk.length > limit) {
      over = true;
      if (keepHead && size < limit) chunks.push(chunk.subarray(0, limit - size));
      size = limit;
      continue; // drain, so the child never blocks on a full pipe
    }
    chunks.push(chunk);
    size += chunk.length;
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.length;
  }
  return { bytes, over };
}

/** What {@link runGit} is given besides the arguments. */
export interface GitCall extends GitPlace {
  /** Written to git's stdin, then closed; omitted: no stdin. */
  input?: Uint8Array | string;
  /** Kills git when aborted; the call then rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Exit codes that are not failures besides 0 (`diff --quiet` exits 1 for "differs"). */
  okCodes?: readonly number[];
}

/** A finished git call. */
export interface GitResult {
  code: number;
  stdout: Uint8Array;
}

/**
 * Runs `git ARGS` for a checkpoint. Rejects with a {@link GitError} when git fails, with the
 * signal's reason when aborted (git is killed), and with `Deno.errors.NotFound` when there is no
 * git (or `NotCapable` when scv may not run it).
 */
export async function runGit(args: readonly string[], call: GitCall): Promise<GitResult> {
  call.signal?.throwIfAborted();
  const child = new Deno.Command("git", {
    args: [...FORCED, ...args],
    cwd: call.workTree ?? "/",
    clearEnv: true,
    env: gitEnv(call),
    stdin: call.input !== undefined ? "piped" : "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const kill = () => {
    try {
      child.kill("SIGKILL");
    } catch {
      // already gone
    }
  };
  call.signal?.addEventListener("abort", kill, { once: true });
  try {
    const writing = (async () => {
      if (call.input === undefined || !child.stdin) return;
      const w = child.stdin.getWriter();
      try {
        const data = typeof call.input === "string"
          ? new TextEncoder().encode(call.input)
          : call.input;
        await w.write(data);
        await w.close();
      } catch {
        // git stopped reading (it failed or was killed): its status says why
      }
    })();
    const [out, err, status] = await Promise.all([
      readBounded(child.stdout, MAX_GIT_OUTPUT_BYTES, false),
      readBounded(child.stderr, MAX_STDERR_BYTES, true),
      child.status,
      writing,
    ]);
    call.signal?.throwIfAborted();
    const name = args.find((a) => !a.startsWith("-")) ?? "";
    if (out.over) {
      throw new GitError(name, status.code, `more than ${MAX_GIT_OUTPUT_BYTES} bytes of output`);
    }
    if (status.code !== 0 && !(call.okCodes ?? []).includes(status.code)) {
      throw new GitError(name, status.code, new TextDecoder().decode(err.bytes));
    }
    return { code: status.code, stdout: out.bytes };
  } finally {
    call.signal?.removeEventListener("abort", kill);
  }
}

/** Splits git's `-z` output into its NUL-terminated fields. */
export function nulFields(bytes: Uint8Array): string[] {
  const text = new TextDecoder().decode(bytes);
  const fields = text.split("\0");
  if (fields.at(-1) === "") fields.pop();
  return fields;
}

/** A list of paths as git's `--pathspec-file-nul` stdin. */
export function nulList(paths: readonly string[]): string {
  return paths.map((p) => `${p}\0`).join("");
}
