import { SCV_DIR } from "../support/locked_down.ts";
import assert from "node:assert/strict";
import { sandboxTest } from "../server/sandbox/support.ts";
import { SERVER_FLAGS } from "../support/server_process.ts";
import { livePassed, reportLines } from "../../cli/sandbox_check.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;

async function check(
  args: string[],
  flags: string[] | ((dir: string) => string[]) = SERVER_FLAGS,
  config = "{}",
) {
  const dir = await Deno.realPath(await Deno.makeTempDir({ dir: "/var/tmp", prefix: "scv-chk-" }));
  try {
    await Deno.mkdir(`${dir}/ws`);
    await new Deno.Command("git", { args: ["init", "-q", `${dir}/ws`] }).output();
    await Deno.writeTextFile(`${dir}/c.jsonc`, config);
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        ...(typeof flags === "function" ? flags(dir) : flags),
        MAIN,
        "sandbox",
        "check",
        "--cwd",
        `${dir}/ws`,
        "--config",
        `${dir}/c.jsonc`,
        ...args,
      ],
      env: { XDG_CONFIG_HOME: `${dir}/cfg`, XDG_STATE_HOME: `${dir}/state` },
      stdout: "piped",
      stderr: "piped",
    }).output();
    // What the check left beside the workspace and its config (scv's state directory, where
    // it remembers a working probe, is scv's own and named apart).
    const leftovers = [...Deno.readDirSync(dir)].map((e) => e.name).filter((n) => n !== "state")
      .sort();
    const state = (() => {
      try {
        return [...Deno.readDirSync(`${dir}/state/scv`)].map((e) => e.name).sort();
      } catch {
        return [];
      }
    })();
    return {
      code: out.code,
      stdout: new TextDecoder().decode(out.stdout),
      stderr: new TextDecoder().decode(out.stderr),
      leftovers,
      state,
    };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

sandboxTest("scv sandbox check passes every live check here and exits 0", async () => {
  const r = await check([]);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /^mode: +workspace-write \("sandbox": "auto"\)$/m);
  for (
    const line of [
      "a write outside",
      ".git/hooks cannot",
      "scv's process",
      "127.0.0.1",
      "hidden",
      "planted in the workspace and denied cannot be read",
    ]
  ) {
    assert.ok(
      r.stdout.split("\n").some((l) => l.includes("[ok]") && l.includes(line)),
      `no passed check for ${line}:\n${r.stdout}`,
    );
  }
  // The trial write outside left nothing beside the workspace; the state directory holds only
  // the remembered probe.
  assert.deepEqual(r.leftovers, ["c.jsonc", "ws"]);
  assert.deepEqual(r.state, ["sandbox-probe.json"]);
});

sandboxTest(
  "scv sandbox check under a scoped --allow-read lists what is readable and shows / holds only that",
  async () => {
    const r = await check([], (dir) => [
      "--no-prompt",
      `--allow-read=${SCV_DIR},${dir}`,
      `--allow-write=${dir}`,
      "--allow-env",
      "--allow-net",
      "--allow-run=bwrap",
    ]);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(
      r.stdout,
      /^readable: +\/usr, \/bin, .*\/etc, \/opt.* scv's --allow-read is scoped/m,
    );
    assert.match(r.stdout, /\[ok\] a file planted in the workspace and denied cannot be read/);
    const root = /^ {2}\/ {2}shows only: (.*)$/m.exec(r.stdout)?.[1]?.split(" ") ?? [];
    assert.ok(root.includes("usr") && root.includes("var"), r.stdout);
    assert.ok(!root.includes("home") && !root.includes("root") && !root.includes("work"), r.stdout);
  },
);

Deno.test("scv sandbox check with the sandbox off warns that approval is the only guard and exits 1", async () => {
  const r = await check([], SERVER_FLAGS, '{"sandbox": "off"}');
  assert.equal(r.code, 1);
  assert.match(r.stdout, /approval is the only guard/);
  assert.match(r.stdout, /\/proc\/\$PPID\/environ/);
});

Deno.test("scv sandbox check without --allow-run for bwrap says what to add and exits 1", async () => {
  const flags = SERVER_FLAGS.map((f) => f.startsWith("--allow-run") ? "--allow-run=bash" : f);
  const r = await check([], flags);
  assert.equal(r.code, 1);
  assert.match(r.stdout, /^to fix: +add bwrap to --allow-run/m);
});

Deno.test("a failed live check makes the check fail", () => {
  const live = {
    writeOutsideBlocked: true,
    hooksBlocked: undefined,
    processes: 2,
    scvHidden: true,
    loopbackBlocked: false,
    leakedHidden: [],
  };
  assert.equal(livePassed(live, false), false);
  assert.equal(livePassed(live, true), true);
  const lines = reportLines({
    configured: "auto",
    workspace: "/w",
    report: { mode: "workspace-write", network: false },
    live,
  });
  assert.ok(lines.some((l) => l.startsWith("  [FAILED] a port scv opened")));
  assert.ok(lines.some((l) => l.includes("[-] .git/hooks") && l.includes("not a git repository")));
});
