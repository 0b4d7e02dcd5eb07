/** The core environment set shared by `bash` calls and stdio MCP servers. */
import { assertEquals } from "../support/assert.ts";
import { CORE_ENV, isCoreEnvName, LC_NAMES } from "../../server/core_env.ts";

Deno.test("every core name and every LC_* name is in the core set", () => {
  for (const name of [...CORE_ENV, ...LC_NAMES, "LC_SOMETHING_NEW"]) {
    assertEquals(isCoreEnvName(name), true, name);
  }
});

Deno.test("the provider's key and other names outside the core set are not in it", () => {
  for (const name of ["OPENAI_API_KEY", "GITHUB_TOKEN", "PATHS", "XLC_ALL", "path"]) {
    assertEquals(isCoreEnvName(name), false, name);
  }
});
