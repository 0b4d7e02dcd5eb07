/**
 * The MCP conformance suite's client scenarios that run offline, against scv's MCP client code
 * (tests/fixtures/mcp_conformance_client.ts drives server/mcp/). The suite is the pinned
 * `@modelcontextprotocol/conformance` from .ci/npm, run under Deno (Node 20 crashes it).
 */
import assert from "node:assert/strict";

const ROOT = new URL("../../../", import.meta.url).pathname;
const SUITE = `${ROOT}.ci/npm/node_modules/@modelcontextprotocol/conformance/dist/index.js`;
const CLIENT = `${ROOT}tests/fixtures/mcp_conformance_client.ts`;

async function runScenario(scenario: string): Promise<{ code: number; output: string }> {
  try {
    await Deno.stat(SUITE);
  } catch {
    throw new Error(
      `${SUITE} is missing: install the pinned test peers with ` +
        "`npm install --prefix .ci/npm --no-audit --no-fund`",
    );
  }
  const cwd = await Deno.makeTempDir({ prefix: "scv-mcp-conformance-" });
  try {
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--no-prompt",
        "-A",
        SUITE,
        "client",
        "--command",
        `${Deno.execPath()} run --no-prompt -A --config ${ROOT}deno.json ${CLIENT}`,
        "--scenario",
        scenario,
        "--timeout",
        "60000",
      ],
      cwd,
      env: { NO_COLOR: "1" },
      stdin: "null",
    }).output();
    const dec = new TextDecoder();
    return { code: out.code, output: dec.decode(out.stdout) + dec.decode(out.stderr) };
  } finally {
    await Deno.remove(cwd, { recursive: true });
  }
}

for (const scenario of ["initialize", "tools_call"]) {
  Deno.test(`scv's MCP client passes the conformance client scenario "${scenario}"`, async () => {
    const { code, output } = await runScenario(scenario);
    assert.match(output, /OVERALL: PASSED/, output);
    assert.match(output, /Passed: (\d+)\/\1, 0 failed/, output);
    assert.equal(code, 0, output);
  });
}
