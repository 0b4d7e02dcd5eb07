/**
 * Checkpoints and rewind over the real server and real git: file tools and bash change a
 * workspace, `session.rewind` puts it back byte for byte (modes and symlinks included) without
 * touching the workspace's own `.git` or its ignored files; conversation rewinds reach the next
 * provider request and the resumed session; a rewind is undoable; a killed server's turn can
 * still be rewound.
 *
 * @module
 */
import nodeAssert from "node:assert/strict";
import { assert, assertEquals } from "../../support/assert.ts";
import { text, toolCalls } from "../../support/mock_openai.ts";
import type { Ev, ServerProcess } from "../../support/server_process.ts";
import { startServer, startSession, withRecording, withServer } from "../sessions/support.ts";
import { sh, treeImage } from "./tree.ts";

const CONFIG = { approval_policy: "never", sandbox: "off" } as const;

/** Sends a request and waits for the reply with its request id. */
async function ask(server: ServerProcess, msg: Record<string, unknown>): Promise<Ev> {
  const request_id = `r-${crypto.randomUUID().slice(0, 8)}`;
  await server.send({ ...msg, request_id });
  return await server.next((e) => e.request_id === request_id);
}

function checkpoints(server: ServerProcess, session_id: string): Promise<Ev> {
  return ask(server, { type: "session.checkpoints", session_id });
}

function rewind(
  server: ServerProcess,
  session_id: string,
  turn_id: string,
  what: { files: boolean; conversation: boolean; dry_run?: boolean },
): Promise<Ev> {
  return ask(server, { type: "session.rewind", session_id, turn_id, ...what });
}

/** The tool calls of the changing turn: write_file, edit_file, and bash doing the rest. */
const CHANGES = toolCalls([
  { id: "w", name: "write_file", arguments: { path: "new.txt", content: "hello\n" } },
  {
    id: "e",
    name: "edit_file",
    arguments: { path: "keep.txt", old_string: "keep", new_string: "kept" },
  },
  {
    id: "b",
    name: "bash",
    arguments: {
      command: "sed -i 's/one/ONE/' tracked.txt && rm staged.txt && mv run.sh moved.sh && " +
        "mkdir -p newdir/sub && echo x > newdir/sub/f && rm link && ln -s new.txt link2 && " +
        "chmod +x keep.txt tracked.txt && touch node_modules/pkg/added.js",
    },
  },
]);

/** A real repository with staged, unstaged and stashed changes and hooks that leave a marker. */
async function gitWorkspace(cwd: string, marker: string): Promise<void> {
  await sh(
    cwd,
    `git init -q -b main . && git config user.email t@t && git config user.name t &&
     printf 'one\\ntwo\\n' > tracked.txt && printf 'keep me\\n' > keep.txt &&
     printf '#!/bin/sh\\necho run\\n' > run.sh && chmod 755 run.sh && ln -s keep.txt link &&
     printf 'node_modules/\\n' > .gitignore && mkdir -p node_modules/pkg &&
     echo 'module.exports = 1' > node_modules/pkg/index.js &&
     git add . && git commit -qm init &&
     echo stash-me >> tracked.txt && git stash -q &&
     echo staged > staged.txt && git add staged.txt &&
     echo unstaged >> keep.txt`,
  );
  for (
    const hook of ["post-index-change", "reference-transaction", "post-checkout", "pre-commit"]
  ) {
    const path = `${cwd}/.git/hooks/${hook}`;
    await Deno.writeTextFile(path, `#!/bin/sh\necho ${hook} >> '${marker}'\n`);
    await Deno.chmod(path, 0o755);
  }
}

