/**
 * The sandbox over the real server (CONTRACT.md "The permission-scoped tool runner"): bash
 * calls run in bubblewrap under `deno task server`'s flags and `approval_policy: "auto"`.
 * Needs bwrap (CI installs bubblewrap).
 */
import assert from "node:assert/strict";
import { eventually, FAKE_KEY, hostDir, sandboxTest, withBashServer } from "./support.ts";
import { processesWith } from "../../support/probes.ts";

async function exists(p: string): Promise<boolean> {
  return await Deno.lstat(p).then(() => true, () => false);
}

sandboxTest(
  "session.started reports the workspace-write sandbox without network, and auto runs bash unasked as sandboxed",
  async () => {
    await withBashServer("echo hi", {}, ({ sessionStarted, approval, completed }) => {
      assert.deepEqual(sessionStarted.sandbox, { mode: "workspace-write", network: false });
      assert.equal(approval, undefined, "auto asked for a sandboxed bash call");
      assert.equal(completed.output, "hi\n");
    });
  },
);

sandboxTest("approval.requested for bash carries sandboxed: true under on-risk", async () => {
  await withBashServer("echo hi", { config: { approval_policy: "on-risk" } }, (run) => {
    assert.equal(run.approval?.sandboxed, true);
    assert.equal(run.completed.success, true);
  });
});

