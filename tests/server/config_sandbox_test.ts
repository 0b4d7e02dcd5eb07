/**
 * The sandbox's configuration keys, `approval_policy: "auto"`, and the locked-down rule that an
 * optional config location scv may not read is skipped with a notice.
 */
import assert from "node:assert/strict";
import {
  ConfigError,
  ConfigUnreadableError,
  loadConfig,
  MAX_LIST_ENTRIES,
  validateConfigObject,
} from "../../server/config.ts";

function rejects(value: Record<string, unknown>, pattern: RegExp): void {
  assert.throws(() => validateConfigObject(value, '"c.jsonc"'), (e) => {
    assert.ok(e instanceof ConfigError);
    assert.match(e.message, pattern);
    return true;
  });
}

Deno.test("sandbox must be one of its four modes", () => {
  assert.equal(validateConfigObject({ sandbox: "read-only" }, "x").sandbox, "read-only");
  rejects(
    { sandbox: "on" },
    /"sandbox" must be one of "auto", "workspace-write", "read-only", "off", got "on"/,
  );
});

Deno.test("approval_policy accepts auto", () => {
  assert.equal(validateConfigObject({ approval_policy: "auto" }, "x").approval_policy, "auto");
  assert.equal(
    loadConfig({ approvalPolicy: "auto" }, { env: () => undefined }).approval_policy,
    "auto",
  );
});

Deno.test("sandbox_network must be a boolean or a list of host patterns", () => {
  rejects({ sandbox_network: "yes" }, /"sandbox_network" must be true, false or an array/);
  rejects({ sandbox_network: ["a b"] }, /"sandbox_network" must be true, false or an array/);
});

Deno.test("sandbox_writable_roots must be absolute paths", () => {
  rejects({ sandbox_writable_roots: ["rel/dir"] }, /"sandbox_writable_roots" must be an array/);
  rejects({ sandbox_writable_roots: "/a" }, /must be an array/);
});

Deno.test("sandbox_deny_read takes absolute and ~/ paths only", () => {
  assert.deepEqual(
    validateConfigObject({ sandbox_deny_read: ["~/.kube", "/etc/shadow"] }, "x").sandbox_deny_read,
    ["~/.kube", "/etc/shadow"],
  );
  rejects({ sandbox_deny_read: ["~user/x"] }, /"sandbox_deny_read"/);
});

Deno.test("shell_env_passthrough takes names and PREFIX_* globs only", () => {
  assert.deepEqual(
    validateConfigObject({ shell_env_passthrough: ["CARGO_*", "GITHUB_TOKEN"] }, "x")
      .shell_env_passthrough,
    ["CARGO_*", "GITHUB_TOKEN"],
  );
  rejects({ shell_env_passthrough: ["*"] }, /"shell_env_passthrough"/);
  rejects({ shell_env_passthrough: ["A*B"] }, /"shell_env_passthrough"/);
});

Deno.test("a list setting over MAX_LIST_ENTRIES is refused; exactly the limit passes", () => {
  const names = (n: number) => Array.from({ length: n }, (_, i) => `V${i}`);
  assert.equal(
    validateConfigObject({ shell_env_passthrough: names(MAX_LIST_ENTRIES) }, "x")
      .shell_env_passthrough?.length,
    MAX_LIST_ENTRIES,
  );
  rejects(
    { shell_env_passthrough: names(MAX_LIST_ENTRIES + 1) },
    new RegExp(`at most ${MAX_LIST_ENTRIES}`),
  );
});

Deno.test("an optional user config file scv may not read is skipped with one notice", () => {
  const notices: string[] = [];
  const config = loadConfig({}, {
    env: (n) => n === "HOME" ? "/home/u" : undefined,
    readTextFile: (p) => {
      throw new ConfigUnreadableError(p);
    },
    notice: (l) => notices.push(l),
  });
  assert.equal(config.model, "gpt-4.1-mini");
  assert.deepEqual(notices, [
    'scv: notice: skipped the optional config file "/home/u/.config/scv/config.jsonc": no read ' +
    "permission for it",
  ]);
});

Deno.test("a --config file scv may not read is still an error", () => {
  assert.throws(
    () =>
      loadConfig({ config: "/etc/scv.jsonc" }, {
        env: () => undefined,
        readTextFile: (p) => {
          if (p === "/etc/scv.jsonc") throw new ConfigUnreadableError(p);
          return undefined;
        },
      }),
    /Cannot load config "\/etc\/scv.jsonc": scv was started without read permission/,
  );
});
