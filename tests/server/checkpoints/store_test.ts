/**
 * The checkpoint store in-process, over real git: bounds (file size, snapshot size, time, the
 * number of checkpoints), what a snapshot leaves out, and the pure planning and log folding.
 *
 * @module
 */
import { assert, assertEquals } from "../../support/assert.ts";
import { planRestore, planSnapshot } from "../../../server/checkpoints/changes.ts";
import { gitEnv, runGit } from "../../../server/checkpoints/git.ts";
import { NEWEST_INDEX, ShadowRepo, TREE_TAKEOVER_MS } from "../../../server/checkpoints/repo.ts";
import { SessionCheckpoints } from "../../../server/checkpoints/session_checkpoints.ts";
import {
  encodeLogRecord,
  foldLog,
  MAX_CHECKPOINTS,
  rewindTarget,
} from "../../../server/checkpoints/turn_log.ts";
import { sh, treeImage } from "./tree.ts";

const LIMITS = { maxFileBytes: 1024, maxBytes: 1 << 20 };

async function withDirs(fn: (ws: string, state: string) => Promise<void>): Promise<void> {
  const ws = await Deno.realPath(await Deno.makeTempDir({ prefix: "scv-cp-ws-" }));
  const state = await Deno.makeTempDir({ prefix: "scv-cp-state-" });
  try {
    await fn(ws, state);
  } finally {
    await Deno.remove(ws, { recursive: true });
    await Deno.remove(state, { recursive: true });
  }
}

function session(ws: string, state: string, settings = LIMITS, sid: string = crypto.randomUUID()) {
  return new SessionCheckpoints(new ShadowRepo(`${state}/repo`, ws), sid, settings);
}

/** One turn that runs `change` after its "before" snapshot; returns its notices. */
async function turn(cp: SessionCheckpoints, id: string, change: () => Promise<void>) {
  await cp.turnStarted({ id, prompt: id, start: 0, compacted: 0 });
  const before = await cp.beforeChange(id);
  await change();
  const after = await cp.turnEnded(id);
  return [...before, ...after];
}

Deno.test("a file one byte over checkpoint_max_file_bytes is left out with a notice and left alone", async () => {
  await withDirs(async (ws, state) => {
    await Deno.writeTextFile(`${ws}/fits`, "x".repeat(1024));
    await Deno.writeTextFile(`${ws}/big`, "x".repeat(1025));
    const cp = session(ws, state);
    const notices = await turn(cp, "t1", async () => {
      await Deno.writeTextFile(`${ws}/fits`, "changed");
      await Deno.writeTextFile(`${ws}/big`, "y".repeat(2000));
    });
    assertEquals(notices.length, 1);
    assert(notices[0]!.includes("checkpoint_max_file_bytes (1024)"), notices[0]);
    assert(notices[0]!.includes("big"), notices[0]);
    const done = await cp.rewindFiles("t1");
    assertEquals(done, { restored: ["fits"], removed: [] });
    assertEquals(await Deno.readTextFile(`${ws}/fits`), "x".repeat(1024));
    assertEquals(await Deno.readTextFile(`${ws}/big`), "y".repeat(2000));
  });
});

Deno.test("a snapshot one byte over checkpoint_max_bytes is skipped with a notice, and its turn cannot be rewound", async () => {
  await withDirs(async (ws, state) => {
    await Deno.writeTextFile(`${ws}/a`, "x".repeat(600));
    await Deno.writeTextFile(`${ws}/b`, "x".repeat(401));
    const cp = session(ws, state, { maxFileBytes: 1024, maxBytes: 1000 });
    const notices = await turn(cp, "t1", async () => {});
    assertEquals(notices.length, 1);
    assert(notices[0]!.includes("1001 bytes"), notices[0]);
    assert(notices[0]!.includes("checkpoint_max_bytes (1000)"), notices[0]);
    let message = "";
    await cp.rewindFiles("t1").catch((e) => (message = e.message));
    assert(message.includes("snapshot was skipped"), message);
    // At the limit it is taken.
    await Deno.writeTextFile(`${ws}/b`, "x".repeat(400));
    assertEquals(await turn(cp, "t2", async () => {}), []);
  });
});

