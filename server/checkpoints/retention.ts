/**
 * Checkpoints follow their sessions: when sessions are deleted (retention, or by hand), their
 * refs, logs and indexes go, git may pack and prune (`git gc --auto`), and a workspace's shadow
 * repository that no session uses any more is removed whole. Also the disk use `scv sessions`
 * reports.
 *
 * @module
 */
import { errorText } from "../error_text.ts";
import { newestIndexTemp, ShadowRepo, treeBytes } from "./repo.ts";

/** The shadow repositories' directories under the checkpoints directory. */
async function roots(dir: string): Promise<string[]> {
  const out: string[] = [];
  try {
    for await (const e of Deno.readDir(dir)) {
      if (e.isDirectory && /^[0-9a-f]{32}$/.test(e.name)) out.push(`${dir}/${e.name}`);
    }
  } catch {
    // no checkpoints directory: nothing kept
  }
  return out;
}

async function exists(path: string): Promise<boolean> {
  return await Deno.lstat(path).then(() => true, () => false);
}

/**
 * Removes the checkpoints of sessions `ids` from every workspace's repository under `dir`.
 * Failures are logged, never thrown: a deletion of sessions must not fail for them.
 */
export async function removeSessionCheckpoints(
  dir: string,
  ids: readonly string[],
  log: (line: string) => void,
): Promise<void> {
  if (ids.length === 0) return;
  for (const root of await roots(dir)) {
    try {
      const mine = [];
      for (const id of ids) if (await exists(`${root}/sessions/${id}.jsonl`)) mine.push(id);
      if (mine.length === 0) continue;
      const workspace = (await Deno.readTextFile(`${root}/workspace`).catch(() => "")).trim();
      const repo = new ShadowRepo(root, workspace || "/");
      for (const id of mine) {
        const refs = await repo.refsUnder(`refs/scv/${id}/`).catch(() => []);
        await repo.updateRefs(refs.map((ref) => ({ ref, sha: null })));
        await Deno.remove(`${root}/sessions/${id}.jsonl`).catch(() => {});
        await Deno.remove(`${root}/index/${id}`).catch(() => {});
        await Deno.remove(`${root}/index/${newestIndexTemp(id)}`).catch(() => {});
      }
      let left = 0;
      for await (const _ of Deno.readDir(`${root}/sessions`)) left++;
      if (left === 0) await Deno.remove(root, { recursive: true });
      else await repo.compact();
    } catch (e) {
      log(`scv: cannot remove checkpoints in ${root}: ${errorText(e)}`);
    }
  }
}

/** What the checkpoints directory holds: workspaces and bytes. */
export async function checkpointsUsage(
  dir: string,
): Promise<{ workspaces: number; bytes: number }> {
  const all = await roots(dir);
  let bytes = 0;
  for (const r of all) bytes += await treeBytes(r);
  return { workspaces: all.length, bytes };
}
