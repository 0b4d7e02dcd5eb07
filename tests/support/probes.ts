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
