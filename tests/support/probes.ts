/**
 * Small probes of the machine's state for assertions: running processes and files.
 *
 * @module
 */

/** The `ps` lines (pid and command line) of processes whose command line contains `marker`. */
export async function processesWith(marker: string): Promise<string[]> {
  const out = await new Deno.Command("ps", { args: ["-eo", "pid,args"], stdout: "piped" }).output();
  return new TextDecoder().decode(out.stdout).split("\n").filter((l) =>
    l.includes(marker) && !l.includes("ps -eo")
  );
}

/** Whether anything exists at `path` (a dangling symlink counts). */
export async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * Waits until `check` holds, polling it; fails naming `what` after `timeoutMs` (generous, for
 * loaded machines). For waiting on a condition instead of sleeping a guessed time.
 */
export async function until(
  check: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 30_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) {
      throw new Error(`Timed out after ${timeoutMs} ms waiting until ${what}`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * Whether a process with this pid exists and is not a zombie, asking `ps`: Deno lets only
 * `--allow-all` read `/proc/<pid>/*` (under `deno task test`'s flags such a read throws, which
 * would make every process look gone), while `--allow-run` may run `ps`.
 */
export function aliveNow(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  const out = new Deno.Command("ps", {
    args: ["-o", "stat=", "-p", String(pid)],
    stdout: "piped",
    stderr: "null",
  }).outputSync();
  const state = new TextDecoder().decode(out.stdout).trim();
  return state !== "" && !state.startsWith("Z") && !state.startsWith("X");
}

/** {@link aliveNow}, for `await` call sites. */
export function alive(pid: number): Promise<boolean> {
  return Promise.resolve(aliveNow(pid));
}

/**
 * Host pids of live processes whose command line is exactly `args` joined by spaces (what `ps`
 * shows), zombies left out; through `ps` for the reason {@link aliveNow} gives.
 */
export function pidsRunning(args: readonly string[]): number[] {
  const want = args.join(" ");
  const out = new Deno.Command("ps", {
    args: ["-eo", "pid=,stat=,args="],
    stdout: "piped",
    stderr: "null",
  }).outputSync();
  const pids: number[] = [];
  for (const line of new TextDecoder().decode(out.stdout).split("\n")) {
    const m = /^\s*(\d+)\s+(\S+)\s+(.*)$/.exec(line);
    if (m && m[3] === want && !m[2]!.startsWith("Z")) pids.push(Number(m[1]));
  }
  return pids;
}
