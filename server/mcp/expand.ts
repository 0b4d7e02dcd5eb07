/**
 * `${VAR}` references in MCP server settings (`env`, `headers`, `url`), replaced from scv's
 * environment when the server starts.
 *
 * @module
 */

import { expandEnvReferences } from "../env_refs.ts";

/**
 * `text` with every `${NAME}` replaced by the variable's value; a RangeError naming the first
 * unset variable and `where` it is used (never a value: they are often credentials).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { expandReferences } from "./expand.ts";
 * const env = (n: string) => n === "TOKEN" ? "t0k" : undefined;
 * assert.equal(expandReferences("Bearer ${TOKEN}", env, "headers.Authorization"), "Bearer t0k");
 * assert.throws(() => expandReferences("${NOPE}", env, "url"), /\$\{NOPE\} in url is not set/);
 * ```
 */
export function expandReferences(
  text: string,
  env: (name: string) => string | undefined,
  where: string,
): string {
  return expandEnvReferences(text, (name) => {
    const value = env(name);
    if (value === undefined) {
      throw new RangeError(`\${${name}} in ${where} is not set in scv's environment`);
    }
    return value;
  });
}

/**
 * Every value of a map expanded (see {@link expandReferences}); `where` names the map.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { expandMap } from "./expand.ts";
 * assert.deepEqual(expandMap({ A: "${X}-1" }, () => "x", "env"), { A: "x-1" });
 * ```
 */
export function expandMap(
  map: Readonly<Record<string, string>>,
  env: (name: string) => string | undefined,
  where: string,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(map)) out[k] = expandReferences(v, env, `${where}.${k}`);
  return out;
}