sandboxTest(
  "a sandboxed command cannot write outside the workspace, the file is not created, and the output says which rule applied",
  async () => {
    const outside = await hostDir("scv-sbx-outside-");
    try {
      await withBashServer(`echo pwned > ${outside}/escape.txt`, {}, async ({ completed }) => {
        assert.equal(completed.success, false);
        assert.match(completed.output, /Read-only file system/);
        const last = completed.output.split("\n").at(-1)!;
        assert.match(last, /^\[sandbox: .*"sandbox_writable_roots"/);
        assert.equal(await exists(`${outside}/escape.txt`), false);
      });
    } finally {
      await Deno.remove(outside, { recursive: true });
    }
  },
);

sandboxTest("a sandboxed command cannot plant a git hook in .git/hooks", async () => {
  const ws = await hostDir("scv-sbx-git-");
  try {
    await new Deno.Command("git", { args: ["init", "-q", ws] }).output();
    await withBashServer(
      "printf '#!/bin/sh\\necho owned\\n' > .git/hooks/pre-commit",
      { workspace: ws },
      async ({ completed }) => {
        assert.equal(completed.success, false);
        assert.match(completed.output, /\[sandbox: \.git\/hooks and \.git\/config are read-only/);
        assert.equal(await exists(`${ws}/.git/hooks/pre-commit`), false);
      },
    );
  } finally {
    await Deno.remove(ws, { recursive: true });
  }
});

sandboxTest(
  "a sandboxed command cannot plant code in the dist/ of the scv checkout it runs in",
  async () => {
    // The workspace is the checkout the server runs from: its dist/ is what the next start runs.
    const checkout = decodeURIComponent(new URL("../../../", import.meta.url).pathname)
      .replace(/\/$/, "");
    const planted = `${checkout}/dist/planted-${crypto.randomUUID().slice(0, 8)}.js`;
    try {
      await withBashServer(
        `echo 'console.log("owned")' > ${planted.slice(checkout.length + 1)}`,
        { workspace: checkout },
        async ({ completed }) => {
          assert.equal(completed.success, false);
          assert.match(completed.output, /Read-only file system/);
          assert.match(completed.output, /\[sandbox: scv's own build \(its dist\/ directory\)/);
          assert.equal(await exists(planted), false);
        },
      );
    } finally {
      await Deno.remove(planted).catch(() => {});
    }
  },
);

sandboxTest("a sandboxed command cannot read a file under a hidden path", async () => {
  const home = await hostDir("scv-sbx-home-");
  try {
    await Deno.mkdir(`${home}/.ssh`);
    await Deno.writeTextFile(`${home}/.ssh/id_ed25519`, "PRIVATE-KEY-MATERIAL-42");
    await withBashServer(
      `cat ${home}/.ssh/id_ed25519`,
      // Named as sandbox_deny_read names ~/.ssh; HOME itself stays, so Deno's cache does too.
      { config: { sandbox_deny_read: [`${home}/.ssh`] } },
      ({ completed }) => {
        assert.equal(completed.success, false);
        assert.ok(!completed.output.includes("PRIVATE-KEY-MATERIAL-42"), completed.output);
        assert.match(completed.output, /No such file or directory/);
        assert.match(completed.output.split("\n").at(-1)!, /"sandbox_deny_read"/);
      },
    );
    // The file is still there outside: hidden, not removed.
    assert.equal(await Deno.readTextFile(`${home}/.ssh/id_ed25519`), "PRIVATE-KEY-MATERIAL-42");
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

sandboxTest(
  "a sandboxed command cannot reach a loopback port the test opened outside",
  async () => {
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    let accepted = 0;
    const accepting = (async () => {
      for await (const conn of listener) {
        accepted++;
        conn.close();
      }
    })();
    try {
      const port = listener.addr.port;
      await withBashServer(
        `exec 3<>/dev/tcp/127.0.0.1/${port} && echo CONNECTED`,
        {},
        ({ completed }) => {
          assert.equal(completed.success, false);
          assert.ok(!completed.output.includes("CONNECTED"), completed.output);
          assert.match(completed.output.split("\n").at(-1)!, /"sandbox_network": true/);
        },
      );
      assert.equal(accepted, 0);
    } finally {
      listener.close();
      await accepting.catch(() => {});
    }
  },
);

sandboxTest("a sandboxed command sees no scv process in /proc", async () => {
  await withBashServer(
    "for f in /proc/[0-9]*/cmdline; do tr '\\0' ' ' < $f; echo; done; ls -d /proc/[0-9]* | wc -l",
    {},
    ({ completed }) => {
      assert.equal(completed.success, true, completed.output);
      assert.ok(!completed.output.includes("main.ts"), completed.output);
      assert.ok(!completed.output.includes("deno"), completed.output);
      const count = Number(completed.output.trim().split("\n").at(-1));
      assert.ok(count >= 1 && count <= 8, `${count} processes visible`);
    },
  );
});

sandboxTest(
  "a sandboxed command cannot find the API key through env, /proc/*/environ or ps",
  async () => {
    await withBashServer(
      "env; tr '\\0' '\\n' < /proc/$PPID/environ; cat /proc/*/environ; ps eww 2>&1; " +
        "head -c 100000 /proc/$PPID/mem 2>&1 | tr -cd '[:print:]'; echo END",
      {},
      ({ completed }) => {
        assert.match(completed.output, /END/);
        assert.ok(!completed.output.includes(FAKE_KEY), "the key reached the command");
        assert.ok(!completed.output.includes("DO-NOT-LEAK"));
      },
    );
  },
);

sandboxTest(
  "a background child that left the session with an empty environment dies with the call",
  async () => {
    const marker = "sleep 3141.59";
    await withBashServer(
      `(setsid bash -c 'env -i ${marker} &' &); ` +
        "for i in $(seq 600); do [ -e go ] && break; sleep 0.05; done; echo finished",
      {},
      async ({ completed }) => {
        assert.equal(completed.success, true, completed.output);
        assert.deepEqual(await processesWith(marker), []);
      },
      async (_server, ws) => {
        // Shown alive from outside first, then the call is let go.
        assert.ok(await eventually(async () => (await processesWith(marker)).length > 0));
        await Deno.writeTextFile(`${ws}/go`, "");
      },
    );
  },
);

sandboxTest(
  "normal work succeeds in the sandbox: git status, python3, a file in the workspace, a test runner",
  async () => {
    const ws = await hostDir("scv-sbx-work-");
    try {
      await new Deno.Command("git", { args: ["init", "-q", ws] }).output();
      await Deno.writeTextFile(
        `${ws}/sum_test.ts`,
        'Deno.test("sum", () => { if (1 + 1 !== 2) throw new Error("math"); });\n',
      );
      await withBashServer(
        "git status --short && python3 -c 'print(6 * 7)' && echo made > made.txt && " +
          "NO_COLOR=1 deno test --no-prompt sum_test.ts 2>&1 | grep -E '^ok \\|'",
        { workspace: ws },
        async ({ completed }) => {
          assert.equal(completed.success, true, completed.output);
          assert.match(completed.output, /\?\? sum_test\.ts/);
          assert.match(completed.output, /^42$/m);
          assert.match(completed.output, /^ok \| 1 passed/m);
          assert.equal(await Deno.readTextFile(`${ws}/made.txt`), "made\n");
        },
      );
    } finally {
      await Deno.remove(ws, { recursive: true });
    }
  },
);

sandboxTest(
  "a TMPDIR the sandbox cannot write becomes its private /tmp, so mktemp works",
  async () => {
    await withBashServer(
      'echo "$TMPDIR"; f=$(mktemp) && echo ok > "$f" && cat "$f"',
      { env: { TMPDIR: "/var/tmp/scv-not-writable-inside" } },
      ({ completed }) => {
        assert.equal(completed.success, true, completed.output);
        assert.equal(completed.output, "/tmp\nok\n");
      },
    );
  },
);
