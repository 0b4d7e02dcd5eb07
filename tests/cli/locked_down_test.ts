/**
 * scv under the README's locked-down flags, end to end: `scv exec` and `scv server` start (the
 * optional config location they may not read is skipped with a notice), reach the provider on
 * its host, and run bash in the sandbox (`--allow-run=bwrap`, so nothing runs unsandboxed).
 */
import assert from "node:assert/strict";
import { sandboxTest } from "../server/sandbox/support.ts";
import { MockOpenAI, text, toolCalls } from "../support/mock_openai.ts";
import { LOCKED_DOWN_ENV, lockedDownFlags, SCV_DIR } from "../support/locked_down.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;
const README = new URL("../../README.md", import.meta.url);

/** A workspace, a home and XDG directories, outside /tmp so a sandboxed write proves something. */
async function dirs() {
  const top = await Deno.realPath(await Deno.makeTempDir({ dir: "/var/tmp", prefix: "scv-lock-" }));
  const d = {
    top,
    workspace: `${top}/ws`,
    configDir: `${top}/config/scv`,
    stateDir: `${top}/state/scv`,
  };
  await Deno.mkdir(d.workspace);
  await Deno.mkdir(d.configDir, { recursive: true });
  return d;
}

/** The whole environment of a locked-down child: PATH, XDG dirs under `d.top`, the mock provider. */
function lockedEnv(
  d: { top: string },
  baseUrl: string,
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    XDG_CONFIG_HOME: `${d.top}/config`,
    XDG_STATE_HOME: `${d.top}/state`,
    OPENAI_BASE_URL: baseUrl,
    ...extra,
  };
}

sandboxTest(
  "scv exec runs a sandboxed bash call end to end under the README's locked-down flags",
  async () => {
    const d = await dirs();
    const command = "echo made > made.txt && cat made.txt && touch /var/tmp/scv-lock-escape-$$ " +
      "|| echo outside-refused";
    const mock = await MockOpenAI.start((_r, i) =>
      i === 0 ? toolCalls([{ name: "bash", arguments: { command } }]) : text("all done")
    );
    try {
      const out = await new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          ...lockedDownFlags({ ...d, providerHost: new URL(mock.baseUrl).host }),
          MAIN,
          "exec",
          "--approval-policy",
          "auto",
          "make a file",
        ],
        cwd: d.workspace,
        clearEnv: true,
        env: lockedEnv(d, mock.baseUrl, {
          HOME: Deno.env.get("HOME") ?? d.top,
          OPENAI_API_KEY: "sk-locked-down-test",
          NO_COLOR: "1",
        }),
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      }).output();
      const stdout = new TextDecoder().decode(out.stdout);
      const stderr = new TextDecoder().decode(out.stderr);
      assert.equal(out.code, 0, stderr);
      assert.equal(stdout, "all done\n");
      assert.match(stderr, /✓ bash: made/);
      assert.ok(!stderr.includes("warning: the sandbox is off"), stderr);
      assert.equal(await Deno.readTextFile(`${d.workspace}/made.txt`), "made\n");
      // The call ran in the sandbox: the write outside was refused there.
      const toolResult = mock.requests[1]!.body.messages.find((m) => m.role === "tool");
      assert.match(String(toolResult?.content), /outside-refused/);
    } finally {
      await mock.close();
      await Deno.remove(d.top, { recursive: true });
    }
  },
);

Deno.test("scv exec under locked-down flags skips an unreadable optional config location with one notice", async () => {
  const d = await dirs();
  const mock = await MockOpenAI.start([text("fine")]);
  try {
    const flags = lockedDownFlags({ ...d, providerHost: new URL(mock.baseUrl).host })
      // Not even scv's own config directory may be read.
      .map((f) =>
        f.startsWith("--allow-read=") ? `--allow-read=${SCV_DIR},${d.workspace},${d.stateDir}` : f
      );
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", ...flags, MAIN, "exec", "hi"],
      cwd: d.workspace,
      clearEnv: true,
      env: lockedEnv(d, mock.baseUrl),
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stderr = new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 0, stderr);
    assert.equal(new TextDecoder().decode(out.stdout), "fine\n");
    const notices = stderr.split("\n").filter((l) => l.includes("notice: skipped"));
    assert.deepEqual(notices, [
      `scv: notice: skipped the optional config file "${d.configDir}/config.jsonc": no read ` +
      "permission for it",
    ]);
  } finally {
    await mock.close();
    await Deno.remove(d.top, { recursive: true });
  }
});