Deno.test("a snapshot over its time limit is skipped with a notice and finishes in the background", async () => {
  await withDirs(async (ws, state) => {
    for (let i = 0; i < 200; i++) await Deno.writeTextFile(`${ws}/f${i}`, `${i}`);
    const sid = crypto.randomUUID();
    const slow = session(ws, state, { ...LIMITS, timeoutMs: 1 } as typeof LIMITS, sid);
    const notices = await turn(slow, "t1", async () => {});
    assertEquals(notices.length, 1);
    assert(notices[0]!.includes("took longer than 0.001 s"), notices[0]);
    assert(notices[0]!.includes("goes on in the background"), notices[0]);
    let message = "";
    await slow.rewindFiles("t1").catch((e) => (message = e.message));
    assert(message.includes("snapshot was skipped"), message);
    await slow.settled();
    // The background snapshot filled the index and left no lock behind.
    assert((await Deno.lstat(`${state}/repo/index/${sid}`)).isFile);
    for await (const e of Deno.readDir(`${state}/repo/index`)) {
      assert(!e.name.endsWith(".lock"), e.name);
    }
    // So the next one, with time enough, is taken.
    const ok = session(ws, state, LIMITS, sid);
    assertEquals(await turn(ok, "t2", async () => {}), []);
  });
});

Deno.test("the closing snapshot started when the calls end is taken before the turn ends, and is the turn's", async () => {
  await withDirs(async (ws, state) => {
    const cp = session(ws, state);
    await cp.turnStarted({ id: "t1", prompt: "t1", start: 0, compacted: 0 });
    await cp.beforeChange("t1");
    await Deno.writeTextFile(`${ws}/a`, "by the call");
    cp.callsEnded("t1");
    // find() waits for what was queued before it: the early snapshot is in, the turn not ended.
    const early = await cp.find("t1");
    assert(early?.after !== undefined, "the after snapshot is taken once the calls ended");
    assertEquals(early.files, 1);
    assertEquals(await cp.turnEnded("t1"), []);
    assertEquals((await cp.find("t1"))?.after, early.after);
    assertEquals(await cp.rewindFiles("t1"), { restored: [], removed: ["a"] });
  });
});

Deno.test("a call that may change files after the early closing snapshot voids it: the turn's end takes its own", async () => {
  await withDirs(async (ws, state) => {
    for (let i = 0; i < 3; i++) await Deno.writeTextFile(`${ws}/f${i}`, `${i}`);
    const cp = session(ws, state);
    await cp.turnStarted({ id: "t1", prompt: "t1", start: 0, compacted: 0 });
    await cp.beforeChange("t1");
    await Deno.writeTextFile(`${ws}/a`, "first call");
    cp.callsEnded("t1");
    assertEquals((await cp.find("t1"))?.files, 1, "the early snapshot is in");
    assertEquals(await cp.beforeChange("t1"), []);
    await Deno.writeTextFile(`${ws}/b`, "second call");
    await Deno.writeTextFile(`${ws}/f0`, "changed");
    assertEquals(await cp.turnEnded("t1"), []);
    assertEquals((await cp.find("t1"))?.files, 3);
    assertEquals(await cp.rewindFiles("t1"), { restored: ["f0"], removed: ["a", "b"] });
    assertEquals(await Deno.readTextFile(`${ws}/f0`), "0");
    // A read-only step (no beforeChange) between two ends of calls keeps the early snapshot.
    await cp.turnStarted({ id: "t2", prompt: "t2", start: 0, compacted: 0 });
    await cp.beforeChange("t2");
    await Deno.writeTextFile(`${ws}/c`, "t2");
    cp.callsEnded("t2");
    const first = (await cp.find("t2"))?.after;
    cp.callsEnded("t2");
    assertEquals(await cp.turnEnded("t2"), []);
    assertEquals((await cp.find("t2"))?.after, first);
  });
});

