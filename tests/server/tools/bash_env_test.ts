import assert from "node:assert/strict";
import { callEnv, type EnvSource } from "../../../server/tools/bash_env.ts";
import { DEFAULT_PATH, scvPath, SYSTEM_PATH } from "../../../server/core_env.ts";

function source(env: Record<string, string>, listable = true): EnvSource {
  return { all: () => listable ? { ...env } : undefined, get: (n) => env[n] };
}

const ENV = {
  PATH: "/bin",
  HOME: "/h",
  LANG: "C.UTF-8",
  LC_TIME: "de_DE",
  OPENAI_API_KEY: "sk-1",
  GITHUB_TOKEN: "ghp",
  AWS_SECRET_ACCESS_KEY: "aws",
  DB_PASSWORD: "pw",
  MY_A: "a",
  MY_TOKEN: "t",
  OTHER: "o",
};

Deno.test("a call gets the core set and nothing else by default", () => {
  assert.deepEqual(callEnv({ passthrough: [], secrets: ["OPENAI_API_KEY"] }, source(ENV)), {
    PATH: "/bin",
    HOME: "/h",
    LANG: "C.UTF-8",
    LC_TIME: "de_DE",
  });
});

Deno.test("a passthrough glob passes its names but never a secret-looking one", () => {
  const env = callEnv({ passthrough: ["MY_*"], secrets: [] }, source(ENV));
  assert.equal(env.MY_A, "a");
  assert.equal(env.MY_TOKEN, undefined);
});

Deno.test("a secret-looking variable, or the provider's key, passes when named exactly", () => {
  const env = callEnv(
    { passthrough: ["GITHUB_TOKEN", "OPENAI_API_KEY"], secrets: ["OPENAI_API_KEY"] },
    source(ENV),
  );
  assert.equal(env.GITHUB_TOKEN, "ghp");
  assert.equal(env.OPENAI_API_KEY, "sk-1");
  assert.equal(env.DB_PASSWORD, undefined);
});

Deno.test("under a scoped --allow-env each name is read on its own and globs beyond LC_* pass nothing", () => {
  const env = callEnv({ passthrough: ["MY_*", "OTHER"], secrets: [] }, source(ENV, false));
  assert.deepEqual(env, {
    PATH: "/bin",
    HOME: "/h",
    LANG: "C.UTF-8",
    LC_TIME: "de_DE",
    OTHER: "o",
  });
});

Deno.test("a call without PATH gets the usual system directories", () => {
  assert.equal(callEnv({ passthrough: [], secrets: [] }, source({})).PATH, DEFAULT_PATH);
});

Deno.test("helper commands get scv's own PATH when it has one, whatever the fallback", () => {
  const own = Deno.env.get("PATH");
  assert(own, "the test runs with a PATH");
  assert.deepEqual([scvPath(), scvPath(SYSTEM_PATH)], [own, own]);
});
