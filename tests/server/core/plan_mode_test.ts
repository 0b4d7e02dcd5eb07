/**
 * Plan mode in the agent loop, in process: what runs (read-only tools' reads, trusted read-only
 * MCP tools) and what is refused before anything else is consulted (writes, processes, reads
 * outside the workspace, untrusted MCP tools), even with an allow rule remembered.
 */
import { assert, assertEquals, assertMatch } from "../../support/assert.ts";
import {
  answer,
  call,
  callTools,
  only,
  runScripted,
  ScriptedApprovals,
  scriptedTool,
} from "./support.ts";
import { runsInPlanMode } from "../../../server/tools/registry.ts";
import { mcpTool } from "../../../server/mcp/tools.ts";
import type { McpServer } from "../../../server/mcp/server.ts";
import { Session } from "../../../server/core/session.ts";
import type { AnyTool } from "../../../server/tools/tool.ts";

/** Runs one call of `tool` under plan mode; returns its completion and what was asked. */
async function inPlanMode(tool: AnyTool, session?: Session) {
  const runs: unknown[] = [];
  const approvals = new ScriptedApprovals();
  const wrapped = {
    ...tool,
    run: (a: unknown, c: Parameters<AnyTool["run"]>[1]) => {
      runs.push(a);
      return tool.run(a, c);
    },
  };
  const { events } = await runScripted({
    tools: [wrapped],
    approvals,
    ...(session ? { session } : {}),
    config: { approval_policy: "plan" },
    steps: [callTools([call("c1", tool.name, { text: "x" })]), answer("ok")],
  });
  return { done: only(events, "tool.completed"), runs, asked: approvals.requests.length };
}

Deno.test("plan mode runs a read-only tool's read without asking", async () => {
  const { done, runs, asked } = await inPlanMode({ ...scriptedTool("look"), readOnly: true });
  assertEquals([done.success, runs.length, asked], [true, 1, 0]);
});

Deno.test("plan mode refuses a tool that does not declare itself read-only, though its risk is read", async () => {
  const { done, runs, asked } = await inPlanMode(scriptedTool("unknown"));
  assertEquals([done.success, runs.length, asked], [false, 0, 0]);
  assertMatch(done.output, /^Plan mode is on: .*this unknown call was refused without asking/);
});

Deno.test("plan mode refuses a read-only tool's call announced as a write (a path outside the workspace)", async () => {
  const outside = { ...scriptedTool("peek", { risk: () => "write" }), readOnly: true };
  const { done, runs } = await inPlanMode(outside);
  assertEquals([done.success, runs.length], [false, 0]);
});

Deno.test("a remembered allow rule does not let a write through plan mode", async () => {
  const session = new Session("/workspace");
  session.remembered.remember({ tool: "put", args: { text: "x" }, cwd: "/workspace" });
  const put = scriptedTool("put", { risk: () => "write" });
  const { done, runs } = await inPlanMode(put, session);
  assertEquals([done.success, runs.length], [false, 0]);
  assertMatch(done.output, /^Plan mode is on: /);
});

Deno.test("plan mode runs an MCP tool only when a trusted server marks it read-only", () => {
  const server = (trust: boolean) => ({ name: "docs", config: { trust } }) as unknown as McpServer;
  const info = (readOnly: boolean) => ({
    name: "search",
    description: "",
    inputSchema: { type: "object" },
    readOnly,
  });
  const cases: [boolean, boolean, boolean][] = [
    [true, true, true],
    [true, false, false],
    [false, true, false],
    [false, false, false],
  ];
  for (const [trust, readOnly, runs] of cases) {
    const tool = mcpTool(server(trust), info(readOnly), "mcp__docs__search");
    assert(typeof tool !== "string");
    const risk = tool.risk({}, { cwd: "/w" }) as "read" | "process";
    assertEquals(runsInPlanMode(tool, risk), runs, `trust ${trust}, readOnlyHint ${readOnly}`);
  }
});

Deno.test("plan mode lets the built-in read-only tools through, web_fetch among them, and no other", async () => {
  const { builtinTools } = await import("../../../server/tools/builtin.ts");
  const passes = Object.fromEntries(
    await Promise.all(
      builtinTools().map(async (t) => {
        const args = { path: "a.txt", pattern: "x", command: "ls", url: "https://example.com/" };
        const risk = await t.risk(args, { cwd: Deno.cwd() });
        return [t.name, runsInPlanMode(t, risk)];
      }),
    ),
  );
  assertEquals(passes, {
    bash: false,
    read_file: true,
    write_file: false,
    edit_file: false,
    glob: true,
    grep: true,
    web_fetch: true,
    update_plan: true,
  });
});