Deno.test("the before snapshot started ahead of its call is the one taken; one not taken is dropped and records nothing", async () => {
  await withDirs(async (ws, state) => {
    await Deno.writeTextFile(`${ws}/f`, "as the turn found it");
    const cp = session(ws, state);
    await cp.turnStarted({ id: "t1", prompt: "t1", start: 0, compacted: 0 });
    cp.beforeAhead("t1");
    // find() runs after what was queued before it: the snapshot started ahead has been taken.
    await cp.find("t1");
    // A change after the snapshot began (a call runs only after beforeChange, so this stands
    // for time passing) is not in it when the call takes it...
    await Deno.writeTextFile(`${ws}/f`, "while the call was made ready");
    assertEquals(await cp.beforeChange("t1", undefined, true), []);
    await Deno.writeTextFile(`${ws}/f`, "by the call");
    assertEquals(await cp.turnEnded("t1"), []);
    assertEquals(await cp.rewindFiles("t1"), { restored: ["f"], removed: [] });
    assertEquals(await Deno.readTextFile(`${ws}/f`), "as the turn found it");

    // ...while a call whose user was asked (no ahead) drops it and takes the workspace as it
    // is when the call runs.
    await cp.turnStarted({ id: "t2", prompt: "t2", start: 0, compacted: 0 });
    cp.beforeAhead("t2");
    await cp.find("t2");
    await Deno.writeTextFile(`${ws}/f`, "edited by the user while asked");
    assertEquals(await cp.beforeChange("t2"), []);
    await Deno.writeTextFile(`${ws}/f`, "by the call");
    assertEquals(await cp.turnEnded("t2"), []);
    await cp.rewindFiles("t2");
    assertEquals(await Deno.readTextFile(`${ws}/f`), "edited by the user while asked");

    // A call that never ran: its snapshot is dropped, no before is recorded, the end takes none.
    await cp.turnStarted({ id: "t3", prompt: "t3", start: 0, compacted: 0 });
    cp.beforeAhead("t3");
    await cp.dropAhead("t3");
    assertEquals(await cp.turnEnded("t3"), []);
    const t3 = await cp.find("t3");
    assertEquals([t3?.before, t3?.after], [undefined, undefined]);
    // And a later beforeAhead of a turn that tried its snapshot starts nothing.
    cp.beforeAhead("t1");
    assertEquals(await cp.beforeChange("t1", undefined, true), []);
  });
});

/**
 * Runs `fn` with a git on PATH that logs its subcommands (`calls()` returns and clears them),
 * so a test sees which ran.
 */
async function withLoggedGit(
  state: string,
  fn: (calls: () => Promise<string[]>) => Promise<void>,
): Promise<void> {
  const real = (Deno.env.get("PATH") ?? "").split(":").map((d) => `${d}/git`).find((p) => {
    try {
      return Deno.statSync(p).isFile;
    } catch {
      return false;
    }
  });
  assert(real !== undefined, "git on PATH");
  const bin = `${state}/bin`;
  await Deno.mkdir(bin);
  await Deno.writeTextFile(
    `${bin}/git`,
    `#!/bin/sh\nfor a; do case "$a" in -*|*=*) ;; *) echo "$a" >> "${state}/calls"; break;; esac; done\nexec ${real} "$@"\n`,
    { mode: 0o755 },
  );
  const path = Deno.env.get("PATH")!;
  Deno.env.set("PATH", `${bin}:${path}`);
  const calls = async () => {
    const text = await Deno.readTextFile(`${state}/calls`).catch(() => "");
    await Deno.remove(`${state}/calls`).catch(() => {});
    return text.split("\n").filter((l) => l !== "" && l !== "core.hooksPath=/dev/null");
  };
  try {
    await fn(calls);
  } finally {
    Deno.env.set("PATH", path);
  }
}

Deno.test("a snapshot with nothing staged since this process wrote the index's tree runs no write-tree, unless the index was replaced", async () => {
  await withDirs(async (ws, state) => {
    await withLoggedGit(state, async (calls) => {
      await Deno.writeTextFile(`${ws}/a`, "one");
      const repo = new ShadowRepo(`${state}/repo`, ws);
      const index = `${state}/index`;
      const first = await repo.snapshot(index, LIMITS);
      assert((await calls()).includes("write-tree"));
      const same = await repo.snapshot(index, LIMITS);
      assertEquals(same, first);
      assertEquals((await calls()).includes("write-tree"), false, "nothing staged: no write-tree");
      await Deno.writeTextFile(`${ws}/a`, "two");
      const changed = await repo.snapshot(index, LIMITS);
      assert(changed.kind === "taken" && first.kind === "taken" && changed.tree !== first.tree);
      assert((await calls()).includes("write-tree"));
      // An index replaced by someone else (a copy: another inode) gets its own write-tree.
      await Deno.copyFile(index, `${index}.copy`);
      await Deno.rename(`${index}.copy`, index);
      assertEquals(await repo.snapshot(index, LIMITS), changed);
      assert((await calls()).includes("write-tree"), "a replaced index is asked again");
    });
  });
});

