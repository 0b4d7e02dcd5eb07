/**
 * `scv exec` with MCP servers (CONTRACT.md "MCP"): a server that fails is one warning line on
 * stderr, the answer still goes to stdout, and the exit status is the turn's.
 */
import assert from "node:assert/strict";
import { MockOpenAI, text } from "../support/mock_openai.ts";
import { MCP_SERVER_FLAGS, scriptServer } from "../support/mcp_peers.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;

Deno.test("scv exec prints one warning line on stderr per MCP server that failed and still answers", async () => {
  const mock = await MockOpenAI.start([text("fine")]);
  const dir = await Deno.makeTempDir({ prefix: "scv-exec-mcp-" });
  try {
    await Deno.writeTextFile(
      `${dir}/c.jsonc`,
      JSON.stringify({
        mcp_servers: {
          good: scriptServer("ok"),
          silent: scriptServer("silent", { startup_timeout_ms: 1500 }),
          missing: { command: "/nonexistent/mcp" },
        },
      }),
    );
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        ...MCP_SERVER_FLAGS,
        MAIN,
        "exec",
        "--cwd",
        dir,
        "--config",
        `${dir}/c.jsonc`,
        "hi",
      ],
      env: {
        OPENAI_BASE_URL: mock.baseUrl,
        XDG_CONFIG_HOME: dir,
        XDG_STATE_HOME: `${dir}/.state`,
        NO_COLOR: "1",
      },
      stdin: "null",
    }).output();
    const stdout = new TextDecoder().decode(out.stdout);
    const stderr = new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 0, stderr);
    assert.equal(stdout, "fine\n");
    const warnings = stderr.split("\n").filter((l) =>
      l.startsWith("scv exec: warning: MCP server")
    );
    assert.equal(warnings.length, 2, stderr);
    assert.ok(warnings.some((l) => /"silent" did not answer initialize within 1500 ms/.test(l)));
    assert.ok(warnings.some((l) => /"missing" failed to start: cannot start/.test(l)));
    assert.ok(!/"good"/.test(stderr), stderr);
  } finally {
    await mock.close();
    await Deno.remove(dir, { recursive: true });
  }
});
