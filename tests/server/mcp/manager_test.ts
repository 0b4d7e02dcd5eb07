/** The MCP manager in-process (server/mcp/manager.ts) with the scripted server. */
import assert from "node:assert/strict";
import { McpManager } from "../../../server/mcp/manager.ts";
import { validateMcpServers } from "../../../server/mcp_servers.ts";
import { ToolRegistry } from "../../../server/tools/registry.ts";
import { scriptServer } from "../../support/mcp_peers.ts";

function manager(servers: Record<string, unknown>, log: string[] = []) {
  return new McpManager({
    servers: validateMcpServers(servers),
    env: (n) => Deno.env.get(n),
    secretEnv: [],
    log: (l) => log.push(l),
  });
}

Deno.test("each registry gets the tools once, and two registries are kept in sync apart", async () => {
  const m = manager({ s: scriptServer("ok") });
  try {
    m.start(Deno.cwd());
    const a = new ToolRegistry();
    const b = new ToolRegistry();
    await m.prepare(a, AbortSignal.timeout(30000));
    await m.prepare(a, AbortSignal.timeout(30000));
    await m.prepare(b, AbortSignal.timeout(30000));
    const names = (r: ToolRegistry) => r.list().map((t) => t.name);
    assert.ok(names(a).includes("mcp__s__pid"));
    assert.deepEqual(names(a), names(b));
    assert.equal(new Set(names(a)).size, names(a).length);
  } finally {
    await m.close();
  }
});

Deno.test("waiting for a starting server ends as soon as the signal aborts", async () => {
  const m = manager({ slow: scriptServer("silent", { startup_timeout_ms: 60000 }) });
  try {
    m.start(Deno.cwd());
    const c = new AbortController();
    const waiting = m.prepare(new ToolRegistry(), c.signal);
    c.abort(new DOMException("cancelled", "AbortError"));
    await assert.rejects(waiting, /cancelled/);
    assert.equal(m.statuses()[0]!.status, "starting");
  } finally {
    await m.close();
  }
});

Deno.test("a server tool named like a tool already in the registry gets a _2 suffix", async () => {
  const m = manager({ s: scriptServer("ok") });
  try {
    m.start(Deno.cwd());
    const r = new ToolRegistry([{
      name: "mcp__s__pid",
      description: "a built-in that happens to have that name",
      schema: (await import("zod")).z.object({}),
      risk: () => "read",
      summary: () => "x",
      run: () => Promise.resolve({ success: true, output: "", truncated: false }),
    }]);
    await m.prepare(r, AbortSignal.timeout(30000));
    assert.ok(r.get("mcp__s__pid_2"), r.list().map((t) => t.name).join());
  } finally {
    await m.close();
  }
});

Deno.test("notices reach the next turn once, at most 16 of them and a count of the rest", async () => {
  const m = manager({ bad: scriptServer("manybad") });
  try {
    m.start(Deno.cwd());
    const r = new ToolRegistry();
    const first = await m.prepare(r, AbortSignal.timeout(30000));
    assert.equal(first.length, 17);
    assert.match(
      first[0]!,
      /MCP server "bad": tool "b0" skipped: its inputSchema has type "array"/,
    );
    assert.equal(first[16], "24 more MCP notice(s) are in the log");
    assert.deepEqual(await m.prepare(r, AbortSignal.timeout(30000)), []);
  } finally {
    await m.close();
  }
});