Deno.test("a new session's first index is the one the newest snapshot named, with its tree: no listing of the others, no write-tree while nothing changed", async () => {
  await withDirs(async (ws, state) => {
    await withLoggedGit(state, async (calls) => {
      await Deno.writeTextFile(`${ws}/a`, "one");
      const first = session(ws, state, LIMITS, "s-first");
      assertEquals(await turn(first, "t1", () => Promise.resolve()), []);
      const dir = `${state}/repo/index`;
      const pointer = () => Deno.readTextFile(`${dir}/${NEWEST_INDEX}`).then(JSON.parse);
      assertEquals((await pointer()).sid, "s-first");
      // Newer than the named index but not an index: listing the directory would take it.
      await Deno.writeTextFile(`${dir}/zz-decoy`, "not an index");
      await calls();
      // Each session a new repository object: another process, which knows no tree yet.
      const second = session(ws, state, LIMITS, "s-second");
      assertEquals(await turn(second, "t1", () => Promise.resolve()), []);
      assertEquals((await calls()).includes("write-tree"), false, "the named tree was taken");
      assertEquals((await pointer()).sid, "s-second");
      // Another turn that changes nothing: the pointer already says it, and is not written again.
      const ino = (await Deno.stat(`${dir}/${NEWEST_INDEX}`)).ino;
      assertEquals(await turn(second, "t2", () => Promise.resolve()), []);
      assertEquals((await Deno.stat(`${dir}/${NEWEST_INDEX}`)).ino, ino);
      await Deno.writeTextFile(`${ws}/a`, "two");
      const third = session(ws, state, LIMITS, "s-third");
      assertEquals(await turn(third, "t1", () => Deno.writeTextFile(`${ws}/a`, "three")), []);
      assert((await calls()).includes("write-tree"), "a change staged: a tree of its own");
      assertEquals(await third.rewindFiles("t1"), { restored: ["a"], removed: [] });
      assertEquals(await Deno.readTextFile(`${ws}/a`), "two");
      await Deno.remove(`${dir}/zz-decoy`);
      // A tree made longer ago than TREE_TAKEOVER_MS, an index changed since it was named, a
      // torn pointer: git makes the tree again.
      const old = await pointer();
      await Deno.writeTextFile(
        `${dir}/${NEWEST_INDEX}`,
        JSON.stringify({ ...old, at: Date.now() - TREE_TAKEOVER_MS - 1 }),
      );
      await calls();
      assertEquals(
        await turn(session(ws, state, LIMITS, "s-late"), "t1", () => Promise.resolve()),
        [],
      );
      assert((await calls()).includes("write-tree"), "too old to take over");
      const named = await pointer();
      await Deno.writeFile(`${dir}/${named.sid}`, await Deno.readFile(`${dir}/${named.sid}`));
      await calls();
      assertEquals(
        await turn(session(ws, state, LIMITS, "s-touched"), "t1", () => Promise.resolve()),
        [],
      );
      assert((await calls()).includes("write-tree"), "the index changed since");
      // A pointer past its size bound is not read (this one would be whole and fresh otherwise).
      const whole = await pointer();
      await Deno.writeTextFile(
        `${dir}/${NEWEST_INDEX}`,
        JSON.stringify({ ...whole, at: Date.now(), pad: "x".repeat(5000) }),
      );
      await calls();
      assertEquals(
        await turn(session(ws, state, LIMITS, "s-padded"), "t1", () => Promise.resolve()),
        [],
      );
      assert((await calls()).includes("write-tree"), "oversized: the directory is listed");
      // A pointer naming a path, not a session's index, is not followed out of the directory.
      await Deno.writeTextFile(
        `${dir}/${NEWEST_INDEX}`,
        JSON.stringify({ ...whole, sid: "../git/HEAD", at: Date.now() }),
      );
      await calls();
      assertEquals(
        await turn(session(ws, state, LIMITS, "s-pathed"), "t1", () => Promise.resolve()),
        [],
      );
      assert((await calls()).includes("write-tree"), "a path: the directory is listed");
      await Deno.writeTextFile(`${dir}/${NEWEST_INDEX}`, "{");
      await calls();
      assertEquals(
        await turn(session(ws, state, LIMITS, "s-torn"), "t1", () => Promise.resolve()),
        [],
      );
      assert((await calls()).includes("write-tree"), "torn: the directory is listed");
      assertEquals((await pointer()).sid, "s-torn", "and the pointer is whole again");
    });
  });
});