Deno.test("rewinding files undoes write_file, edit_file and bash, leaving .git and ignored files alone", async () => {
  await withRecording([CHANGES, text("done")], async ({ mock, state, cwd }) => {
    const marker = `${state.home}/hook-ran`;
    await gitWorkspace(cwd, marker);
    const before = await treeImage(cwd, [".git", "node_modules"]);
    const gitBefore = await treeImage(`${cwd}/.git`);
    await withServer(state, mock.baseUrl, async (server) => {
      const started = await startSession(server, cwd);
      assertEquals(started.checkpoints, { enabled: true });
      const id = started.session_id;
      const { t, done } = await server.runTurn(id, "change things");
      assertEquals(done.type, "turn.completed");
      const failed = server.turnEvents(t.turn_id).filter((e) =>
        e.type === "tool.completed" && !e.success
      );
      assertEquals(failed, []);
      const after = await treeImage(cwd, [".git", "node_modules"]);
      nodeAssert.notDeepStrictEqual(after, before);
      const list = await checkpoints(server, id);
      assertEquals(list.type, "session.checkpoints");
      assertEquals(list.turns.length, 1);
      assertEquals(list.turns[0].turn_id, t.turn_id);
      assertEquals(list.turns[0].title, "change things");
      // new.txt, keep.txt, tracked.txt, staged.txt, run.sh, moved.sh, newdir/sub/f, link, link2
      assertEquals(list.turns[0].files_changed, 9);

      const rewound = await rewind(server, id, t.turn_id, { files: true, conversation: false });
      assertEquals(rewound.type, "session.rewound");
      assertEquals(rewound.conversation_turns_removed, 0);
      assertEquals([...rewound.removed].sort(), ["link2", "moved.sh", "new.txt", "newdir/sub/f"]);
      assertEquals(
        [...rewound.restored].sort(),
        ["keep.txt", "link", "run.sh", "staged.txt", "tracked.txt"],
      );
      assertEquals(await treeImage(cwd, [".git", "node_modules"]), before);
      // Ignored: untouched, the file bash added there included.
      assert((await Deno.lstat(`${cwd}/node_modules/pkg/added.js`)).isFile);
      // The workspace's own repository: every byte as it was, and no hook ran.
      assertEquals(await treeImage(`${cwd}/.git`), gitBefore);
      await assertRejectsNotFound(marker);
      assertEquals(
        await sh(cwd, "GIT_OPTIONAL_LOCKS=0 git status --porcelain"),
        " M keep.txt\nA  staged.txt\n",
      );
      assertEquals((await sh(cwd, "git stash list")).split("\n").length, 2);

      // The rewind is a checkpoint of its own: rewinding to it undoes the rewind.
      const again = await checkpoints(server, id);
      assertEquals(again.turns.length, 2);
      assert(again.turns[0].title.startsWith("Rewind to before"), again.turns[0].title);
      const undo = await rewind(server, id, again.turns[0].turn_id, {
        files: true,
        conversation: false,
      });
      assertEquals(undo.type, "session.rewound");
      assertEquals(await treeImage(cwd, [".git", "node_modules"]), after);
      assertEquals(await treeImage(`${cwd}/.git`), gitBefore);
      await assertRejectsNotFound(marker);
      assertEquals(server.schemaErrors, []);
    }, { config: CONFIG });
  });
});

Deno.test("a call the user was asked about snapshots the workspace as it is once approved: an edit made while asked survives the rewind", async () => {
  const script = [
    toolCalls([{ id: "b", name: "bash", arguments: { command: "echo by-the-call > f.txt" } }]),
    text("done"),
  ];
  await withRecording(script, async ({ mock, state, cwd }) => {
    await Deno.writeTextFile(`${cwd}/f.txt`, "as the turn found it\n");
    await withServer(state, mock.baseUrl, async (server) => {
      const id = (await startSession(server, cwd)).session_id;
      const t = await server.startTurn(id, "change f.txt");
      const asked = await server.nextOf("approval.requested");
      // The snapshot started beside the call's preparation has staged f.txt by now (its index
      // exists), and has surely ended a moment later: the edit below comes after it.
      await untilIndexOf(`${state.home}/scv/checkpoints`, id);
      await new Promise((r) => setTimeout(r, 300));
      // The user edits the file while the approval is open, then approves.
      await Deno.writeTextFile(`${cwd}/f.txt`, "edited while asked\n");
      await server.send({
        type: "approval.resolve",
        request_id: "ok",
        session_id: id,
        approval_id: asked.approval_id,
        approved: true,
      });
      assertEquals((await server.terminal(t.turn_id)).type, "turn.completed");
      assertEquals(await Deno.readTextFile(`${cwd}/f.txt`), "by-the-call\n");
      const rewound = await rewind(server, id, t.turn_id, { files: true, conversation: false });
      assertEquals(rewound.type, "session.rewound");
      assertEquals(await Deno.readTextFile(`${cwd}/f.txt`), "edited while asked\n");
    }, { config: { approval_policy: "on-risk", sandbox: "off" } });
  });
});

