/** The environment a stdio MCP server starts with (server/mcp/env.ts). */
import assert from "node:assert/strict";
import { serverEnv } from "../../../server/mcp/env.ts";

const scv: Record<string, string> = {
  PATH: "/bin",
  HOME: "/h",
  LC_CTYPE: "C",
  OPENAI_API_KEY: "sk",
  GITHUB_TOKEN: "gh",
  RANDOM: "r",
};

Deno.test("a server gets the core set and LC_* from scv's environment, nothing else", () => {
  const env = serverEnv({}, (n) => scv[n], Object.keys(scv), ["OPENAI_API_KEY"]);
  assert.deepEqual(env, { PATH: "/bin", HOME: "/h", LC_CTYPE: "C" });
});

Deno.test("configured env values are added and win over the core set", () => {
  const env = serverEnv(
    { PATH: "/opt/bin", GITHUB_TOKEN: "given" },
    (n) => scv[n],
    Object.keys(scv),
    [],
  );
  assert.equal(env.PATH, "/opt/bin");
  assert.equal(env.GITHUB_TOKEN, "given");
});

Deno.test("a secret name in the core set is still dropped", () => {
  const env = serverEnv({}, (n) => scv[n], Object.keys(scv), ["HOME"]);
  assert.equal(env.HOME, undefined);
});