Deno.test("one ref is written without git, as git writes it: git reads it over a packed one, deletes it, and a held lock or an odd name falls back", async () => {
  await withDirs(async (ws, state) => {
    await Deno.writeTextFile(`${ws}/a`, "one");
    const repo = new ShadowRepo(`${state}/repo`, ws);
    const index = `${state}/index`;
    const first = await repo.snapshot(index, LIMITS);
    await Deno.writeTextFile(`${ws}/a`, "two");
    const second = await repo.snapshot(index, LIMITS);
    assert(first.kind === "taken" && second.kind === "taken" && first.tree !== second.tree);
    const git = (args: string[]) =>
      runGit(args, { gitDir: repo.gitDir }).then((o) => new TextDecoder().decode(o.stdout).trim());
    const ref = "refs/scv/s1/t1/before";
    await withLoggedGit(state, async (calls) => {
      await repo.updateRefs([{ ref, sha: first.tree }]);
      assertEquals(await calls(), [], "no git process");
      assertEquals(await git(["rev-parse", ref]), first.tree);
      // Packed, then written again: the loose ref is the one git reads.
      await git(["pack-refs", "--all"]);
      await calls();
      await repo.updateRefs([{ ref, sha: second.tree }]);
      assertEquals(await calls(), []);
      assertEquals(await git(["rev-parse", ref]), second.tree);
      assertEquals(await git(["for-each-ref", "--format=%(objectname)", "refs/scv/"]), second.tree);
      // A lock another writer holds: git is asked, and refuses, as it would have.
      await Deno.writeTextFile(`${repo.gitDir}/${ref}.lock`, "");
      let refused = "";
      await repo.updateRefs([{ ref, sha: first.tree }]).catch((e) => (refused = String(e)));
      assert((await calls()).includes("update-ref"), "git was asked");
      assert(refused !== "", "a held lock is not written through");
      assertEquals(await git(["rev-parse", ref]), second.tree);
      await Deno.remove(`${repo.gitDir}/${ref}.lock`);
      // Not a plain name: git decides.
      const odd = "refs/scv/s1/../t1";
      await repo.updateRefs([{ ref: odd, sha: first.tree }]).catch(() => {});
      assert((await calls()).includes("update-ref"));
      assertEquals(await Deno.lstat(`${repo.gitDir}/refs/scv/t1`).then(() => 1, () => 0), 0);
      // Deleted through git: gone, packed and loose.
      await repo.updateRefs([{ ref, sha: null }]);
      assertEquals(await repo.refsUnder("refs/scv/"), []);
    });
  });
});

Deno.test("a session keeps at most MAX_CHECKPOINTS checkpoints, forgetting the oldest and their refs", async () => {
  await withDirs(async (ws, state) => {
    const sid = crypto.randomUUID();
    const cp = session(ws, state, LIMITS, sid);
    await turn(cp, "first", async () => await Deno.writeTextFile(`${ws}/a`, "1"));
    for (let i = 0; i < MAX_CHECKPOINTS; i++) {
      await cp.turnStarted({ id: `t${i}`, prompt: "p", start: 0, compacted: 0 });
    }
    const list = await cp.list();
    assertEquals(list.length, MAX_CHECKPOINTS);
    assert(!list.some((c) => c.turn_id === "first"));
    const repo = new ShadowRepo(`${state}/repo`, ws);
    assertEquals(await repo.refsUnder(`refs/scv/${sid}/`), []);
    // A new process reads the same bounded list back.
    assertEquals((await session(ws, state, LIMITS, sid).list()).length, MAX_CHECKPOINTS);
  });
});

Deno.test("snapshots never write the workspace's .git and honour its .gitignore", async () => {
  await withDirs(async (ws, state) => {
    await sh(
      ws,
      "git init -q . && printf 'ignored/\\n' > .gitignore && mkdir ignored && echo i > ignored/f && " +
        "echo a > a && git add a && echo b > b",
    );
    const gitBefore = await treeImage(`${ws}/.git`);
    const sid = crypto.randomUUID();
    const cp = session(ws, state, LIMITS, sid);
    await turn(cp, "t1", async () => {
      await Deno.writeTextFile(`${ws}/a`, "changed");
      await Deno.writeTextFile(`${ws}/ignored/new`, "n");
    });
    const out = await runGit(["ls-tree", "-r", "--name-only", `refs/scv/${sid}/t1/after`], {
      gitDir: `${state}/repo/git`,
    });
    assertEquals(new TextDecoder().decode(out.stdout), ".gitignore\na\nb\n");
    const list = await cp.list();
    assertEquals(list[0]!.files_changed, 1);
    await cp.rewindFiles("t1");
    assertEquals(await treeImage(`${ws}/.git`), gitBefore);
    assertEquals(await Deno.readTextFile(`${ws}/ignored/new`), "n");
  });
});

