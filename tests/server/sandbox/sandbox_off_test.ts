/**
 * bash with the sandbox off, or where it cannot start, over the real server: the environment is
 * still scrubbed, `auto` asks for every bash call, a required mode fails each call saying why,
 * and `--allow-run=bwrap` alone runs nothing unsandboxed.
 */
import assert from "node:assert/strict";
import { sandboxTest } from "./support.ts";
import { FAKE_KEY, withBashServer } from "./support.ts";
import { SERVER_FLAGS } from "../../support/server_process.ts";

/** `deno task server`'s flags with `--allow-run` replaced. */
function withRun(run: string): string[] {
  return [...SERVER_FLAGS.filter((f) => !f.startsWith("--allow-run")), run];
}

Deno.test("with the sandbox off, session.started says so and auto asks for bash with sandboxed: false", async () => {
  await withBashServer("echo hi", { config: { sandbox: "off" } }, (run) => {
    assert.deepEqual(run.sessionStarted.sandbox, {
      mode: "off",
      reason: '"sandbox" is "off" in the configuration',
    });
    assert.equal(run.approval?.sandboxed, false);
    assert.equal(run.completed.output, "hi\n");
  });
});

Deno.test("with the sandbox off, the command's environment holds no key, no *TOKEN* variable and nothing unlisted", async () => {
  await withBashServer(
    "env; echo END",
    {
      config: { sandbox: "off", shell_env_passthrough: ["SCV_PASS_*", "EXACT_API_TOKEN"] },
      env: {
        SCV_PASS_ONE: "passed-one",
        SCV_PASS_TOKEN: "glob-must-not-pass-a-token",
        EXACT_API_TOKEN: "named-exactly-passes",
        GITHUB_TOKEN: "ghp-must-not-pass",
        UNLISTED_VAR: "must-not-pass",
      },
    },
    ({ completed }) => {
      assert.match(completed.output, /END/);
      assert.ok(!completed.output.includes(FAKE_KEY), "the provider key reached the command");
      assert.ok(!completed.output.includes("ghp-must-not-pass"));
      assert.ok(!completed.output.includes("glob-must-not-pass-a-token"));
      assert.ok(!completed.output.includes("must-not-pass"));
      assert.match(completed.output, /^SCV_PASS_ONE=passed-one$/m);
      assert.match(completed.output, /^EXACT_API_TOKEN=named-exactly-passes$/m);
      assert.match(completed.output, /^SCV_BASH_CALL=/m);
    },
  );
});

Deno.test("sandbox auto without --allow-run for bwrap runs unsandboxed and says why", async () => {
  await withBashServer(
    "echo hi",
    { denoFlags: withRun("--allow-run=bash") },
    ({ sessionStarted, approval, completed }) => {
      assert.equal(sessionStarted.sandbox.mode, "off");
      assert.match(sessionStarted.sandbox.reason, /--allow-run for bwrap/);
      assert.equal(approval?.sandboxed, false, "auto must ask while the sandbox is off");
      assert.equal(completed.output, "hi\n");
    },
  );
});

Deno.test("a required sandbox that cannot start fails each bash call saying why and what to do", async () => {
  await withBashServer(
    "echo must-not-run",
    { config: { sandbox: "workspace-write" }, denoFlags: withRun("--allow-run=bash") },
    ({ sessionStarted, completed }) => {
      assert.equal(sessionStarted.sandbox.mode, "off");
      assert.match(sessionStarted.sandbox.reason, /"sandbox" is "workspace-write" but/);
      assert.equal(completed.success, false);
      assert.ok(!completed.output.includes("must-not-run"));
      assert.match(completed.output, /cannot start here: .*To fix: add bwrap to --allow-run/);
    },
  );
});

Deno.test("with --allow-run=bwrap alone and the sandbox off, no command runs unsandboxed", async () => {
  await withBashServer(
    "echo must-not-run",
    {
      config: { sandbox: "off", approval_policy: "never" },
      denoFlags: withRun("--allow-run=bwrap"),
    },
    ({ completed }) => {
      assert.equal(completed.success, false);
      assert.ok(!completed.output.includes("must-not-run"));
      assert.match(completed.output, /scv may run only sandboxed commands/);
    },
  );
});

sandboxTest("with --allow-run=bwrap alone, bash runs in the sandbox", async () => {
  await withBashServer(
    "echo inside; ls -d /proc/[0-9]* | wc -l",
    { denoFlags: withRun("--allow-run=bwrap") },
    ({ sessionStarted, completed }) => {
      assert.deepEqual(sessionStarted.sandbox, { mode: "workspace-write", network: false });
      assert.equal(completed.success, true, completed.output);
      assert.match(completed.output, /^inside$/m);
    },
  );
});
