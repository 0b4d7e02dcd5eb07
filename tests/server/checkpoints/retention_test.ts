/**
 * Checkpoints follow their sessions: deleting a session removes its refs, log and index, keeps
 * the other sessions' checkpoints usable, and removes a repository no session uses any more.
 *
 * @module
 */
import { assert, assertEquals } from "../../support/assert.ts";
import { repoRoot } from "../../../server/checkpoints/open.ts";
import { newestIndexTemp, ShadowRepo } from "../../../server/checkpoints/repo.ts";
import {
  checkpointsUsage,
  removeSessionCheckpoints,
} from "../../../server/checkpoints/retention.ts";
import { SessionCheckpoints } from "../../../server/checkpoints/session_checkpoints.ts";
import { SessionStore } from "../../../server/sessions/store.ts";
import { followSessions } from "../../../server/checkpoints/follow_sessions.ts";

const LIMITS = { maxFileBytes: 1 << 20, maxBytes: 1 << 24 };

async function changingTurn(cp: SessionCheckpoints, id: string, path: string) {
  await cp.turnStarted({ id, prompt: id, start: 0, compacted: 0 });
  await cp.beforeChange(id);
  await Deno.writeTextFile(path, id);
  await cp.turnEnded(id);
}

Deno.test("deleting a session removes its checkpoints, and the repository with the last one", async () => {
  const ws = await Deno.realPath(await Deno.makeTempDir({ prefix: "scv-ret-ws-" }));
  const dir = await Deno.makeTempDir({ prefix: "scv-ret-cp-" });
  try {
    const root = await repoRoot(dir, ws);
    const repo = new ShadowRepo(root, ws);
    const [a, b] = [crypto.randomUUID(), crypto.randomUUID()];
    const cpA = new SessionCheckpoints(repo, a, LIMITS);
    const cpB = new SessionCheckpoints(repo, b, LIMITS);
    await changingTurn(cpA, "ta", `${ws}/a.txt`);
    await changingTurn(cpB, "tb", `${ws}/b.txt`);
    assertEquals((await repo.refsUnder(`refs/scv/${a}/`)).length, 2);
    const used = await checkpointsUsage(dir);
    assertEquals(used.workspaces, 1);
    assert(used.bytes > 0);

    // What a crash between writing the newest-index pointer and renaming it leaves.
    const stray = `${root}/index/${newestIndexTemp(a)}`;
    await Deno.writeTextFile(stray, "{");
    await removeSessionCheckpoints(dir, [a], () => {});
    assertEquals(await repo.refsUnder(`refs/scv/${a}/`), []);
    assertEquals(await Deno.lstat(`${root}/index/${a}`).then(() => 1, () => 0), 0);
    assertEquals(await Deno.lstat(stray).then(() => 1, () => 0), 0, "its stray pointer too");
    assertEquals((await repo.refsUnder(`refs/scv/${b}/`)).length, 2);
    assertEquals(await Deno.lstat(`${root}/sessions/${a}.jsonl`).then(() => 1, () => 0), 0);
    // The other session still rewinds.
    const fresh = new SessionCheckpoints(repo, b, LIMITS);
    assertEquals((await fresh.rewindFiles("tb")).removed, ["b.txt"]);

    await removeSessionCheckpoints(dir, [b], () => {});
    assertEquals(await Deno.lstat(root).then(() => 1, () => 0), 0);
    assertEquals(await checkpointsUsage(dir), { workspaces: 0, bytes: 0 });
  } finally {
    await Deno.remove(ws, { recursive: true });
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the session store tells which sessions retention deleted", async () => {
  const dir = await Deno.makeTempDir({ prefix: "scv-ret-store-" });
  try {
    const sessions = `${dir}/sessions`;
    await Deno.mkdir(sessions);
    const id = crypto.randomUUID();
    await Deno.writeTextFile(
      `${sessions}/${id}.jsonl`,
      JSON.stringify({
        t: "header",
        v: 1,
        session_id: id,
        cwd: "/w",
        model: "m",
        approval_policy: "on-risk",
        created_at: "2020-01-01T00:00:00.000Z",
      }) + "\n",
    );
    const told: string[] = [];
    const store = new SessionStore({
      dir: sessions,
      secrets: [],
      retentionDays: 1,
      maxSessions: 10,
      log: () => {},
      onDeleted: (ids) => {
        told.push(...ids);
        return Promise.resolve();
      },
    });
    await store.ready;
    assertEquals(told, [id]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("followSessions removes the deleted sessions' checkpoints under XDG_STATE_HOME", async () => {
  const ws = await Deno.realPath(await Deno.makeTempDir({ prefix: "scv-follow-ws-" }));
  const state = await Deno.makeTempDir({ prefix: "scv-follow-state-" });
  try {
    const dir = `${state}/scv/checkpoints`;
    const root = await repoRoot(dir, ws);
    const id = crypto.randomUUID();
    await changingTurn(
      new SessionCheckpoints(new ShadowRepo(root, ws), id, LIMITS),
      "t",
      `${ws}/a`,
    );
    assert((await Deno.lstat(root)).isDirectory);
    const env = (n: string) => ({ XDG_STATE_HOME: state } as Record<string, string>)[n];
    await followSessions(env, () => {})([id]);
    assertEquals(await Deno.lstat(root).then(() => 1, () => 0), 0);
  } finally {
    await Deno.remove(ws, { recursive: true });
    await Deno.remove(state, { recursive: true });
  }
});
