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

/** Whether a process with this pid exists and is not a zombie. */
export async function alive(pid: number): Promise<boolean> {
  try {
    const stat = await Deno.readTextFile(`/proc/${pid}/stat`);
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    return state !== "Z" && state !== "X";
  } catch {
    return false;
  }
}