Deno.test("git runs with no user or system config and no scv secrets in its environment", () => {
  const env = gitEnv({ gitDir: "/s", workTree: "/w", indexFile: "/s/i" });
  assertEquals(env.GIT_CONFIG_NOSYSTEM, "1");
  assertEquals(env.GIT_CONFIG_GLOBAL, "/dev/null");
  assertEquals(env.HOME, "/s");
  assertEquals(
    Object.keys(env).sort(),
    [
      "GIT_CONFIG_GLOBAL",
      "GIT_CONFIG_NOSYSTEM",
      "GIT_DIR",
      "GIT_INDEX_FILE",
      "GIT_LITERAL_PATHSPECS",
      "GIT_OPTIONAL_LOCKS",
      "GIT_TERMINAL_PROMPT",
      "GIT_WORK_TREE",
      "HOME",
      "LC_ALL",
      "PATH",
      "XDG_CONFIG_HOME",
    ],
  );
});

Deno.test("a snapshot plan stages new, changed and deleted paths and untracks what no longer fits", () => {
  const plan = planSnapshot([
    { path: "new", tracked: false, kind: "file", size: 5 },
    { path: "link", tracked: false, kind: "symlink", size: 3 },
    { path: "gone", tracked: true, kind: "missing", size: 0 },
    { path: "never", tracked: false, kind: "missing", size: 0 },
    { path: "fifo", tracked: true, kind: "other", size: 0 },
    { path: "huge", tracked: false, kind: "file", size: 11 },
  ], { maxFileBytes: 10, maxBytes: 8 });
  assertEquals(plan.add, ["new", "link", "gone"]);
  assertEquals(plan.untrack, ["fifo"]);
  assertEquals(plan.oversized, ["huge"]);
  assertEquals(plan.bytes, 8);
  assertEquals(plan.overTotal, false);
});

Deno.test("a restore plan removes what only the current snapshot has and restores the rest", () => {
  const z = [
    ":100644 100644 a b M",
    "changed",
    ":100644 000000 a 0 D",
    "created",
    ":000000 120000 0 c A",
    "deleted-link",
    ":100644 100755 a a M",
    "mode",
  ];
  assertEquals(planRestore(z), {
    restore: ["changed", "deleted-link", "mode"],
    remove: ["created"],
  });
});

Deno.test("a rewind to a turn that changed nothing uses the next turn's snapshot, and a skipped one on the way refuses", () => {
  const c = (id: string, extra: Record<string, string> = {}) => ({
    id,
    kind: "turn" as const,
    title: id,
    at: "",
    start: 0,
    compacted: 0,
    ...extra,
  });
  assertEquals(rewindTarget([c("a"), c("b", { before: "B" })], "a"), { kind: "tree", tree: "B" });
  const skipped = rewindTarget(
    [c("a"), c("b", { skipped: "too big" }), c("c", { before: "C" })],
    "a",
  );
  assertEquals(skipped.kind, "error");
  assert(skipped.kind === "error" && skipped.message.includes('turn "b"\'s snapshot was skipped'));
});

Deno.test("the checkpoint log skips torn lines and forgets dropped turns", () => {
  const text = [
    encodeLogRecord({
      t: "turn",
      id: "a",
      title: "A",
      at: "1",
      start: 0,
      compacted: 0,
      prompt: "p",
    }),
    encodeLogRecord({
      t: "turn",
      id: "b",
      title: "B",
      at: "2",
      start: 2,
      compacted: 0,
      prompt: "q",
    }),
    '{"t":"before","id":"b"',
    "\n",
    encodeLogRecord({ t: "drop", ids: ["b"] }),
    '{"t":"turn","id":',
  ].join("");
  const folded = foldLog(text);
  assertEquals(folded.checkpoints.map((c) => c.id), ["a"]);
  assertEquals(folded.forgotten, ["b"]);
});

Deno.test("the packs snapshots add are merged by git gc once there are more than 50", async () => {
  await withDirs(async (ws, state) => {
    const cp = session(ws, state);
    const repo = new ShadowRepo(`${state}/repo`, ws);
    let most = 0;
    for (let i = 0; i < 30; i++) {
      await turn(cp, `t${i}`, async () => await Deno.writeTextFile(`${ws}/f`, `${i}`));
      most = Math.max(most, await repo.packs());
    }
    // Two packs a turn: 60 without the merge.
    assert(most <= 51, `${most} packs`);
    assert(await repo.packs() < 50);
    // Every snapshot is still there: the first turn rewinds.
    assertEquals((await cp.rewindFiles("t0")).removed, ["f"]);
  });
});