sandboxTest(
  "scv server runs a turn with a sandboxed bash call under the README's locked-down flags",
  async () => {
    const d = await dirs();
    const mock = await MockOpenAI.start((_r, i) =>
      i === 0
        ? toolCalls([{ name: "bash", arguments: { command: "ls -d /proc/[0-9]* | wc -l" } }])
        : text("ok")
    );
    try {
      const child = new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          ...lockedDownFlags({ ...d, providerHost: new URL(mock.baseUrl).host }),
          MAIN,
          "server",
          "--approval-policy",
          "auto",
        ],
        clearEnv: true,
        env: lockedEnv(d, mock.baseUrl),
        stdin: "piped",
        stdout: "piped",
        stderr: "piped",
      }).spawn();
      const writer = child.stdin.getWriter();
      const send = (m: unknown) => writer.write(new TextEncoder().encode(JSON.stringify(m) + "\n"));
      const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
      const events: Array<Record<string, unknown>> = [];
      let buf = "";
      const next = async (type: string) => {
        for (;;) {
          const found = events.find((e) => e.type === type);
          if (found) return found;
          const { value, done } = await lines.read();
          if (done) throw new Error(`no ${type}: ${JSON.stringify(events)}`);
          buf += value;
          const parts = buf.split("\n");
          buf = parts.pop()!;
          for (const l of parts) if (l.trim()) events.push(JSON.parse(l));
        }
      };
      await send({ type: "initialize", request_id: "1", protocol_version: 1 });
      await send({ type: "session.start", request_id: "2", cwd: d.workspace });
      const started = await next("session.started");
      assert.deepEqual(started.sandbox, { mode: "workspace-write", network: false });
      await send({
        type: "turn.start",
        request_id: "3",
        session_id: started.session_id,
        prompt: "go",
      });
      const completed = await next("tool.completed");
      assert.equal(completed.success, true, String(completed.output));
      assert.ok(Number(String(completed.output).trim()) <= 8, String(completed.output));
      await next("turn.completed");
      await writer.close();
      assert.equal((await child.status).code, 0);
      await lines.cancel();
      await child.stderr.cancel();
    } finally {
      await mock.close();
      await Deno.remove(d.top, { recursive: true });
    }
  },
);

Deno.test("the README's locked-down command lines use the tested environment list and --allow-run=bwrap", async () => {
  const readme = await Deno.readTextFile(README);
  const section = readme.slice(readme.indexOf("## Locked-down runs"));
  assert.ok(section.length > 0);
  for (
    const cmd of ['main.ts" exec', 'main.ts" server', 'main.ts"\n', 'deno compile "${FLAGS[@]}"']
  ) {
    assert.ok(section.includes(cmd), `the section has no line for ${JSON.stringify(cmd)}`);
  }
  assert.ok(section.includes(`--allow-env=${LOCKED_DOWN_ENV}`));
  assert.ok(section.includes("--allow-run=bwrap"));
  // scv reads its own code (main.ts imports each command by a computed name).
  assert.ok(section.includes('--allow-read="$SCV,'));
  assert.ok(section.includes('--include "$SCV/cli"'));
});

Deno.test("scv without read access to its own directory says to add it and exits 2; --version needs none", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const run = (args: string[]) =>
      new Deno.Command(Deno.execPath(), {
        args: ["run", "--no-prompt", `--allow-read=${dir}`, "--allow-env", MAIN, ...args],
        cwd: dir,
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      }).output();
    const version = await run(["--version"]);
    assert.equal(version.code, 0);
    assert.match(new TextDecoder().decode(version.stdout), /^scv \d+\.\d+\.\d+/);
    for (const args of [["exec", "hi"], ["server"], ["sessions", "list"]]) {
      const out = await run(args);
      const stderr = new TextDecoder().decode(out.stderr);
      assert.equal(out.code, 2, `${args.join(" ")}: ${stderr}`);
      assert.match(
        stderr,
        new RegExp(
          `^scv: scv cannot read its own code: add its directory to --allow-read ` +
            `\\(--allow-read=${SCV_DIR.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")},\\.\\.\\.\\)`,
        ),
      );
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