/** Waits (10 s at most) until a shadow repository under `dir` has session `sid`'s index. */
async function untilIndexOf(dir: string, sid: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const repos = await Array.fromAsync(Deno.readDir(dir)).catch(() => []);
    for (const repo of repos) {
      if (await Deno.lstat(`${dir}/${repo.name}/index/${sid}`).then(() => true, () => false)) {
        return;
      }
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no index of session ${sid} under ${dir}`);
}

async function assertRejectsNotFound(path: string): Promise<void> {
  try {
    await Deno.lstat(path);
  } catch (e) {
    assert(e instanceof Deno.errors.NotFound);
    return;
  }
  throw new Error(`${path} exists: ${await Deno.readTextFile(path)}`);
}

Deno.test("a workspace that is not a git repository is rewound too", async () => {
  const script = [
    toolCalls([
      { id: "w", name: "write_file", arguments: { path: "a/b.txt", content: "b" } },
      { id: "b", name: "bash", arguments: { command: "rm old.txt && echo more >> keep.txt" } },
    ]),
    text("done"),
  ];
  await withRecording(script, async ({ mock, state, cwd }) => {
    await Deno.writeTextFile(`${cwd}/old.txt`, "old\n");
    await Deno.writeTextFile(`${cwd}/keep.txt`, "keep\n");
    const before = await treeImage(cwd);
    await withServer(state, mock.baseUrl, async (server) => {
      const { session_id: id } = await startSession(server, cwd);
      const { t } = await server.runTurn(id, "change");
      const dry = await rewind(server, id, t.turn_id, {
        files: true,
        conversation: false,
        dry_run: true,
      });
      assertEquals(dry.dry_run, true);
      assertEquals(dry.removed, ["a/b.txt"]);
      nodeAssert.notDeepStrictEqual(await treeImage(cwd), before);
      const done = await rewind(server, id, t.turn_id, { files: true, conversation: false });
      assertEquals(done.removed, ["a/b.txt"]);
      assertEquals([...done.restored].sort(), ["keep.txt", "old.txt"]);
      assertEquals(await treeImage(cwd), before);
      await assertRejectsNotFound(`${cwd}/.git`);
    }, { config: CONFIG });
  });
});

Deno.test("rewinding the conversation drops the turns from the next request and the resumed session", async () => {
  const script = [text("one"), text("two"), text("three"), text("four")];
  await withRecording(script, async ({ mock, state, cwd }) => {
    const a = await startServer(state, mock.baseUrl, { config: CONFIG });
    let id: string;
    try {
      id = (await startSession(a, cwd)).session_id;
      await a.runTurn(id, "first prompt");
      const { t: second } = await a.runTurn(id, "second prompt");
      const r = await rewind(a, id, second.turn_id, { files: false, conversation: true });
      assertEquals(r.type, "session.rewound");
      assertEquals(r.conversation_turns_removed, 1);
      await a.runTurn(id, "third prompt");
      const sent = mock.requests[2]!.body.messages.filter((m) => m.role !== "system");
      assertEquals(sent.map((m) => [m.role, m.content]), [
        ["user", "first prompt"],
        ["assistant", "one"],
        ["user", "third prompt"],
      ]);
      // The dropped turn is gone from the checkpoints too; a rewind to it is refused.
      const list = await checkpoints(a, id);
      assertEquals(list.turns.map((x: Ev) => x.title), ["third prompt", "first prompt"]);
      const gone = await rewind(a, id, second.turn_id, { files: false, conversation: true });
      assertEquals(gone.type, "error");
      assertEquals(gone.code, "invalid_request");
      assertEquals(await a.stop(), 0);
    } catch (e) {
      await a.kill();
      throw e;
    }
    await withServer(state, mock.baseUrl, async (b) => {
      assertEquals((await startSession(b, cwd, id)).resumed, true);
      await b.runTurn(id, "fourth prompt");
      const sent = mock.requests[3]!.body.messages.filter((m) => m.role !== "system");
      assertEquals(sent.map((m) => m.content), [
        "first prompt",
        "one",
        "third prompt",
        "three",
        "fourth prompt",
      ]);
    }, { config: CONFIG });
  });
});

/** Names the orphan the kill -9 test leaves, so the test can wait until it is gone. */
const TOKEN = `scv-orphan-${crypto.randomUUID()}`;

/** Pids of processes whose command line holds `needle` (ps: Deno may not read /proc). */
function pidsOf(needle: string): number[] {
  const out = new Deno.Command("ps", { args: ["-eo", "pid,args"], stdout: "piped" }).outputSync();
  return new TextDecoder().decode(out.stdout).split("\n")
    .filter((l) => l.includes(needle))
    .map((l) => Number(l.trim().split(/\s+/)[0]))
    .filter((pid) => pid > 0 && pid !== Deno.pid);
}

Deno.test("a server killed during a turn leaves a checkpoint the resumed session rewinds", async () => {
  const script = [
    toolCalls([{
      id: "b",
      name: "bash",
      arguments: {
        command: "echo made > made.txt; rm gone.txt; " +
          `for i in $(seq 600); do [ -e stop ] && break; sleep 0.1; done # ${TOKEN}`,
      },
    }]),
  ];
  await withRecording(script, async ({ mock, state, cwd }) => {
    await Deno.writeTextFile(`${cwd}/gone.txt`, "gone\n");
    const before = await treeImage(cwd);
    const a = await startServer(state, mock.baseUrl, { config: CONFIG });
    let id: string;
    try {
      id = (await startSession(a, cwd)).session_id;
      const t = await a.startTurn(id, "make and wait");
      await a.next((e) => e.type === "tool.started" && e.turn_id === t.turn_id);
      // The command has run its first steps once made.txt exists and gone.txt does not.
      for (let i = 0; i < 600; i++) {
        const made = await Deno.lstat(`${cwd}/made.txt`).then(() => true, () => false);
        const gone = await Deno.lstat(`${cwd}/gone.txt`).then(() => false, () => true);
        if (made && gone) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      a.child.kill("SIGKILL");
      await a.exited();
    } finally {
      await a.kill();
      // The orphaned command ends by itself once it sees this.
      await Deno.writeTextFile(`${cwd}/stop`, "");
      for (let i = 0; i < 200 && pidsOf(TOKEN).length > 0; i++) {
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    assertEquals(pidsOf(TOKEN), []);
    await Deno.remove(`${cwd}/stop`);
    await withServer(state, mock.baseUrl, async (b) => {
      assertEquals((await startSession(b, cwd, id)).resumed, true);
      const list = await checkpoints(b, id);
      assertEquals(list.turns.length, 1);
      assertEquals(list.turns[0].files_changed, 2);
      const r = await rewind(b, id, list.turns[0].turn_id, { files: true, conversation: true });
      assertEquals(r.type, "session.rewound");
      assertEquals(r.removed, ["made.txt"]);
      assertEquals(r.restored, ["gone.txt"]);
      assertEquals(r.conversation_turns_removed, 1);
      assertEquals(await treeImage(cwd), before);
    }, { config: CONFIG });
  });
});

Deno.test("a rewind while a turn runs is turn_active, and of an unknown turn invalid_request", async () => {
  await withRecording([text("one")], async ({ mock, state, cwd }) => {
    await withServer(state, mock.baseUrl, async (server) => {
      const { session_id: id } = await startSession(server, cwd);
      const unknown = await rewind(server, id, "nope", { files: true, conversation: false });
      assertEquals(unknown.code, "invalid_request");
      assertEquals(unknown.message, 'turn "nope" has no checkpoint in this session');
      const { t } = await server.runTurn(id, "hi");
      const neither = await rewind(server, id, t.turn_id, { files: false, conversation: false });
      assertEquals(neither.code, "invalid_request");
    }, { config: CONFIG });
  });
});

Deno.test("without git on PATH checkpoints are off and session.started says why", async () => {
  await withRecording([text("one")], async ({ mock, state, cwd }) => {
    await withServer(state, mock.baseUrl, async (server) => {
      const started = await startSession(server, cwd);
      assertEquals(started.checkpoints, { enabled: false, reason: "git is not on PATH" });
      const list = await checkpoints(server, started.session_id);
      assertEquals(list.code, "invalid_request");
      assertEquals(list.message, "checkpoints are off: git is not on PATH");
    }, { config: CONFIG, env: { PATH: "/nonexistent" } });
  });
});
