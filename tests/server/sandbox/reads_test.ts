/**
 * Reads through the real server with bubblewrap: the default credential stores are hidden under
 * a broad `--allow-read`, and under a scoped one a sandboxed command does not see `HOME` at all.
 * Each test gives the server a fake `HOME` (and the real `DENO_DIR`, so Deno's cache stays).
 */
import { SCV_DIR } from "../../support/locked_down.ts";
import assert from "node:assert/strict";
import { DEFAULT_CONFIG } from "../../../server/config.ts";
import { FAKE_KEY, hostDir, sandboxTest, withBashServer } from "./support.ts";

const TOKEN = "ghp_PlantedCredential0123456789abcdef";
const DENO_DIR = Deno.env.get("DENO_DIR") ??
  `${Deno.env.get("HOME")}/.cache/deno`;

/** A fake home with a planted token in every default `sandbox_deny_read` path. */
async function plantedHome(): Promise<{ home: string; paths: string[] }> {
  const home = await hostDir("scv-sbx-home-");
  const paths: string[] = [];
  for (const entry of DEFAULT_CONFIG.sandbox_deny_read) {
    const p = `${home}/${entry.slice(2)}`;
    paths.push(p);
    // Files by their name (config.json, .netrc, ...), directories otherwise.
    if (/\.(json|toml)$|\/\.(netrc|git-credentials|npmrc|pypirc)$/.test(p)) {
      await Deno.mkdir(p.slice(0, p.lastIndexOf("/")), { recursive: true });
      await Deno.writeTextFile(p, `token=${TOKEN}\n`);
    } else {
      await Deno.mkdir(p, { recursive: true });
      await Deno.writeTextFile(`${p}/secret`, `token=${TOKEN}\n`);
    }
  }
  return { home, paths };
}

sandboxTest(
  "every default credential path is unreadable inside the sandbox and a planted token reaches no event",
  async () => {
    const { home, paths } = await plantedHome();
    try {
      const command = paths.map((p) =>
        `if [ -d '${p}' ]; then echo "${p.slice(home.length)} dir:$(ls -A '${p}' | wc -l)"; ` +
        `cat '${p}'/* 2>/dev/null; else echo "${p.slice(home.length)} file:$(wc -c < '${p}')"; ` +
        `cat '${p}'; fi`
      ).join("; ") + "; grep -r token= ~ 2>/dev/null; echo end";
      await withBashServer(
        command,
        { env: { HOME: home, DENO_DIR } },
        ({ completed, server }) => {
          assert.equal(completed.success, true, completed.output);
          assert.match(completed.output, /end/);
          for (const p of paths) {
            // A hidden directory is empty; a hidden file is empty or cannot be opened at all.
            const line = String(completed.output).split("\n").find((l: string) =>
              l.startsWith(p.slice(home.length) + " ")
            );
            assert.match(line ?? "", / (dir:0|file:0?)$/, p);
          }
          const everything = server.rawLines.join("\n") + server.stderr;
          assert.ok(!everything.includes(TOKEN), completed.output);
          assert.ok(!everything.includes(FAKE_KEY));
        },
      );
      // Hidden, not removed.
      assert.match(await Deno.readTextFile(paths[0] + "/secret"), /token=/);
    } finally {
      await Deno.remove(home, { recursive: true });
    }
  },
);

sandboxTest("under a scoped --allow-read a sandboxed command does not see HOME", async () => {
  const home = await hostDir("scv-sbx-home-");
  const workspace = await hostDir("scv-sbx-ws-");
  try {
    await Deno.writeTextFile(`${home}/notes.txt`, TOKEN);
    await Deno.writeTextFile(`${workspace}/mine.txt`, "workspace file\n");
    const flags = [
      "--no-prompt",
      // The server's config and state are under /tmp; HOME and the rest of /var/tmp are not.
      `--allow-read=${SCV_DIR},${workspace},/tmp`,
      `--allow-write=${workspace},/tmp`,
      "--allow-env",
      "--allow-net",
      "--allow-run=bash,bwrap",
    ];
    await withBashServer(
      `cat mine.txt; ls /usr/bin/bash; ls -A / | tr '\\n' ' '; echo; cat "$HOME/notes.txt"`,
      { env: { HOME: home, DENO_DIR }, denoFlags: flags, workspace },
      ({ completed, server }) => {
        assert.equal(completed.success, false, completed.output);
        assert.match(completed.output, /workspace file/);
        assert.match(completed.output, /\/usr\/bin\/bash/);
        assert.match(completed.output, /notes\.txt: No such file or directory/);
        assert.ok(!server.rawLines.join("\n").includes(TOKEN), completed.output);
        // The host's root shows only what was bound (/var holds the workspace).
        const top = completed.output.split("\n")[2]!.trim().split(" ").sort();
        assert.ok(
          !top.includes("home") && !top.includes("root") && !top.includes("work"),
          top.join(),
        );
        assert.match(completed.output.split("\n").at(-1)!, /"sandbox_readable_roots"/);
      },
    );
  } finally {
    await Deno.remove(home, { recursive: true });
    await Deno.remove(workspace, { recursive: true });
  }
});
